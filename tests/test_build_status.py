"""The build status beside the warehouse: what ingests loaded that no build has published, and a last build that
failed, in one line readers can show; unknown (no record, or one that cannot be read) says nothing. The end-to-end
tests run the real ingest, dbt build and publish."""

from __future__ import annotations

import datetime as dt
import json
import os
import signal
import subprocess
import sys
import time

import duckdb
import pytest

from evalhouse import build_status
from evalhouse.build_status import (
    read_record, read_status, record_build, record_ingest, record_ingest_end, record_ingest_start, record_start,
    stale_notice, start_rebuild, status_path,
)
from evalhouse.lock import writer_lock
from evalhouse.operations import build, ingest
from evalhouse.publish import working_copy
from evalhouse.settings import PROJECT_ROOT, Settings
from tests.conftest import CAUTIOUS, instance_record, write_lines

T0 = dt.datetime(2026, 11, 23, 9, 10, tzinfo=dt.timezone.utc)
FAILURES = (
    "test.evalhouse.unique_fct_trials_trial_id.f5fb5e2d92: Got 2 results, configured to fail if != 0",
    "model.evalhouse.fct_pass_at_k: Constraint Error: Duplicate key",
    "test.evalhouse.not_null_fct_trials_model_id: Got 1 result, configured to fail if != 0",
    "test.evalhouse.accepted_values_fct_trials_x: Got 1 result, configured to fail if != 0",
)


def _at(minutes: int) -> dt.datetime:
    return T0 + dt.timedelta(minutes=minutes)


def _warehouse(tmp_path):
    """A published file's path, and its working copy (empty: only its existence is looked at), where the records
    the record calls unpublished are."""
    db = tmp_path / "w.duckdb"
    working_copy(db).touch()
    return db


def test_no_record_is_unknown_and_says_nothing(tmp_path):
    db = _warehouse(tmp_path)
    assert read_status(db) is None
    assert stale_notice(read_status(db)) is None


@pytest.mark.parametrize("text", ["", "{not json", "[1, 2]", '{"version": 99, "unpublished": {}}',
                                  '{"version": 1, "last_build": {"passed": true}}'])
def test_an_unreadable_record_is_unknown_and_says_nothing(tmp_path, text):
    db = _warehouse(tmp_path)
    status_path(db).write_text(text)
    assert read_status(db) is None
    record_ingest(db, [("/data/a.jsonl", 5, 0)], at=T0)  # a writer starts the record again
    assert read_status(db).unpublished.records == 5


def test_everything_published_says_nothing(tmp_path):
    db = _warehouse(tmp_path)
    record_ingest(db, [("/data/a.jsonl", 5, 0)], at=T0)
    record_build(db, passed=True, at=_at(5))
    status = read_status(db)
    assert status.up_to_date and status.published_at == _at(5) and status.unpublished is None
    assert stale_notice(status, now=_at(60)) is None


def test_records_ingested_and_not_built_are_counted_per_file_across_ingests(tmp_path):
    db = _warehouse(tmp_path)
    record_build(db, passed=True, at=T0)
    record_ingest(db, [("/data/a.jsonl", 10_000, 2), ("/data/b.jsonl", 0, 0)], at=_at(60))
    record_ingest(db, [("/data/a.jsonl", 400, 1), ("/data/c.jsonl", 2_000, 0)], at=_at(120))
    record_ingest(db, [("/data/d.jsonl", 0, 0)], at=_at(130))  # nothing loaded: nothing changes
    pending = read_status(db).unpublished
    assert pending.files == {"/data/a.jsonl": 10_400, "/data/c.jsonl": 2_000}
    assert (pending.records, pending.quarantined, pending.first_at, pending.last_at) == (12_400, 3, _at(60), _at(120))
    assert stale_notice(read_status(db), now=_at(240)) == (
        "2 files (12,400 records, 3 lines quarantined) ingested from Mon 23 Nov 2026 10:10 UTC to Mon 23 Nov 2026 "
        "11:10 UTC (2 h ago) are not in these figures yet: run `evalhouse build` to publish them.")


