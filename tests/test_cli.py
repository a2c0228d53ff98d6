"""The `evalhouse` command: exit codes that mean something, a per-format summary, and a clear busy message."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from evalhouse.cli import main
from evalhouse.publish import working_copy
from evalhouse.lock import writer_lock
from tests.conftest import eval_form_record, instance_record, write_lines


def _run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_ingest_exits_0_when_the_run_completed_even_with_quarantined_lines(tmp_path, capsys):
    path = write_lines(tmp_path / "a.jsonl", [instance_record(), "{bad json", eval_form_record(), {"foo": 1}])
    code, out, _ = _run(capsys, "--db", str(tmp_path / "w.duckdb"), "ingest", str(path))
    assert code == 0
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()[2:] if line.strip()}
    assert "eee_instance" in rows and "eval_form" in rows
    # A line that did not parse is not filed under "unknown", the word of a record of no known format.
    assert rows["unparsed"][-2:] == ["1", "0"] and rows["unknown"][-2:] == ["1", "0"]
    assert "raw.quarantine" in out


def test_fail_on_reject_exits_1_when_a_line_was_quarantined(tmp_path, capsys):
    path = write_lines(tmp_path / "a.jsonl", [instance_record(), "{bad json"])
    code, _, _ = _run(capsys, "ingest", "--db", str(tmp_path / "w.duckdb"), "--fail-on-reject", str(path))
    assert code == 1


def test_fail_on_reject_exits_0_for_a_clean_run(tmp_path, capsys):
    path = write_lines(tmp_path / "a.jsonl", [instance_record()])
    code, _, _ = _run(capsys, "ingest", "--db", str(tmp_path / "w.duckdb"), "--fail-on-reject", str(path))
    assert code == 0


def test_a_path_that_names_nothing_exits_2_with_the_reason(tmp_path, capsys):
    code, _, err = _run(capsys, "--db", str(tmp_path / "w.duckdb"), "ingest", str(tmp_path / "nope.jsonl"))
    assert code == 2
    assert "nope.jsonl: no such file or folder" in err


def test_db_flag_works_before_and_after_the_subcommand_and_env_is_the_fallback(tmp_path, capsys, monkeypatch):
    path = write_lines(tmp_path / "a.jsonl", [instance_record()])
    monkeypatch.setenv("EVALHOUSE_DB", str(tmp_path / "env.duckdb"))
    _run(capsys, "--db", str(tmp_path / "before.duckdb"), "ingest", str(path))
    _run(capsys, "ingest", "--db", str(tmp_path / "after.duckdb"), str(path))
    _run(capsys, "ingest", str(path))
    # Ingest writes the working copy beside the named file; a build publishes it under that name.
    assert all((tmp_path / f"{name}.work.duckdb").exists() for name in ("before", "after", "env"))


def test_a_second_writer_is_told_who_holds_the_warehouse_and_since_when(tmp_path, capsys):
    db = tmp_path / "w.duckdb"
    path = write_lines(tmp_path / "a.jsonl", [instance_record()])
    with writer_lock(db, "build"):
        code, _, err = _run(capsys, "--db", str(db), "ingest", str(path))
    assert code == 3
    assert "another ingest or build is running since" in err
    assert "build (pid" in err


def test_a_write_connection_from_outside_evalhouse_gets_a_message_not_a_traceback(tmp_path, capsys):
    db = tmp_path / "w.duckdb"
    path = write_lines(tmp_path / "a.jsonl", [instance_record()])
    assert _run(capsys, "--db", str(db), "ingest", str(path))[0] == 0
    holder = subprocess.Popen(
        [sys.executable, "-c", f"import duckdb, sys; con = duckdb.connect({str(working_copy(db))!r}); "
                               "print('open', flush=True); sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "open"
        code, _, err = _run(capsys, "--db", str(db), "ingest", str(write_lines(tmp_path / "b.jsonl", [instance_record(sample_id="2")])))
    finally:
        holder.communicate("")
    assert code == 3
    assert "open in another process" in err and "Traceback" not in err


def test_json_output_is_machine_readable(tmp_path, capsys):
    path = write_lines(tmp_path / "a.jsonl", [instance_record(), "[1, 2]"])
    code, out, _ = _run(capsys, "ingest", "--db", str(tmp_path / "w.duckdb"), "--output", "json", str(path))
    report = json.loads(out)
    assert code == 0
    assert report["accepted"] == 1 and report["quarantined"] == 1
    assert report["by_format"]["eee_instance"]["accepted"] == 1
    assert report["files"][0]["status"] == "loaded"


def test_strict_reports_real_files_as_quarantined(tmp_path, capsys):
    from tests.conftest import FIXTURES

    code, out, _ = _run(capsys, "ingest", "--db", str(tmp_path / "w.duckdb"), "--strict", "--output", "json",
                        str(FIXTURES / "every_eval_ever"))
    assert code == 0
    assert json.loads(out)["by_format"]["eee_instance"]["quarantined"] == 5


def test_a_writer_asked_to_wait_gets_the_lock_once_it_is_free(tmp_path, capsys):
    import threading

    db = tmp_path / "w.duckdb"
    path = write_lines(tmp_path / "a.jsonl", [instance_record()])
    held, release = threading.Event(), threading.Event()

    def hold():
        with writer_lock(db, "a short ingest"):
            held.set()
            release.wait(5)

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(5)
    threading.Timer(0.5, release.set).start()
    code, _, err = _run(capsys, "--db", str(db), "ingest", "--wait", "10", str(path))
    holder.join()
    assert code == 0, err


def test_demo_end_date_sets_the_sample_datas_last_day(tmp_path, capsys, monkeypatch):
    import evalhouse.operations

    built = []
    # Only the generator is under test here: the build that would follow is recorded, not run, and reports a
    # failure, so the demo stops there (exit 1) instead of writing a report and serving.
    monkeypatch.setattr(evalhouse.operations, "fresh_build",
                        lambda settings, runs, out, guard: built.append(runs) or False)
    code, out, _ = _run(capsys, "--db", str(tmp_path / "demo.duckdb"), "--landing", str(tmp_path / "landing"),
                        "demo", "--no-serve", "--end-date", "2026-11-21")
    assert code == 1 and built == [[evalhouse.operations.IngestRun((str(tmp_path / "landing" / "demo"),))]]
    assert "2026-W40 to 2026-W47, last day 2026-11-21" in out
    assert (tmp_path / "landing" / "demo" / "eval_forms" / "eval_forms_2026-W47.jsonl").exists()


def test_demo_end_date_that_is_not_a_date_exits_2_with_an_example(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["demo", "--no-serve", "--end-date", "21/11/2026"])
    assert exit_info.value.code == 2
    assert "write it as YYYY-MM-DD" in capsys.readouterr().err


def test_ingesting_beside_the_demos_data_says_the_marts_mix(tmp_path, capsys):
    where = ("--db", str(tmp_path / "w.duckdb"), "--landing", str(tmp_path / "landing"))
    demo_file = write_lines(tmp_path / "landing" / "demo" / "eee" / "a.jsonl", [instance_record(sample_id="demo")])
    team_file = write_lines(tmp_path / "team" / "b.jsonl", [instance_record(sample_id="team")])
    code, _, err = _run(capsys, *where, "ingest", str(demo_file))
    assert code == 0 and "note:" not in err  # the demo's data alone
    code, _, err = _run(capsys, *where, "ingest", str(team_file))
    assert code == 0 and "holds the demo's sample data" in err and "--db PATH" in err
