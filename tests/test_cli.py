"""The `evalhouse` command: exit codes that mean something, a per-format summary, and a clear busy message."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from evalhouse.cli import main
from evalhouse.publish import working_copy
from evalhouse.lock import writer_lock
from tests.conftest import FIXTURES, LM_EVAL_SAMPLES, eval_form_record, instance_record, write_lines
from tests.processes import duckdb_held_open


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


def test_fail_on_reject_still_fails_when_the_same_input_is_ingested_again(tmp_path, capsys):
    # A retried CI step must not pass because the file was skipped as already loaded: its line is still refused.
    path = write_lines(tmp_path / "dup.jsonl", [instance_record(), "{bad json"])
    db = tmp_path / "w.duckdb"
    assert _run(capsys, "ingest", "--db", str(db), "--fail-on-reject", str(path))[0] == 1
    with duckdb.connect(str(working_copy(db)), read_only=True) as con:
        before = con.execute("select count(*) from raw.quarantine").fetchone()[0]
    code, out, _ = _run(capsys, "ingest", "--db", str(db), "--fail-on-reject", str(path))
    assert code == 1
    assert "1 line(s) of these inputs are still refused" in out and "raw.quarantine" in out
    code, out, _ = _run(capsys, "ingest", "--db", str(db), "--fail-on-reject", "--output", "json", str(path))
    assert code == 1
    answer = json.loads(out)
    assert (answer["quarantined"], answer["still_refused"]) == (0, 1)
    assert [(f["status"], f["still_refused"]) for f in answer["files"]] == [("already_loaded", 1)]
    with duckdb.connect(str(working_copy(db)), read_only=True) as con:
        assert con.execute("select count(*) from raw.quarantine").fetchone()[0] == before  # nothing loaded again
    assert _run(capsys, "ingest", "--db", str(db), str(path))[0] == 0  # without the flag, the run completed


def test_fail_on_reject_fails_on_a_grown_file_until_its_refused_line_is_fixed(tmp_path, capsys):
    path = write_lines(tmp_path / "grows.jsonl", [instance_record(), "{bad json"])
    db = str(tmp_path / "w.duckdb")
    assert _run(capsys, "ingest", "--db", db, "--fail-on-reject", str(path))[0] == 1
    with path.open("a") as handle:  # a new good line: the file is read again, the bad one is not quarantined twice
        handle.write(json.dumps(instance_record(sample_id="appended")) + "\n")
    code, out, _ = _run(capsys, "ingest", "--db", db, "--fail-on-reject", "--output", "json", str(path))
    (grown,) = json.loads(out)["files"]
    assert (code, grown["status"], grown["accepted"], grown["quarantined"], grown["still_refused"]) == (
        1, "loaded", 1, 0, 1)
    lines = path.read_text().splitlines()
    path.write_text("\n".join([lines[0], json.dumps(instance_record(sample_id="fixed")), lines[2]]) + "\n")  # the bad line fixed
    assert _run(capsys, "ingest", "--db", db, "--fail-on-reject", str(path))[0] == 0


def test_a_file_completed_or_fixed_in_place_loads_its_refused_lines_and_says_they_are_no_longer_refused(
        tmp_path, capsys):
    """Ingested while still being written, a file's cut-off last line is refused; completed, the same path loads it.
    Another file's bad line is corrected, its other bad line left: the run counts only that one as still refused.
    Each run says, in text and in JSON, that the earlier refusals are resolved."""
    db = str(tmp_path / "w.duckdb")
    records = [json.dumps(instance_record(sample_id=f"s{i}")) for i in range(4)]
    cut = tmp_path / "cut.jsonl"
    cut.write_text(f"{records[0]}\n{records[1][:40]}")
    assert _run(capsys, "ingest", "--db", db, "--fail-on-reject", str(cut))[0] == 1
    cut.write_text(f"{records[0]}\n{records[1]}\n")
    code, out, _ = _run(capsys, "ingest", "--db", db, "--fail-on-reject", str(cut))
    assert code == 0 and "still refused" not in out.replace("no longer still refused", "")
    assert "1 line cut off before is now complete and loaded: its earlier refusal is resolved" in out
    assert "differ from what this path held" not in out  # nothing loaded there before: no record to load beside

    bad = tmp_path / "bad.jsonl"
    bad.write_text(f"{{bad json\n{records[2]}\nnot json\n")
    assert _run(capsys, "ingest", "--db", db, str(bad))[0] == 0
    bad.write_text(f"{records[3]}\n{records[2]}\nnot json\n")
    code, out, _ = _run(capsys, "ingest", "--db", db, "--fail-on-reject", "--output", "json", str(bad))
    answer = json.loads(out)
    (fixed,) = answer["files"]
    assert code == 1  # its third line is still refused
    assert (answer["accepted"], answer["still_refused"], answer["resolved"], answer["completed"]) == (1, 1, 1, 0)
    assert (fixed["resolved"], fixed["still_refused"], fixed["changed_in_place"]) == (1, 1, 0)
    assert "1 line refused before now loads: its earlier refusal is resolved" in fixed["message"]
    with duckdb.connect(str(working_copy(Path(db))), read_only=True) as con:
        manifest = con.execute("select message from raw.ingest_files order by finished_at desc limit 1").fetchone()[0]
    assert "1 line refused before now loads" in manifest  # the Data quality page's ingest runs show it too


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


def test_the_busy_message_names_wait_to_the_commands_that_have_it_and_only_to_them(tmp_path, capsys, monkeypatch):
    from evalhouse import operations

    db = tmp_path / "w.duckdb"
    path = write_lines(tmp_path / "a.jsonl", [instance_record()])
    monkeypatch.setattr(operations, "build_warehouse", lambda work: pytest.fail("the lock is held: nothing runs"))
    with writer_lock(db, "build"):
        answers = {command: _run(capsys, "--db", str(db), *command)
                   for command in (("ingest", str(path)), ("build",), ("ingest", "--wait", "0.2", str(path)),
                                   ("rebuild",))}
    assert {answer[0] for answer in answers.values()} == {3}
    for command in (("ingest", str(path)), ("build",)):
        assert answers[command][2].rstrip().endswith(
            "wait for it to finish and retry, or add --wait SECONDS to have this command wait for it"), command
    waited = answers[("ingest", "--wait", "0.2", str(path))][2]
    assert waited.rstrip().endswith("(this run waited 0.2 s for it: a longer --wait SECONDS waits longer)")
    assert answers[("rebuild",)][2].rstrip().endswith("wait for it to finish and retry")  # rebuild has no --wait


def test_a_write_connection_from_outside_evalhouse_gets_a_message_not_a_traceback(tmp_path, capsys):
    db = tmp_path / "w.duckdb"
    path = write_lines(tmp_path / "a.jsonl", [instance_record()])
    assert _run(capsys, "--db", str(db), "ingest", str(path))[0] == 0
    with duckdb_held_open(working_copy(db)):
        code, _, err = _run(capsys, "--db", str(db), "ingest",
                            str(write_lines(tmp_path / "b.jsonl", [instance_record(sample_id="2")])))
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


def test_json_counts_of_each_file_add_up_to_its_records(tmp_path, capsys):
    # Every record is accepted, quarantined, already loaded, or already quarantined: skipped ones say which.
    folder = tmp_path / "in"
    forms = [eval_form_record() for _ in range(3)]
    write_lines(folder / "forms.jsonl", forms)
    (folder / "forms_crlf.jsonl").write_bytes(b"".join(json.dumps(f).encode() + b"\r\n" for f in forms))
    suite = FIXTURES / "specs" / "acme-full-agent.yaml"
    for name in ("suite.yaml", "suite_copy.yaml"):  # the same suite id, other bytes
        (folder / name).write_bytes(suite.read_bytes() + (b"# a copy\n" if "copy" in name else b""))
    write_lines(folder / "mixed.jsonl", [instance_record(), "{bad json", forms[0]])
    db = str(tmp_path / "w.duckdb")
    for _ in range(2):
        _run(capsys, "ingest", "--db", db, str(folder / "forms.jsonl"), str(folder / "suite.yaml"))
    code, out, _ = _run(capsys, "ingest", "--db", db, "--output", "json", str(folder))
    files = {Path(f["path"]).name: f for f in json.loads(out)["files"]}
    assert {name: f["already_loaded"] for name, f in files.items() if f["status"] == "loaded"} == {
        "forms_crlf.jsonl": 3, "mixed.jsonl": 1, "suite_copy.yaml": 1}
    # An lm-eval samples file read again under its restored name: its bad line is refused again, not twice.
    renamed = tmp_path / "run" / "math.jsonl"
    renamed.parent.mkdir()
    renamed.write_bytes(LM_EVAL_SAMPLES.read_bytes() + b"not json\n")
    _run(capsys, "ingest", "--db", db, str(renamed))
    restored = renamed.rename(renamed.with_name(LM_EVAL_SAMPLES.name))
    code, out, _ = _run(capsys, "ingest", "--db", db, "--output", "json", str(restored))
    (again,) = json.loads(out)["files"]
    assert (again["status"], again["accepted"], again["already_quarantined"]) == ("loaded", 10, 1)
    for f in [*files.values(), again]:
        if f["status"] == "loaded":
            assert f["records"] == (f["accepted"] + f["quarantined"] + f["already_loaded"]
                                    + f["already_quarantined"]), f


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
                        lambda settings, runs, out, guard, action: built.append(runs) or False)
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


@pytest.mark.slow
def test_docs_read_the_published_warehouse_while_a_reader_holds_it_and_leave_it_untouched(tmp_path, capsys):
    """`make docs` runs `evalhouse docs`: a reader (the app, an analyst's read-only session) holding the published
    file open must not make it fail, and it must not write the file (writers never open it)."""
    import hashlib

    from evalhouse.build import dbt_target_dir
    from tests.conftest import FIXTURES, Warehouse

    db = tmp_path / "w.duckdb"
    Warehouse(db).ingest(FIXTURES / "every_eval_ever")  # the raw tables are enough for the catalog to describe
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    # In another process, as the app's and an analyst's are: DuckDB's file lock is taken per process.
    holder = subprocess.Popen(
        [sys.executable, "-c", f"import duckdb, sys; con = duckdb.connect({str(db)!r}, read_only=True); "
                               "print('open', flush=True); sys.stdin.read(); "
                               "print(con.execute('select count(*) from raw.eee_instance').fetchone()[0])"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "open"
        (dbt_target_dir() / "catalog.json").unlink(missing_ok=True)
        code, out, err = _run(capsys, "--db", str(db), "docs")
    finally:
        still_reading, _ = holder.communicate("")
    assert code == 0, err
    assert f"dbt docs of {db} written to" in out
    catalog = json.loads((dbt_target_dir() / "catalog.json").read_text())
    assert catalog["errors"] is None
    assert "record_json" in catalog["sources"]["source.evalhouse.every_eval_ever.instances"]["columns"]
    assert holder.returncode == 0 and int(still_reading) == 5  # the reader kept its connection throughout
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert not db.with_name(db.name + ".wal").exists()


def test_docs_without_a_published_warehouse_say_to_build_first(tmp_path, capsys):
    code, _, err = _run(capsys, "--db", str(tmp_path / "none.duckdb"), "docs")
    assert code == 2  # was 1, the code of a failed build: nothing failed, a setup step was not taken
    assert f"no published warehouse at {tmp_path / 'none.duckdb'}: run `evalhouse build`" in err
    assert not (tmp_path / "none.duckdb").exists()


def test_ingesting_beside_the_demos_data_says_the_marts_mix(tmp_path, capsys):
    where = ("--db", str(tmp_path / "w.duckdb"), "--landing", str(tmp_path / "landing"))
    demo_file = write_lines(tmp_path / "landing" / "demo" / "eee" / "a.jsonl", [instance_record(sample_id="demo")])
    team_file = write_lines(tmp_path / "team" / "b.jsonl", [instance_record(sample_id="team")])
    code, _, err = _run(capsys, *where, "ingest", str(demo_file))
    assert code == 0 and "note:" not in err  # the demo's data alone
    code, _, err = _run(capsys, *where, "ingest", str(team_file))
    assert code == 0 and "holds the demo's sample data" in err and "--db PATH" in err