def test_a_failed_build_names_its_failing_nodes_the_build_readers_see_and_how_to_see_why(tmp_path):
    db = _warehouse(tmp_path)
    record_build(db, passed=True, at=T0)
    record_ingest(db, [("/data/a.jsonl", 3, 0)], at=_at(60))
    record_build(db, passed=False, failures=(*FAILURES, "dbt could not run: boom"), see_why="evalhouse build",
                 log="target/logs/dbt.log", at=_at(292))
    build = read_status(db).last_build
    assert build.failed == tuple(f.split(": ")[0] for f in FAILURES)  # the whole-build failure names no node
    assert build.messages[-1] == "dbt could not run: boom"
    notice = stale_notice(read_status(db))  # no clock: times alone, as the report keeps them
    assert notice == (
        "The last build, at Mon 23 Nov 2026 14:02 UTC, failed (3 tests, 1 model: `unique_fct_trials_trial_id`, "
        "`fct_pass_at_k`, `not_null_fct_trials_model_id` and 1 more): these figures are from the build of "
        "Mon 23 Nov 2026 09:10 UTC. 1 file (3 records) ingested since Mon 23 Nov 2026 10:10 UTC is not in them. "
        "To see why: `evalhouse build` prints each failure; dbt's log is target/logs/dbt.log.")
    record_build(db, passed=True, at=_at(300))
    assert stale_notice(read_status(db)) is None


def test_a_build_that_failed_before_any_node_ran_says_why_and_defaults_to_the_files_time(tmp_path):
    db = _warehouse(tmp_path)
    db.write_bytes(b"")
    stamp = T0.timestamp()
    os.utime(db, (stamp, stamp))  # a warehouse published before the record was kept: its file's time stands in
    record_build(db, passed=False, failures=("the dbt process ended without a result (exit -9)",), at=_at(60))
    notice = stale_notice(read_status(db), now=_at(90))
    assert notice.startswith("The last build, at Mon 23 Nov 2026 10:10 UTC (30 min ago), failed (the dbt process "
                             "ended without a result (exit -9)): these figures are from the build of Mon 23 Nov "
                             "2026 09:10 UTC.")


def test_a_rebuild_not_built_yet_is_told_apart_from_new_records(tmp_path):
    db = _warehouse(tmp_path)
    record_ingest(db, [("/data/old.jsonl", 7, 0)], at=T0)
    start_rebuild(db, at=_at(10))
    record_ingest(db, [("/data/a.jsonl", 5, 0), ("/data/b.jsonl", 5, 0)], at=_at(11))
    pending = read_status(db).unpublished
    assert pending.rebuild and set(pending.files) == {"/data/a.jsonl", "/data/b.jsonl"}
    assert "A rebuild from 2 files" in stale_notice(read_status(db))
    record_build(db, passed=False, failures=FAILURES[:1], at=_at(20))
    notice = stale_notice(read_status(db))
    assert "It was a rebuild from 2 files." in notice and "records" not in notice


def test_the_record_is_replaced_whole_and_leaves_no_temporary_file(tmp_path):
    db = _warehouse(tmp_path)
    record_ingest(db, [("/data/a.jsonl", 1, 0)], at=T0)
    record_build(db, passed=False, failures=FAILURES, at=_at(1))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.duckdb.status.json", "w.work.duckdb"]
    assert json.loads(status_path(db).read_text())["version"] == build_status.VERSION


def test_build_records_its_outcome_and_how_to_see_why_for_the_warehouse_it_built(tmp_path, monkeypatch):
    """Without dbt: a failed build names the --db it ran on (quoted for the shell), a passing one is published and
    clears what was pending."""
    from evalhouse import operations
    from evalhouse.build import BuildResult

    settings = Settings(db_path=tmp_path / "my warehouse" / "w.duckdb", landing=tmp_path / "landing")
    ingest(settings, [write_lines(tmp_path / "a.jsonl", [instance_record()])])
    monkeypatch.setattr(operations, "build_warehouse", lambda work: BuildResult(False, FAILURES[:1], ()))
    assert not build(settings).ok
    attempt = read_status(settings.db_path).last_build
    assert attempt.see_why == f"evalhouse --db '{settings.db_path}' build"
    assert attempt.log.endswith("dbt.log") and read_status(settings.db_path).unpublished.records == 1
    monkeypatch.setattr(operations, "build_warehouse", lambda work: BuildResult(True, (), ()))
    assert build(settings).ok and settings.db_path.exists()
    assert read_status(settings.db_path).up_to_date


# -- end to end: the real ingest, dbt build and publish -------------------------------------------------------------

