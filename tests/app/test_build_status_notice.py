"""The notice above every page when its figures are not the latest: records ingested and not built yet, or a last
build that failed; nothing when all is published or when that is unknown (no build status, or one unreadable)."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from evalhouse.build_status import (
    record_build, record_ingest, record_ingest_end, record_ingest_start, record_start, status_path,
)
from evalhouse.lock import writer_lock
from evalhouse.publish import working_copy
from ingest.load import RawStore
from tests.app.conftest import NOW, PAGES, run_page

pytestmark = pytest.mark.slow

FAILED = ("test.evalhouse.unique_fct_trials_trial_id: Got 2 results, configured to fail if != 0",
          "model.evalhouse.fct_pass_at_k: Constraint Error: Duplicate key \"m1\" violates primary key constraint")


@pytest.fixture
def warehouse(tmp_path):
    """A warehouse file with its raw tables (pages say how to build; the notice does not depend on the marts), and
    its working copy, where the records the build status calls unpublished are (only its existence is looked at)."""
    db_path = tmp_path / "w.duckdb"
    RawStore(db_path).close()
    working_copy(db_path).touch()
    return db_path


@contextmanager
def _writer_running(warehouse, command: str) -> Iterator[int]:
    """The pid of a process standing in for a running `evalhouse <command>`, the writer lock held as it holds it.
    On leaving, the lock is released and the process ends without recording an end, as a killed one does."""
    process = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        with writer_lock(warehouse, command):
            yield process.pid
    finally:
        process.communicate(b"")


def _started_by(warehouse, pid: int, entry: str) -> None:
    """The record says a build (entry "running") or an ingest (entry "ingest") started in process `pid`."""
    data = json.loads(status_path(warehouse).read_text())
    data[entry]["pid"] = pid
    status_path(warehouse).write_text(json.dumps(data))


def _notices(at) -> list[str]:
    return [w.value for w in at.warning if "these figures" in w.value]


@pytest.mark.parametrize("page", PAGES)
def test_every_page_says_the_last_build_failed_and_what_it_said(page, warehouse, app_env):
    record_build(warehouse, passed=True, at=NOW - dt.timedelta(days=1))
    record_ingest(warehouse, [("/data/run.jsonl", 12_400, 0)], at=NOW - dt.timedelta(hours=3))
    record_build(warehouse, passed=False, failures=FAILED, at=NOW - dt.timedelta(hours=2))
    app_env(warehouse)
    at = run_page(page)
    assert not at.exception
    assert _notices(at) == [
        "The last build, at Mon 23 Nov 2026 05:00 UTC (2 h ago), failed (1 test, 1 model: "
        "`unique_fct_trials_trial_id`, `fct_pass_at_k`): these figures are from the build of Sun 22 Nov 2026 07:00 "
        "UTC. 1 file (12,400 records) ingested since Mon 23 Nov 2026 04:00 UTC (3 h ago) is not in them. To see "
        "why: `evalhouse build` prints each failure."]
    assert at.expander[0].label == "What the last build said"
    assert at.code[0].value == "\n".join(FAILED)


def test_records_ingested_and_not_built_are_noted(warehouse, app_env):
    record_build(warehouse, passed=True, at=NOW - dt.timedelta(days=1))
    record_ingest(warehouse, [("/data/a.jsonl", 12_000, 0), ("/data/b.jsonl", 400, 0)], at=NOW - dt.timedelta(hours=2))
    record_ingest(warehouse, [("/data/c.jsonl", 0, 5)], at=NOW - dt.timedelta(hours=2))
    app_env(warehouse)
    at = run_page("overview")
    assert _notices(at) == [
        "3 files (12,400 records, 5 lines quarantined) ingested at Mon 23 Nov 2026 05:00 UTC (2 h ago) are not in "
        "these figures yet: run `evalhouse build` to publish them."]


@pytest.mark.parametrize("state", ["all published", "no build status", "an unreadable build status"])
def test_nothing_is_noted_when_all_is_published_or_it_is_unknown(state, warehouse, app_env):
    """The record is read again when it changes (cached by its stamp), so the notice goes as soon as it is stale."""
    record_ingest(warehouse, [("/data/a.jsonl", 10, 0)], at=NOW - dt.timedelta(hours=2))
    app_env(warehouse)
    at = run_page("overview")
    assert _notices(at)
    if state == "all published":
        record_build(warehouse, passed=True, at=NOW - dt.timedelta(hours=1))
    elif state == "no build status":
        status_path(warehouse).unlink()
    else:
        status_path(warehouse).write_text('{"version": 1, "unpublished": {"files": ')
    at.run()
    assert not at.exception
    assert _notices(at) == []


def test_a_build_that_did_not_finish_is_noted_until_a_build_ends(warehouse, app_env):
    """Its process gone without an end recorded (killed): the record does not change, the notice does."""
    record_build(warehouse, passed=True, at=NOW - dt.timedelta(days=1))
    record_ingest(warehouse, [("/data/run.jsonl", 40, 0)], at=NOW - dt.timedelta(hours=3))
    app_env(warehouse)
    with _writer_running(warehouse, "build") as pid:
        record_start(warehouse, "evalhouse build", at=NOW - dt.timedelta(hours=2))
        _started_by(warehouse, pid, "running")
        at = run_page("overview")
        assert _notices(at) == [
            "1 file (40 records) ingested at Mon 23 Nov 2026 04:00 UTC (3 h ago) is not in these figures yet: a "
            "build started at Mon 23 Nov 2026 05:00 UTC (2 h ago) is under way."]
    at.run()
    assert _notices(at) == [
        "The last build, started at Mon 23 Nov 2026 05:00 UTC (2 h ago) by `evalhouse build`, did not finish (its "
        "process ended without recording an end: killed, or the machine stopped): these figures are from the build "
        "of Sun 22 Nov 2026 07:00 UTC. 1 file (40 records) ingested since Mon 23 Nov 2026 04:00 UTC (3 h ago) is not "
        "in them. Run `evalhouse build` again."]
    record_build(warehouse, passed=True, at=NOW - dt.timedelta(hours=1))
    at.run()
    assert _notices(at) == []


def test_an_ingest_that_did_not_finish_is_noted_until_a_build_publishes_what_it_loaded(warehouse, app_env):
    """Under way, it is said to be; its process gone without an end recorded (killed): the record does not change,
    the notice does."""
    record_build(warehouse, passed=True, at=NOW - dt.timedelta(days=1))
    app_env(warehouse)
    with _writer_running(warehouse, "ingest") as pid:
        record_ingest_start(warehouse, "evalhouse ingest /data", at=NOW - dt.timedelta(hours=2))
        _started_by(warehouse, pid, "ingest")
        at = run_page("overview")
        assert _notices(at) == []  # nothing loaded yet: the figures are the latest
        record_ingest(warehouse, [("/data/run.jsonl", 40, 0)], at=NOW - dt.timedelta(hours=1))
        at.run()
        assert _notices(at) == [
            "1 file (40 records) ingested at Mon 23 Nov 2026 06:00 UTC (1 h ago) is not in these figures yet: an "
            "ingest started at Mon 23 Nov 2026 05:00 UTC (2 h ago) is under way; run `evalhouse build` once it "
            "ends to publish it."]
    at.run()
    assert _notices(at) == [
        "An ingest started at Mon 23 Nov 2026 05:00 UTC (2 h ago) by `evalhouse ingest /data` did not finish (it "
        "stopped part way without recording an end: it failed with an error it reported, or it was killed or "
        "interrupted, or the machine stopped). What it loaded before it "
        "stopped is in the working copy, not published; in all, 1 file (40 records) ingested at Mon 23 Nov 2026 "
        "06:00 UTC (1 h ago) is not in these figures. `evalhouse build` publishes it; running `evalhouse ingest "
        "/data` again loads what it had not."]
    record_build(warehouse, passed=True, at=NOW - dt.timedelta(minutes=30))
    at.run()
    assert _notices(at) == []


def test_an_ingest_that_ended_is_no_longer_noted(warehouse, app_env):
    record_build(warehouse, passed=True, at=NOW - dt.timedelta(days=1))
    record_ingest_start(warehouse, "evalhouse ingest /data", at=NOW - dt.timedelta(hours=2))
    record_ingest(warehouse, [("/data/run.jsonl", 40, 0)], at=NOW - dt.timedelta(hours=1))
    record_ingest_end(warehouse)  # this process's, as `evalhouse ingest` ends
    app_env(warehouse)
    assert _notices(run_page("overview")) == [
        "1 file (40 records) ingested at Mon 23 Nov 2026 06:00 UTC (1 h ago) is not in these figures yet: run "
        "`evalhouse build` to publish them."]


def test_records_gone_with_a_deleted_working_copy_are_noted_as_gone(warehouse, app_env):
    record_build(warehouse, passed=True, at=NOW - dt.timedelta(days=1))
    record_ingest(warehouse, [("/data/a.jsonl", 12_000, 0), ("/data/b.jsonl", 400, 0)], at=NOW - dt.timedelta(hours=2))
    app_env(warehouse)
    at = run_page("overview")
    assert _notices(at)[0].startswith("2 files (12,400 records) ingested at ")
    working_copy(warehouse).unlink()  # by hand: the record does not change, the notice does
    at.run()
    assert _notices(at) == [
        "The working copy was deleted with 2 files (12,400 records) ingested at Mon 23 Nov 2026 05:00 UTC (2 h ago) "
        "that no build had published: they are not in these figures, and `evalhouse build` cannot bring them back. "
        "Ingest them again to load them: /data/b.jsonl, /data/a.jsonl."]
