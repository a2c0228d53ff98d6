"""evalhouse/build.py's run_dbt holds the warehouse file open for a run on the profile's default target (keep_open:
false), so that dbt does not reopen and checkpoint it for every node, and leaves nothing open once dbt returns."""

from __future__ import annotations

import duckdb
import pytest

from evalhouse import build
from evalhouse.build import _hold_for_the_run, run_dbt
from tests.processes import duckdb_held_open


def test_a_run_on_the_default_target_holds_the_file_and_nothing_else_is_held(tmp_path):
    """Held: build, run, seed and test on the default target. Not: the `build` target (which keeps its own open),
    `docs` (read-only), a command that writes nothing, or a file another process holds (dbt meets the lock)."""
    db = tmp_path / "w.duckdb"
    for command in (("build",), ("run", "--select", "x"), ("seed",), ("test",)):
        held = _hold_for_the_run(db, command, None)
        assert held is not None, command
        held.close()
    assert _hold_for_the_run(db, ("build",), "build") is None
    assert _hold_for_the_run(db, ("docs", "generate"), "docs") is None
    assert _hold_for_the_run(db, ("parse",), None) is None
    assert _hold_for_the_run(db, (), None) is None
    with duckdb_held_open(db):
        assert _hold_for_the_run(db, ("build",), None) is None


def test_run_dbt_closes_the_connection_it_held_once_dbt_returns(tmp_path, monkeypatch):
    events: list[str] = []

    class Held:
        def close(self) -> None:
            events.append("closed")

    def hold(db_path, command, target) -> Held:
        events.append(f"held for {list(command)} on {target}")
        return Held()

    monkeypatch.setattr(build, "_hold_for_the_run", hold)
    run_dbt(tmp_path / "w.duckdb", ("--version",))
    assert events == ["held for ['--version'] on None", "closed"]


@pytest.mark.slow
def test_after_an_in_process_run_another_process_can_open_the_file_and_finds_what_dbt_wrote(tmp_path):
    db = tmp_path / "w.duckdb"
    assert run_dbt(db, ("seed",), quiet=True).ok
    with duckdb_held_open(db) as holder:
        assert holder.poll() is None
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("select count(*) from staging.hazard_categories").fetchone()[0] == 12