@pytest.fixture
def small_builds(monkeypatch):
    """Build only what fct_trials needs (seconds, not a minute), through the real dbt and the real publish."""
    from evalhouse import operations
    from evalhouse.build import run_dbt

    monkeypatch.setattr(operations, "build_warehouse", lambda db: run_dbt(
        db, ("build", "--select", "+fct_trials", *CAUTIOUS), quiet=True))


@pytest.mark.slow
def test_an_ingest_without_a_build_and_a_failing_build_are_told_to_readers(tmp_path, small_builds):
    settings = Settings(db_path=tmp_path / "w.duckdb", landing=tmp_path / "landing")
    ingest(settings, [write_lines(tmp_path / "a.jsonl", [instance_record(sample_id=str(i)) for i in range(3)])])
    assert build(settings).ok
    assert stale_notice(read_status(settings.db_path)) is None

    # An ingest without a build: readers see the 3 trials, and are told of the 2 records not in them.
    ingest(settings, [write_lines(tmp_path / "b.jsonl", [instance_record(sample_id=f"b{i}") for i in range(2)])])
    with duckdb.connect(str(settings.db_path), read_only=True) as con:
        assert con.execute("select count(*) from marts.fct_trials").fetchone()[0] == 3
    notice = stale_notice(read_status(settings.db_path))
    assert notice.startswith("1 file (2 records) ingested at ") and "run `evalhouse build`" in notice

    # A build that fails: a new record duplicated behind the ingester's back fails its key's test.
    with duckdb.connect(str(working_copy(settings.db_path))) as con:
        con.execute("insert into raw.eee_instance select * from raw.eee_instance where source_path like '%b.jsonl' "
                    "limit 1")
    result = build(settings)
    assert not result.ok
    status = read_status(settings.db_path)
    assert not status.last_build.passed and status.last_build.failed
    assert all(node.split(".")[0] in ("model", "test") for node in status.last_build.failed)
    notice = stale_notice(status)
    assert "`unique_combination_stg_every_eval_ever__instances_record_id__batch_id`" in notice
    assert notice.startswith("The last build, at ") and "1 file (2 records) ingested since" in notice
    assert f"`evalhouse --db {settings.db_path} build` prints each failure" in notice
    assert status.published_at is not None and status.published_at < status.last_build.at


# -- a bounded record -------------------------------------------------------------------------------------------------

def test_a_ten_thousand_file_ingest_keeps_the_record_small_and_its_counts_whole(tmp_path):
    db = _warehouse(tmp_path)
    record_build(db, passed=True, at=T0)
    record_ingest(db, [(f"/data/run{i:05}.jsonl", 3, 0) for i in range(10_000)], at=_at(60))
    for minute in range(50):  # the API loads its landing file again at each post: one file, not fifty
        record_ingest(db, [("/landing/api/posted.jsonl", 1, 0)], at=_at(61 + minute))
    record_ingest(db, [("/data/run09999.jsonl", 2, 1)], at=_at(120))  # named still: counted once
    assert status_path(db).stat().st_size < 4_000  # every path named took 350 kB
    pending = read_status(db).unpublished
    assert (pending.n_files, pending.records, pending.quarantined) == (10_001, 30_052, 1)
    assert len(pending.files) == build_status.KEPT_FILES and list(pending.files)[-2:] == [
        "/landing/api/posted.jsonl", "/data/run09999.jsonl"]
    assert stale_notice(read_status(db)) == (
        "10,001 files (30,052 records, 1 line quarantined) ingested from Mon 23 Nov 2026 10:10 UTC to Mon 23 Nov "
        "2026 11:10 UTC are not in these figures yet: run `evalhouse build` to publish them.")


def test_a_version_1_record_naming_every_file_is_read_and_written_again_as_version_2(tmp_path):
    db = _warehouse(tmp_path)
    files = {f"/data/f{i:02}.jsonl": 10 for i in range(25)}
    status_path(db).write_text(json.dumps({
        "version": 1, "published_at": T0.isoformat(), "last_build": None,
        "unpublished": {"first_at": _at(1).isoformat(), "last_at": _at(2).isoformat(), "files": files,
                        "quarantined": 0, "rebuild": False}}))
    pending = read_status(db).unpublished
    assert (pending.n_files, pending.records, len(pending.files)) == (25, 250, build_status.KEPT_FILES)
    assert stale_notice(read_status(db)).startswith("25 files (250 records) ingested from ")
    record_ingest(db, [("/data/f00.jsonl", 5, 0)], at=_at(3))
    assert json.loads(status_path(db).read_text())["version"] == 2
    assert read_status(db).unpublished.records == 255


