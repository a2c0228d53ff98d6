"""A warehouse built once from the spec fixtures (tests/fixtures/specs/): the Annex B example, the acme worked
example, the rescoring cases, the draft standard's inline examples and the ADP reference files. Only the spec
marts and what they depend on are built (faster, and independent of the other areas' marts)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ingest.pipeline import ingest_paths
from tests.conftest import FIXTURES, Warehouse

SPECS = FIXTURES / "specs"
SPEC_INPUTS = (
    "inline_examples.json", "annex_b_spec.json", "annex_b_results.jsonl", "acme-eval-suite.yaml",
    "acme-full-agent.yaml", "invalid_eval_bad_threshold.yaml", "acme_worked_example_results.jsonl",
    "rescore_spec.json", "rescore_results.jsonl", "version_and_typo_specs.json", "version_and_typo_results.jsonl",
)
SPEC_SELECTION = ("--select", "+path:models/marts/specs", "+dim_models", "--indirect-selection", "cautious")


def build_spec_warehouse(root: Path, inputs: tuple[str, ...]) -> Warehouse:
    """These spec fixtures ingested into a warehouse under root, and the spec marts built."""
    from evalhouse.build import run_dbt

    db_path = root / "specs.duckdb"
    ingest_paths([str(SPECS / name) for name in inputs], db_path)
    result = run_dbt(db_path, ("build", *SPEC_SELECTION), quiet=True)
    assert result.ok, "dbt build failed:\n" + "\n".join(result.failures)
    return Warehouse(db_path)


@pytest.fixture(scope="session")
def spec_warehouse(tmp_path_factory) -> Warehouse:
    """The spec fixtures, ingested and built once per session. Read it; never write to it."""
    return build_spec_warehouse(tmp_path_factory.mktemp("spec_warehouse"), SPEC_INPUTS)
