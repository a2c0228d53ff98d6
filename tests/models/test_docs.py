"""dbt docs: every model, seed and column is described, and the exposures name every app page and the report."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evalhouse.build import run_dbt

pytestmark = pytest.mark.slow

APP_PAGES = Path(__file__).resolve().parents[2] / "app" / "app_pages"


@pytest.fixture(scope="module")
def demo_copy(demo_warehouse, tmp_path_factory) -> Path:
    """The demo warehouse copied, for dbt to open: dbt opens its file to write, which the session's shared demo
    warehouse must never be (another test worker may be reading it)."""
    copy = tmp_path_factory.mktemp("docs_warehouse") / "demo.duckdb"
    shutil.copyfile(demo_warehouse.path, copy)
    return copy


@pytest.fixture(scope="module")
def docs(demo_copy, tmp_path_factory):
    target = tmp_path_factory.mktemp("docs_target")
    result = run_dbt(demo_copy, ("docs", "generate"), target_path=target, quiet=True, write_json=True)
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


def test_every_mart_declares_its_key_and_the_warehouse_enforces_the_primary_keys(docs, demo_warehouse):
    """A mart's key is a primary key in its contract (DuckDB refuses a duplicate as the mart is written) or, for
    the largest marts and the views, a grain test; the primary keys reach the built warehouse."""
    manifest, _ = docs
    marts = {n["unique_id"]: n for n in manifest["nodes"].values()
             if n["resource_type"] == "model" and "/marts/" in n["original_file_path"]}
    primary_keys = {}
    for unique_id, node in marts.items():
        for constraint in node["constraints"]:
            if constraint["type"] == "primary_key":
                primary_keys[node["name"]] = sorted(constraint["columns"])
        for name, column in node["columns"].items():
            if any(constraint["type"] == "primary_key" for constraint in column["constraints"]):
                primary_keys[node["name"]] = [name]
    tested = {marts[n["attached_node"]]["name"] for n in manifest["nodes"].values()
              if n["resource_type"] == "test" and n.get("attached_node") in marts
              and (n.get("test_metadata") or {}).get("name") in ("unique", "unique_combination")}
    # Two views of one intermediate table's rows (no join), keyed there: fct_review_queue of
    # int_review_records_queued (a primary key), fct_trials of int_trials_unioned (grain tests scoped by written_in).
    # And a view grouped by its key, computed when read: a grain test would compute fct_model_comparisons in every
    # build; tests/models/test_model_comparisons.py holds its key unique on the demo, and its unit test the rows.
    keyed_upstream = {"fct_review_queue", "fct_trials", "fct_model_comparisons"}
    assert [n["name"] for n in marts.values()
            if n["name"] not in primary_keys and n["name"] not in tested and n["name"] not in keyed_upstream] == []
    assert len(primary_keys) >= 20

    enforced = demo_warehouse.rows("select table_name, constraint_column_names from duckdb_constraints() "
                                   "where schema_name = 'marts' and constraint_type = 'PRIMARY KEY'")
    assert {table: sorted(columns) for table, columns in enforced} == primary_keys


def test_the_warehouse_carries_every_description_as_a_comment(docs, demo_warehouse):
    """persist_docs (macros/persist_docs.sql) writes each model's and column's description into DuckDB, where
    analysts read them (`duckdb_tables()`, `duckdb_columns()`): tables and views, with contracts and without."""
    manifest, _ = docs
    models = [n for n in manifest["nodes"].values() if n["resource_type"] == "model"]
    relations = {(schema, name): comment for schema, name, comment in demo_warehouse.rows(
        "select schema_name, table_name, comment from duckdb_tables() "
        "union all select schema_name, view_name, comment from duckdb_views() where not internal")}
    columns = {(schema, table, column): comment for schema, table, column, comment in demo_warehouse.rows(
        "select schema_name, table_name, column_name, comment from duckdb_columns()")}
    assert {n["config"]["materialized"] for n in models} >= {"table", "view", "incremental"}
    assert any(not n["config"]["contract"]["enforced"] for n in models)
    wrong = []
    for node in models:
        where = (node["schema"], node["alias"])
        if relations.get(where) != node["description"]:
            wrong.append(f"{node['name']}: {relations.get(where)!r}")
        for name, column in node["columns"].items():
            if columns.get((*where, name)) != column["description"]:
                wrong.append(f"{node['name']}.{name}: {columns.get((*where, name))!r}")
    assert wrong == []


def test_no_view_carries_a_value_of_the_build_that_compiled_it(docs, demo_copy, tmp_path):
    """A build of what new data touches leaves the views as they are (evalhouse/build.py, BuildPlan.exclude), which
    is right only if a view compiled later is the same SQL: compiled again now, every view's code is unchanged."""
    manifest, _ = docs
    views = {uid: node["compiled_code"] for uid, node in manifest["nodes"].items()
             if node["resource_type"] == "model" and node["config"]["materialized"] == "view"}
    assert len(views) >= 10
    result = run_dbt(demo_copy, ("compile", "--select", "config.materialized:view"),
                     target_path=tmp_path / "target", quiet=True, write_json=True)
    assert result.ok, result.failures
    again = json.loads((tmp_path / "target" / "manifest.json").read_text())["nodes"]
    assert [uid for uid, code in views.items() if again[uid]["compiled_code"] != code] == []