# -- a build that did not finish --------------------------------------------------------------------------------------

def _ended_pid() -> int:
    """The pid of a process that has ended (and been waited for)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _started_by(db, pid: int, entry: str = "running") -> None:
    """The record says a build (entry "running") or an ingest (entry "ingest") started in process `pid`."""
    data = json.loads(status_path(db).read_text())
    data[entry]["pid"] = pid
    status_path(db).write_text(json.dumps(data))


def test_a_build_whose_process_is_gone_without_an_end_did_not_finish_until_a_build_ends(tmp_path):
    db = _warehouse(tmp_path)
    record_build(db, passed=True, at=T0)
    record_ingest(db, [("/data/a.jsonl", 3, 0)], at=_at(60))
    record_start(db, "evalhouse --db w.duckdb build", at=_at(62))
    _started_by(db, _ended_pid())
    status = read_status(db)
    assert status.killed and not status.up_to_date
    assert stale_notice(status, now=_at(67)) == (
        "The last build, started at Mon 23 Nov 2026 10:12 UTC (5 min ago) by `evalhouse --db w.duckdb build`, did "
        "not finish (its process ended without recording an end: killed, or the machine stopped): these figures "
        "are from the build of Mon 23 Nov 2026 09:10 UTC. 1 file (3 records) ingested since Mon 23 Nov 2026 10:10 "
        "UTC (7 min ago) is not in them. Run `evalhouse --db w.duckdb build` again.")
    record_ingest(db, [("/data/b.jsonl", 2, 0)], at=_at(70))  # a writer keeps it: still not finished
    assert read_status(db).killed and "2 files (5 records)" in stale_notice(read_status(db))
    record_build(db, passed=False, failures=FAILURES[:1], at=_at(80))
    assert read_status(db).running is None and stale_notice(read_status(db)).startswith("The last build, at ")


def test_a_build_under_way_is_said_to_be_and_not_to_need_running(tmp_path):
    db = _warehouse(tmp_path)
    record_build(db, passed=True, at=T0)
    with writer_lock(db, "build"):  # as `evalhouse build` holds it for the whole build
        record_start(db, "evalhouse build", at=_at(1))
        assert stale_notice(read_status(db)) is None  # nothing new: the figures are the latest
        record_ingest(db, [("/data/a.jsonl", 3, 0)], at=_at(0))
        assert stale_notice(read_status(db), now=_at(2)) == (
            "1 file (3 records) ingested at Mon 23 Nov 2026 09:10 UTC (2 min ago) is not in these figures yet: a "
            "build started at Mon 23 Nov 2026 09:11 UTC (1 min ago) is under way.")
    # Its pid alive (this process) but the writer lock free: no build holds the warehouse, so that pid is no build.
    assert read_status(db).killed


def test_a_build_killed_after_it_replaced_the_published_file_reads_as_published(tmp_path):
    db = _warehouse(tmp_path)
    db.write_bytes(b"before")
    record_ingest(db, [("/data/a.jsonl", 3, 0)], at=_at(0))
    record_start(db, "evalhouse build", at=_at(1))
    _started_by(db, _ended_pid())
    replacement = tmp_path / "new"
    replacement.write_bytes(b"built")
    os.replace(replacement, db)  # the publish's rename, then the kill: no end recorded
    status = read_status(db)
    assert status.up_to_date and status.last_build.passed and stale_notice(status) is None


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="relies on PR_SET_PDEATHSIG, as builds do")
def test_a_build_killed_with_sigkill_is_told_to_readers_as_not_finished(tmp_path):
    settings = Settings(db_path=tmp_path / "w.duckdb", landing=tmp_path / "landing")
    ingest(settings, [write_lines(tmp_path / "a.jsonl", [instance_record()])])
    scratch = tmp_path / "tmp"  # the killed process cannot remove its scratch folder: keep it out of /tmp
    scratch.mkdir()
    process = subprocess.Popen([sys.executable, "-m", "evalhouse.cli", "--db", str(settings.db_path), "build"],
                               cwd=PROJECT_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env={**os.environ, "TMPDIR": str(scratch)})
    deadline = time.monotonic() + 120
    while read_record(settings.db_path).running is None and process.poll() is None:
        assert time.monotonic() < deadline, "the build never recorded its start"
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    status = read_status(settings.db_path)
    assert status.killed and status.running.pid == process.pid
    notice = stale_notice(status)
    assert notice.startswith("The last build, started at ") and "did not finish" in notice
    assert "1 file (1 record) ingested since" in notice
    assert notice.endswith(f"Run `evalhouse --db {settings.db_path} build` again.")


# -- an ingest that did not finish -------------------------------------------------------------------------------------

def test_an_ingest_whose_process_is_gone_did_not_finish_until_a_build_publishes_what_it_loaded(tmp_path):
    db = _warehouse(tmp_path)
    record_build(db, passed=True, at=T0)
    record_ingest_start(db, "evalhouse ingest /data", at=_at(60))
    record_ingest(db, [("/data/a.jsonl", 3, 0)], at=_at(61))  # as it records each file it loads
    record_ingest(db, [("/data/b.jsonl", 2, 1)], at=_at(62))
    _started_by(db, _ended_pid(), "ingest")
    status = read_status(db)
    assert status.ingest_killed and not status.up_to_date and json.loads(status_path(db).read_text())["version"] == 2
    assert stale_notice(status, now=_at(67)) == (
        "An ingest started at Mon 23 Nov 2026 10:10 UTC (7 min ago) by `evalhouse ingest /data` did not finish (it "
        "stopped part way without recording an end: it failed with an error it reported, or it was killed or "
        "interrupted, or the machine stopped). What it loaded before it "
        "stopped is in the working copy, not published; in all, 2 files (5 records, 1 line quarantined) ingested "
        "from Mon 23 Nov 2026 10:11 UTC to Mon 23 Nov 2026 10:12 UTC (5 min ago) are not in these figures. "
        "`evalhouse build` publishes them; running `evalhouse ingest /data` again loads what it had not.")
    # A build that fails keeps it (nothing was published), and says both.
    record_build(db, passed=False, failures=FAILURES[:1], at=_at(70))
    notice = stale_notice(read_status(db))
    assert notice.startswith("The last build, at ") and "2 files (5 records, 1 line quarantined) ingested" in notice
    assert notice.endswith("An ingest started at Mon 23 Nov 2026 10:10 UTC by `evalhouse ingest /data` did not "
                           "finish (it stopped part way without recording an end: it failed with an error it "
                           "reported, or it was killed or interrupted, or the machine stopped). What it loaded "
                           "before it stopped is in the working copy, not published; running `evalhouse ingest "
                           "/data` again loads what it had not.")
    record_build(db, passed=True, at=_at(80))  # publishes what it loaded
    assert read_status(db).ingest is None and stale_notice(read_status(db)) is None


def test_an_ingest_killed_before_it_recorded_a_file_is_told_without_counts(tmp_path):
    db = _warehouse(tmp_path)
    record_build(db, passed=True, at=T0)
    record_ingest_start(db, "evalhouse ingest /data/a.jsonl", at=_at(60))
    _started_by(db, _ended_pid(), "ingest")
    assert stale_notice(read_status(db)) == (
        "An ingest started at Mon 23 Nov 2026 10:10 UTC by `evalhouse ingest /data/a.jsonl` did not finish (it "
        "stopped part way without recording an end: it failed with an error it reported, or it was killed or "
        "interrupted, or the machine stopped). What it loaded before it "
        "stopped is in the working copy, not published. `evalhouse build` publishes it; running `evalhouse ingest "
        "/data/a.jsonl` again loads what it had not.")


def test_an_ingest_under_way_is_said_to_be_and_is_no_news_before_it_loads(tmp_path):
    db = _warehouse(tmp_path)
    record_build(db, passed=True, at=T0)
    with writer_lock(db, "ingest"):  # as `evalhouse ingest` holds it for the whole ingest
        record_ingest_start(db, "evalhouse ingest /data", at=_at(1))
        assert not read_status(db).ingest_killed and stale_notice(read_status(db)) is None
        record_ingest(db, [("/data/a.jsonl", 3, 0)], at=_at(2))
        assert stale_notice(read_status(db), now=_at(3)) == (
            "1 file (3 records) ingested at Mon 23 Nov 2026 09:12 UTC (1 min ago) is not in these figures yet: an "
            "ingest started at Mon 23 Nov 2026 09:11 UTC (2 min ago) is under way; run `evalhouse build` once it "
            "ends to publish it.")
        record_ingest_end(db)
    assert read_status(db).ingest is None
    assert stale_notice(read_status(db)).endswith("is not in these figures yet: run `evalhouse build` to publish them.")


def test_a_killed_build_is_still_told_after_an_ingest_and_a_killed_ingest_with_it(tmp_path):
    db = _warehouse(tmp_path)
    record_build(db, passed=True, at=T0)
    record_start(db, "evalhouse build", at=_at(1))
    _started_by(db, _ended_pid())
    record_ingest_start(db, "evalhouse ingest /data", at=_at(2))
    record_ingest(db, [("/data/a.jsonl", 3, 0)], at=_at(3))
    _started_by(db, _ended_pid(), "ingest")
    status = read_status(db)
    assert status.killed and status.ingest_killed
    notice = stale_notice(status)
    assert notice.startswith("The last build, started at Mon 23 Nov 2026 09:11 UTC by `evalhouse build`, did not "
                             "finish") and "Run `evalhouse build` again. An ingest started at " in notice
    assert notice.endswith("running `evalhouse ingest /data` again loads what it had not.")


def test_an_ingest_killed_with_its_working_copy_deleted_since_is_told_as_discarded(tmp_path):
    db = _warehouse(tmp_path)
    record_build(db, passed=True, at=T0)
    record_ingest_start(db, "evalhouse ingest /data", at=_at(60))
    record_ingest(db, [("/data/a.jsonl", 3, 0)], at=_at(61))
    _started_by(db, _ended_pid(), "ingest")
    working_copy(db).unlink()
    status = read_status(db)
    assert status.ingest is None and status.discarded.unpublished.records == 3
    assert "in the working copy, not published" not in stale_notice(status)


def test_a_new_ingest_after_one_that_did_not_finish_says_so_to_whoever_runs_it(tmp_path, monkeypatch, capsys):
    """Without dbt: each file is counted as it is loaded, so the ingest that did not finish is counted whole."""
    settings = Settings(db_path=tmp_path / "w.duckdb", landing=tmp_path / "landing")
    a = write_lines(tmp_path / "a.jsonl", [instance_record(sample_id=str(i)) for i in range(2)])
    ingest(settings, [a])
    assert read_status(settings.db_path).ingest is None  # ended: removed
    record_ingest_start(settings.db_path, f"evalhouse --db {settings.db_path} ingest {a}")  # then killed
    _started_by(settings.db_path, _ended_pid(), "ingest")
    capsys.readouterr()
    ingest(settings, [write_lines(tmp_path / "b.jsonl", [instance_record(sample_id="b")])])
    assert capsys.readouterr().err.startswith(
        f"evalhouse: note: An ingest started at {read_status(settings.db_path).unpublished.first_at:%a}")
    status = read_status(settings.db_path)
    assert status.ingest is None and (status.unpublished.n_files, status.unpublished.records) == (2, 3)


@pytest.mark.slow
def test_an_ingest_killed_with_sigkill_is_told_to_readers_with_what_it_loaded(tmp_path, monkeypatch):
    """A real `evalhouse ingest` of many small files, killed once the record counts a file it loaded: the notice
    says it did not finish, counts what it loaded, and how to load the rest and publish it all; a build that
    passes (without dbt here) then publishes it, and the notice goes."""
    from evalhouse import operations
    from evalhouse.build import BuildResult

    settings = Settings(db_path=tmp_path / "w.duckdb", landing=tmp_path / "landing")
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    for i in range(300):  # each its own transaction: far more than load between a file's record and the kill
        write_lines(inputs / f"run{i:03}.jsonl", [instance_record(sample_id=str(i))])
    process = subprocess.Popen([sys.executable, "-m", "evalhouse.cli", "--db", str(settings.db_path), "ingest",
                                str(inputs)], cwd=PROJECT_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while process.poll() is None:
        record = read_record(settings.db_path)
        if record is not None and record.unpublished is not None:
            break
        assert time.monotonic() < deadline, "the ingest never recorded a file it loaded"
        time.sleep(0.05)
    assert process.poll() is None, "the ingest ended before it could be killed"
    process.send_signal(signal.SIGKILL)
    process.wait()
    status = read_status(settings.db_path)
    assert status.ingest_killed and status.ingest.pid == process.pid
    with duckdb.connect(str(working_copy(settings.db_path)), read_only=True) as con:
        loaded = con.execute("select count(*) from raw.ingest_files where status = 'loaded'").fetchone()[0]
    assert 0 < loaded < 300
    # Each file is recorded once loaded; the kill can fall between a file's load and its record, not more.
    assert status.unpublished.n_files in (loaded - 1, loaded)
    command = f"evalhouse --db {settings.db_path} ingest {inputs}"
    notice = stale_notice(status)
    assert notice.startswith("An ingest started at ") and f"by `{command}` did not finish" in notice
    n, s = status.unpublished.n_files, "" if status.unpublished.n_files == 1 else "s"  # one record in each file
    assert f"What it loaded before it stopped is in the working copy, not published; in all, {n} file{s} ({n} " \
           f"record{s}) ingested " in notice
    assert notice.endswith(f"`evalhouse build` publishes {'them' if s else 'it'}; running `{command}` again loads "
                           "what it had not.")

    summary = ingest(settings, [inputs])  # the same ingest again: loads what it had not
    assert sum(f.accepted for f in summary.files) == 300 - loaded  # all but what it loaded
    with duckdb.connect(str(working_copy(settings.db_path)), read_only=True) as con:
        assert con.execute("select count(*) from raw.eee_instance").fetchone()[0] == 300
    assert not read_status(settings.db_path).ingest_killed
    monkeypatch.setattr(operations, "build_warehouse", lambda work: BuildResult(True, (), ()))
    assert build(settings).ok and stale_notice(read_status(settings.db_path)) is None


# -- a working copy deleted by hand -----------------------------------------------------------------------------------

def test_records_of_a_deleted_working_copy_are_said_to_be_gone_not_on_their_way(tmp_path):
    db = _warehouse(tmp_path)
    record_build(db, passed=True, at=T0)
    record_ingest(db, [("/data/a.jsonl", 10, 0), ("/data/b.jsonl", 5, 2)], at=_at(60))
    record_ingest(db, [(f"/data/c{i}.jsonl", 1, 0) for i in range(3)], at=_at(61))
    working_copy(db).unlink()
    status = read_status(db)
    assert status.unpublished is None and status.discarded.unpublished.records == 18
    assert stale_notice(status) == (
        "The working copy was deleted with 5 files (18 records, 2 lines quarantined) ingested from Mon 23 Nov 2026 "
        "10:10 UTC to Mon 23 Nov 2026 10:11 UTC that no build had published: they are not in these figures, and "
        "`evalhouse build` cannot bring them back. Ingest them again to load them: /data/c2.jsonl, /data/c1.jsonl, "
        "/data/c0.jsonl and 2 more files.")
    with writer_lock(db, "build"):  # a publish renames it away for a moment, under the writer lock: not deleted
        assert read_status(db).unpublished.records == 18


def test_ingest_and_build_after_the_working_copy_was_deleted_say_what_went_with_it(tmp_path, monkeypatch, capsys):
    """Without dbt: the writer that finds the working copy gone records what went with it and says so; a build
    that passes afterwards publishes what there is, and the record says nothing more."""
    from evalhouse import operations
    from evalhouse.build import BuildResult

    settings = Settings(db_path=tmp_path / "w.duckdb", landing=tmp_path / "landing")
    monkeypatch.setattr(operations, "build_warehouse", lambda work: BuildResult(True, (), ()))
    a = write_lines(tmp_path / "a.jsonl", [instance_record()])
    ingest(settings, [a])
    assert build(settings).ok
    ingest(settings, [write_lines(tmp_path / "b.jsonl", [instance_record(sample_id=str(i)) for i in range(2)])])
    working_copy(settings.db_path).unlink()
    capsys.readouterr()
    ingest(settings, [write_lines(tmp_path / "c.jsonl", [instance_record(sample_id="c")])])
    note = capsys.readouterr().err
    assert note.startswith(f"evalhouse: note: {working_copy(settings.db_path)} is gone. The working copy was deleted "
                           "(noticed at ")
    assert "with 1 file (2 records) ingested at " in note and note.rstrip().endswith(f"load it: {tmp_path}/b.jsonl.")
    status = read_status(settings.db_path)
    assert status.discarded.at is not None and list(status.unpublished.files) == [str(tmp_path / "c.jsonl")]
    notice = stale_notice(status)
    assert notice.startswith("The working copy was deleted (noticed at ") and "1 file (1 record) ingested at " in notice
    assert build(settings).ok and read_status(settings.db_path).up_to_date
