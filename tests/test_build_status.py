"""The build status beside the warehouse: what ingests loaded that no build has published, and a last build that
failed, in one line readers can show; unknown (no record, or one that cannot be read) says nothing. The end-to-end
tests run the real ingest, dbt build and publish."""

from __future__ import annotations

import datetime as dt
import json
import os

import duckdb
import pytest

from evalhouse import build_status
from evalhouse.build_status import (
    read_status, record_build, record_ingest, stale_notice, start_rebuild, status_path,
)
from evalhouse.operations import build, ingest
from evalhouse.publish import working_copy
from evalhouse.settings import Settings
from tests.conftest import instance_record, write_lines

T0 = dt.datetime(2026, 11, 23, 9, 10, tzinfo=dt.timezone.utc)
FAILURES = (
    "test.evalhouse.unique_fct_trials_trial_id.f5fb5e2d92: Got 2 results, configured to fail if != 0",
    "model.evalhouse.fct_pass_at_k: Constraint Error: Duplicate key",
    "test.evalhouse.not_null_fct_trials_model_id: Got 1 result, configured to fail if != 0",
    "test.evalhouse.accepted_values_fct_trials_x: Got 1 result, configured to fail if != 0",
)


def _at(minutes: int) -> dt.datetime:
    return T0 + dt.timedelta(minutes=minutes)


def test_no_record_is_unknown_and_says_nothing(tmp_path):
    db = tmp_path / "w.duckdb"
    assert read_status(db) is None
    assert stale_notice(read_status(db)) is None


@pytest.mark.parametrize("text", ["", "{not json", "[1, 2]", '{"version": 99, "unpublished": {}}',
                                  '{"version": 1, "last_build": {"passed": true}}'])
def test_an_unreadable_record_is_unknown_and_says_nothing(tmp_path, text):
    db = tmp_path / "w.duckdb"
    status_path(db).write_text(text)
    assert read_status(db) is None
    record_ingest(db, [("/data/a.jsonl", 5, 0)], at=T0)  # a writer starts the record again
    assert read_status(db).unpublished.records == 5


def test_everything_published_says_nothing(tmp_path):
    db = tmp_path / "w.duckdb"
    record_ingest(db, [("/data/a.jsonl", 5, 0)], at=T0)
    record_build(db, passed=True, at=_at(5))
    status = read_status(db)
    assert status.up_to_date and status.published_at == _at(5) and status.unpublished is None
    assert stale_notice(status, now=_at(60)) is None


def test_records_ingested_and_not_built_are_counted_per_file_across_ingests(tmp_path):
    db = tmp_path / "w.duckdb"
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
    db = tmp_path / "w.duckdb"
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
    db = tmp_path / "w.duckdb"
    db.write_bytes(b"")
    stamp = T0.timestamp()
    os.utime(db, (stamp, stamp))  # a warehouse published before the record was kept: its file's time stands in
    record_build(db, passed=False, failures=("the dbt process ended without a result (exit -9)",), at=_at(60))
    notice = stale_notice(read_status(db), now=_at(90))
    assert notice.startswith("The last build, at Mon 23 Nov 2026 10:10 UTC (30 min ago), failed (the dbt process "
                             "ended without a result (exit -9)): these figures are from the build of Mon 23 Nov "
                             "2026 09:10 UTC.")


def test_a_rebuild_not_built_yet_is_told_apart_from_new_records(tmp_path):
    db = tmp_path / "w.duckdb"
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
    db = tmp_path / "w.duckdb"
    record_ingest(db, [("/data/a.jsonl", 1, 0)], at=T0)
    record_build(db, passed=False, failures=FAILURES, at=_at(1))
    assert [p.name for p in tmp_path.iterdir()] == ["w.duckdb.status.json"]
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
def small_builds(monkeypatch, tmp_path):
    """Build only what fct_trials needs (seconds, not a minute), through the real dbt and the real publish."""
    from evalhouse import operations
    from evalhouse.build import run_dbt

    monkeypatch.setattr(operations, "build_warehouse", lambda db: run_dbt(
        db, ("build", "--select", "+fct_trials", "--indirect-selection", "cautious"), target_path=tmp_path / "target",
        quiet=True))


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
