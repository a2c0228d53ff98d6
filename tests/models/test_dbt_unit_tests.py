"""Every dbt unit test of the project runs and passes here, once: the suite's other builds leave them out
(tests/conftest.py, UNIT_TESTS_OFF), since they check the models' logic on fixed inputs whatever a warehouse holds."""

from __future__ import annotations

import json

import pytest

from evalhouse.build import run_dbt
from ingest.load import RawStore
from tests.conftest import UNIT_TESTS_OFF

pytestmark = pytest.mark.slow


def test_every_dbt_unit_test_of_the_project_passes(tmp_path, monkeypatch):
    monkeypatch.delenv(UNIT_TESTS_OFF)
    db, target = tmp_path / "w.duckdb", tmp_path / "target"
    RawStore(db).close()  # the raw tables, empty: a unit test reads its inputs' columns from the built models

    result = run_dbt(db, target_path=target, quiet=True, write_json=True)  # manifest.json: what is declared

    assert result.ok, "dbt build failed:\n" + "\n".join(result.failures)
    declared = set(json.loads((target / "manifest.json").read_text())["unit_tests"])
    ran = {node for node in result.nodes if node.startswith("unit_test.")}
    assert len(declared) >= 20  # the project's unit tests were found (22 when this was written)
    assert ran == declared
