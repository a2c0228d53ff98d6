"""Atomic publishing: the published warehouse changes only when a build passes, in one rename, and a reader
holding the old file keeps reading it whole."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import duckdb
import pytest

from evalhouse.cli import main
from evalhouse.operations import build, ingest
from evalhouse.publish import working_copy
from evalhouse.settings import Settings
from tests.conftest import Warehouse, instance_record, write_lines

pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def _small_builds(monkeypatch, tmp_path):
    """Publishing does not depend on which models are built: build only what fct_trials needs (seconds, not a
    minute), through the real dbt and the real publish."""
    from evalhouse import operations
    from evalhouse.build import run_dbt

    monkeypatch.setattr(operations, "build_warehouse", lambda db: run_dbt(
        db, ("build", "--select", "+fct_trials", "--indirect-selection", "cautious"), target_path=tmp_path / "target",
        quiet=True))


def test_ingest_changes_nothing_readers_see_until_a_build_publishes_it(tmp_path):
    settings = Settings(db_path=tmp_path / "w.duckdb", landing=tmp_path / "landing")
    ingest(settings, [write_lines(tmp_path / "a.jsonl", [instance_record(sample_id=str(i)) for i in range(3)])])
    assert not settings.db_path.exists()
    assert build(settings).ok
    published = Warehouse(settings.db_path)
    assert published.scalar("select count(*) from marts.fct_trials") == 3

    ingest(settings, [write_lines(tmp_path / "b.jsonl", [instance_record(sample_id="late")])])
    assert published.scalar("select count(*) from marts.fct_trials") == 3
    assert Warehouse(working_copy(settings.db_path)).scalar("select count(*) from raw.eee_instance") == 4
    assert build(settings).ok
    assert published.scalar("select count(*) from marts.fct_trials") == 4


def test_a_failed_build_leaves_the_published_warehouse_untouched(tmp_path, monkeypatch):
    settings = Settings(db_path=tmp_path / "w.duckdb", landing=tmp_path / "landing")
    ingest(settings, [write_lines(tmp_path / "a.jsonl", [instance_record()])])
    assert build(settings).ok
    before = settings.db_path.read_bytes()

    from evalhouse import operations
    from evalhouse.build import BuildResult

    monkeypatch.setattr(operations, "build_warehouse", lambda db: BuildResult(False, ("test.evalhouse.x: failed",), 1))
    ingest(settings, [write_lines(tmp_path / "b.jsonl", [instance_record(sample_id="b")])])
    result = build(settings)
    assert not result.ok and "failed" in result.failures[0]
    assert settings.db_path.read_bytes() == before


def test_a_reader_holding_the_old_file_keeps_reading_it_after_a_publish(tmp_path):
    settings = Settings(db_path=tmp_path / "w.duckdb", landing=tmp_path / "landing")
    ingest(settings, [write_lines(tmp_path / "a.jsonl", [instance_record()])])
    assert build(settings).ok
    reader = duckdb.connect(str(settings.db_path), read_only=True)
    try:
        ingest(settings, [write_lines(tmp_path / "b.jsonl", [instance_record(sample_id="b")])])
        assert build(settings).ok  # publishing while a reader holds the file: no lock error
        assert reader.execute("select count(*) from marts.fct_trials").fetchone()[0] == 1
    finally:
        reader.close()
    assert Warehouse(settings.db_path).scalar("select count(*) from marts.fct_trials") == 2


def test_the_real_build_runs_dbt_in_its_own_process_and_holds_no_lock_after(tmp_path, monkeypatch):
    import subprocess
    import sys

    monkeypatch.undo()  # the real build_warehouse: dbt in a process of its own, keep_open for the whole run
    settings = Settings(db_path=tmp_path / "w.duckdb", landing=tmp_path / "landing")
    ingest(settings, [write_lines(tmp_path / "a.jsonl", [instance_record(sample_id=str(i)) for i in range(5)])])
    assert build(settings).ok
    assert Warehouse(settings.db_path).scalar("select count(*) from marts.fct_trials") == 5
    for path in (settings.db_path, working_copy(settings.db_path)):
        other = subprocess.run([sys.executable, "-c", f"import duckdb; duckdb.connect({str(path)!r}, read_only=True)"],
                               capture_output=True, text=True)
        assert other.returncode == 0, other.stderr


def _children(pid: int) -> list[int]:
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as children:
            found += [int(child) for child in children.read().split()]
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"  # a zombie holds no file
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc and relies on PR_SET_PDEATHSIG")
def test_a_killed_build_leaves_no_dbt_process_holding_the_working_copy(tmp_path):
    """SIGKILL to `evalhouse build` takes its dbt process with it: the next writer opens the working copy at once
    (make crashtest found a dbt process left running, the next ingest meeting DuckDB's lock)."""
    db = tmp_path / "w.duckdb"
    assert main(["--db", str(db), "ingest", str(write_lines(tmp_path / "a.jsonl", [instance_record()]))]) == 0
    build_process = subprocess.Popen([sys.executable, "-m", "evalhouse.cli", "--db", str(db), "build"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    dbt_pids: list[int] = []
    while not dbt_pids and time.monotonic() < deadline and build_process.poll() is None:
        dbt_pids = _children(build_process.pid)
        time.sleep(0.05)
    assert dbt_pids, "the build never started its dbt process"
    time.sleep(1.0)  # dbt is under way: parsing, or holding the file
    build_process.send_signal(signal.SIGKILL)
    build_process.wait()
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in dbt_pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in dbt_pids), "the dbt process outlived the killed build"
    duckdb.connect(str(working_copy(db))).close()  # no lock left behind
    assert main(["--db", str(db), "ingest", str(write_lines(tmp_path / "b.jsonl", [instance_record(sample_id="2")]))]) == 0
