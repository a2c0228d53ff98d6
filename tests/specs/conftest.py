"""A warehouse built once from the spec fixtures (tests/fixtures/specs/): the Annex B example, the acme worked
example, the rescoring cases, the draft standard's inline examples and the ADP reference files. Only the spec
marts and what they depend on are built (faster, and independent of the other areas' marts)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import CAUTIOUS, FIXTURES, Warehouse, built_once, built_warehouse_path

SPECS = FIXTURES / "specs"
SPEC_INPUTS = (
    "inline_examples.json", "annex_b_spec.json", "annex_b_results.jsonl", "acme-eval-suite.yaml",
    "acme-full-agent.yaml", "invalid_eval_bad_threshold.yaml", "acme_worked_example_results.jsonl",
    "rescore_spec.json", "rescore_results.jsonl", "version_and_typo_specs.json", "version_and_typo_results.jsonl",
)
SPEC_SELECTION = ("--select", "+path:models/marts/specs", "+dim_models", *CAUTIOUS)


def build_spec_warehouse(root: Path, inputs: tuple[str, ...]) -> Warehouse:
    """These spec fixtures ingested into a warehouse under root, and the spec marts built."""
    warehouse = Warehouse(built_warehouse_path(root))
    warehouse.ingest(*(SPECS / name for name in inputs))
    warehouse.build(*SPEC_SELECTION)
    return warehouse


# Hand-worked promotion decisions (tests/fixtures/specs/decide_*): tests/specs/test_spec_decisions.py and the specs
# page (tests/app/test_specs_page.py) read them.
DECIDE_INPUTS = ("decide_specs.json", "decide_suite.yaml", "decide_results.jsonl")


@pytest.fixture(scope="session")
def spec_warehouse(tmp_path_factory) -> Warehouse:
    """The spec fixtures, ingested and built once per test session (tests/conftest.py, built_once). Read it; never
    write to it."""
    root = built_once(tmp_path_factory, "spec_warehouse",
                      lambda directory: build_spec_warehouse(directory, SPEC_INPUTS))
    return Warehouse(built_warehouse_path(root))


def decide_warehouse_built_once(tmp_path_factory) -> Warehouse:
    """The specs that test decisions (DECIDE_INPUTS), built once per test session (built_once) for the two modules
    that read them (tests/specs/test_spec_decisions.py, tests/app/test_specs_page.py). Read it; never write to it."""
    root = built_once(tmp_path_factory, "decide_warehouse",
                      lambda directory: build_spec_warehouse(directory, DECIDE_INPUTS))
    return Warehouse(built_warehouse_path(root))
