"""`evalhouse report` and the report `evalhouse demo` writes."""

from __future__ import annotations

import argparse

import pytest

from evalhouse.cli import main
from evalhouse.report import cli as report_cli
from evalhouse.report import write_weekly_report
from tests.report.conftest import DURING_LAST_WEEK, GENERATED_AT

pytestmark = pytest.mark.slow


def test_report_command_writes_the_file_and_shows_its_own_command(demo_warehouse, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("EVALHOUSE_DB", str(demo_warehouse.path))
    monkeypatch.chdir(tmp_path)
    assert main(["report", "--week", "2026-W47", "--out", "report.html"]) == 0
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "<code>evalhouse report --week 2026-W47 --out report.html</code>" in html
    assert "wrote report.html" in capsys.readouterr().out


def test_report_command_writes_markdown_to_stdout(demo_warehouse, capsys):
    assert main(["--db", str(demo_warehouse.path), "report", "--week", "2026-W45", "--format", "md"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Weekly quality report: 2026-W45")
    assert f"--db {demo_warehouse.path} report --week 2026-W45 --format md" in out


def test_report_command_rejects_a_malformed_week(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["report", "--week", "2026-47"])
    assert exit_info.value.code == 2
    assert "write it as YYYY-Www" in capsys.readouterr().err


@pytest.mark.parametrize("week", ["9999-W52", "0001-W01"])
def test_report_command_rejects_a_week_outside_the_years_it_covers_without_a_traceback(week, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["report", "--week", week])
    assert exit_info.value.code == 2  # was an OverflowError traceback for 9999-W52, a "1-W01" report for 0001-W01
    assert "outside the years the report covers" in capsys.readouterr().err


def test_report_command_without_a_warehouse_says_what_to_do(tmp_path, capsys):
    assert main(["--db", str(tmp_path / "none.duckdb"), "report"]) == 2  # was 1, the code of a failed build
    assert "run `evalhouse build`" in capsys.readouterr().err


def test_report_command_defaults_to_the_latest_complete_week(demo_warehouse, capsys):
    parser = argparse.ArgumentParser()
    report_cli.add_arguments(parser)
    assert report_cli.run(parser.parse_args(["--format", "md"]), demo_warehouse.path, now=DURING_LAST_WEEK) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Weekly quality report: 2026-W46\n") and "report --week 2026-W46 --format md" in out


def test_demo_writes_the_latest_complete_weeks_report(demo_warehouse, tmp_path):
    path = write_weekly_report(demo_warehouse.path, tmp_path / "reports", db="warehouse.duckdb",
                               relative_to=tmp_path, now=GENERATED_AT)
    assert path == tmp_path / "reports" / "weekly_2026-W47.html"
    html = path.read_text(encoding="utf-8")
    assert "evalhouse --db warehouse.duckdb report --week 2026-W47 --out reports/weekly_2026-W47.html" in html
    assert "(in progress)" not in html and "is not over" not in html
    # Run an hour into the demo's last day, that week is under way: the report is of the week before.
    during = write_weekly_report(demo_warehouse.path, tmp_path / "reports", now=DURING_LAST_WEEK)
    assert during == tmp_path / "reports" / "weekly_2026-W46.html"


def test_a_report_whose_writing_fails_half_way_leaves_the_file_as_it_was(demo_warehouse, tmp_path):
    """A full disk, as a file size limit: the write fails after the first bytes. The report named by --out keeps
    what it held, nothing partial stays beside it, and the exit code says the run broke (4), not the data."""
    import os
    import resource
    import signal
    import subprocess
    import sys

    from evalhouse.settings import PROJECT_ROOT

    limit = 16_000  # bytes: far below the report's size, above the traceback's
    out = tmp_path / "reports" / "weekly.html"
    out.parent.mkdir()
    out.write_text("last week's report")

    def full_disk():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write beyond the limit fails (EFBIG) instead of killing
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    run = subprocess.run(
        [sys.executable, "-m", "evalhouse.cli", "--db", str(demo_warehouse.path), "report", "--week", "2026-W47",
         "--out", str(out)], cwd=PROJECT_ROOT, capture_output=True, text=True, preexec_fn=full_disk,
        env={**os.environ, "TMPDIR": str(tmp_path)}, timeout=600)
    assert out.read_text() == "last week's report", run.stderr  # was the report's first 16,000 bytes
    assert [p.name for p in out.parent.iterdir()] == ["weekly.html"]
    assert run.returncode == 4, run.stderr  # was 1, with a traceback
    (line,) = run.stderr.splitlines()
    assert line.startswith(f"evalhouse: report failed: File too large: {out}. ")
