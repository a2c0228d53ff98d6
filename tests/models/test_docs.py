"""dbt docs: every model, seed and column is described, and the exposures name every app page and the report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalhouse.build import run_dbt

pytestmark = pytest.mark.slow

APP_PAGES = Path(__file__).resolve().parents[2] / "app" / "app_pages"


@pytest.fixture(scope="module")
def docs(demo_warehouse, tmp_path_factory):
    target = tmp_path_factory.mktemp("docs_target")
    result = run_dbt(demo_warehouse.path, ("docs", "generate"), target_path=target, quiet=True)
    assert result.ok, result.failures
    return json.loads((target / "manifest.json").read_text()), json.loads((target / "catalog.json").read_text())


def test_every_model_seed_and_column_is_described(docs):
    manifest, catalog = docs
    missing = []
    for unique_id, node in manifest["nodes"].items():
        if node["resource_type"] not in ("model", "seed"):
            continue
        if not node.get("description"):
            missing.append(unique_id)
        described = {name.lower() for name, column in node["columns"].items() if column.get("description")}
        for column in catalog["nodes"].get(unique_id, {}).get("columns", {}):
            if column.lower() not in described:
                missing.append(f"{unique_id}.{column}")
    assert missing == []


def test_exposures_name_every_app_page_and_the_weekly_report(docs):
    manifest, _ = docs
    exposures = manifest["exposures"].values()
    pages = {p.stem for p in APP_PAGES.glob("*.py") if not p.name.startswith("_")}
    named = {e["name"].removeprefix("app_") for e in exposures}
    assert pages <= named, pages - named
    assert any(e["name"] == "weekly_quality_report" for e in exposures)
    assert all(e["depends_on"]["nodes"] for e in exposures)


def test_marts_have_enforced_contracts(docs):
    manifest, _ = docs
    marts = [n for n in manifest["nodes"].values() if n["resource_type"] == "model" and "/marts/" in n["original_file_path"]]
    assert len(marts) >= 20
    assert [n["name"] for n in marts if not n["config"]["contract"]["enforced"]] == []
