"""The line at the top of the weekly report when its figures are not the latest (records ingested and not built
yet, or a last build that failed), and the note `evalhouse report` prints with it; nothing when all is published."""

from __future__ import annotations

import datetime as dt
import json
import shutil
import subprocess
import sys

import pytest

from evalhouse.build_status import record_build, record_ingest, record_ingest_start, status_path
from evalhouse.cli import main
from evalhouse.publish import working_copy
from evalhouse.report import ReportRequest, build_report, render
from tests.report.conftest import GENERATED_AT

pytestmark = pytest.mark.slow

FAILED_LINE = (
    "The last build, at Mon 23 Nov 2026 05:00 UTC, failed (1 test: `unique_fct_trials_trial_id`): these figures are "
    "from the build of Sun 22 Nov 2026 07:00 UTC. 1 file (40 records) ingested since Mon 23 Nov 2026 04:00 UTC is "
    "not in them. To see why: `evalhouse build` prints each failure.")


@pytest.fixture
def warehouse(empty_warehouse, tmp_path):
    """A copy of the session's empty warehouse (every mart, no data), with a build status of its own, and a working
    copy (empty: only its existence is looked at), where the records the status calls unpublished are."""
    copy = tmp_path / "w.duckdb"
    shutil.copy2(empty_warehouse.path, copy)
    working_copy(copy).touch()
    return copy


def _failed_build(db_path) -> None:
    record_build(db_path, passed=True, at=GENERATED_AT - dt.timedelta(days=1))
    record_ingest(db_path, [("/data/run.jsonl", 40, 0)], at=GENERATED_AT - dt.timedelta(hours=3))
    record_build(db_path, passed=False, at=GENERATED_AT - dt.timedelta(hours=2),
                 failures=("test.evalhouse.unique_fct_trials_trial_id: Got 2 results, configured to fail if != 0",))


def test_the_report_says_at_its_top_that_the_last_build_failed(warehouse):
    _failed_build(warehouse)
    report = build_report(ReportRequest(warehouse, week=dt.date(2026, 11, 16), generated_at=GENERATED_AT))
    assert report.stale == FAILED_LINE
    html = render(report, "html")
    assert html.index('<p class="stale" role="alert">The last build, at Mon 23 Nov 2026 05:00 UTC, failed') \
        < html.index('<dl class="facts">')
    markdown = render(report, "md").splitlines()
    assert markdown[4].startswith("> **Not the latest figures:** The last build, at Mon 23 Nov 2026 05:00 UTC, failed")


def test_the_report_says_what_was_ingested_and_not_built_and_nothing_once_built(warehouse):
    record_build(warehouse, passed=True, at=GENERATED_AT - dt.timedelta(days=1))
    record_ingest(warehouse, [("/data/a.jsonl", 1_200, 0), ("/data/b.jsonl", 30, 0)],
                  at=GENERATED_AT - dt.timedelta(hours=3))
    request = ReportRequest(warehouse, week=dt.date(2026, 11, 16), generated_at=GENERATED_AT)
    assert build_report(request).stale == (
        "2 files (1,230 records) ingested at Mon 23 Nov 2026 04:00 UTC are not in these figures yet: run "
        "`evalhouse build` to publish them.")
    record_build(warehouse, passed=True, at=GENERATED_AT - dt.timedelta(hours=1))
    report = build_report(request)
    assert report.stale == ""
    assert 'class="stale"' not in render(report, "html") and "Not the latest" not in render(report, "md")


def test_the_report_command_prints_the_line_for_whoever_sends_the_report(warehouse, tmp_path, capsys):
    _failed_build(warehouse)
    assert main(["--db", str(warehouse), "report", "--week", "2026-W47", "--out", str(tmp_path / "r.html")]) == 0
    assert capsys.readouterr().err == f"evalhouse: note: {FAILED_LINE}\n"


def test_the_report_says_an_ingest_did_not_finish_and_what_to_run(warehouse):
    record_build(warehouse, passed=True, at=GENERATED_AT - dt.timedelta(days=1))
    record_ingest_start(warehouse, "evalhouse ingest /data", at=GENERATED_AT - dt.timedelta(hours=3))
    record_ingest(warehouse, [("/data/run.jsonl", 40, 0)], at=GENERATED_AT - dt.timedelta(hours=3))
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    data = json.loads(status_path(warehouse).read_text())
    data["ingest"]["pid"] = ended.pid  # killed: its process gone without an end recorded
    status_path(warehouse).write_text(json.dumps(data))
    report = build_report(ReportRequest(warehouse, week=dt.date(2026, 11, 16), generated_at=GENERATED_AT))
    assert report.stale == (
        "An ingest started at Mon 23 Nov 2026 04:00 UTC by `evalhouse ingest /data` did not finish (it stopped "
        "part way without recording an end: it failed with an error it reported, or it was killed or interrupted, "
        "or the machine stopped). What it loaded before it stopped "
        "is in the working copy, not published; in all, 1 file (40 records) ingested at Mon 23 Nov 2026 04:00 UTC "
        "is not in these figures. `evalhouse build` publishes it; running `evalhouse ingest /data` again loads what "
        "it had not.")
    assert '<p class="stale" role="alert">An ingest started at ' in render(report, "html")
