"""Exit codes a script or a cron job can act on: bad data (1) never reads as a broken run (4), a setup step not taken
(no warehouse built yet) is a command that cannot run as given (2), another process holding what a command needs
is busy (3) with a message that names it; `evalhouse --help` lists them all, each command's --help those it can
return, and the README says the same as evalhouse/exit_codes.py, their one home.
Run as processes where the exit code is the point, as a cron job runs them."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from evalhouse import exit_codes, operations
from evalhouse.build_status import read_status
from evalhouse.cli import _parser, main
from evalhouse.publish import working_copy
from evalhouse.settings import PROJECT_ROOT
from tests.conftest import instance_record, write_lines
from tests.processes import duckdb_held_open


def _evalhouse(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """`evalhouse ARGS...` in a process of its own, from the project's root (this checkout's code)."""
    return subprocess.run([sys.executable, "-m", "evalhouse.cli", *args], cwd=PROJECT_ROOT, capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, timeout=600)


def _ingest_under_a_file(tmp_path: Path, **env: str) -> tuple[subprocess.CompletedProcess, Path, Path]:
    """`evalhouse ingest` with --db under a path that is a file, not a folder (an OSError outside the data), the
    traceback's temporary folder its own: (the run, that file, that folder)."""
    not_a_folder = tmp_path / "warehouse"
    not_a_folder.write_text("a file where the warehouse's folder should be")
    saved = tmp_path / "tmp"
    saved.mkdir()
    records = write_lines(tmp_path / "a.jsonl", [instance_record()])
    run = _evalhouse("--db", str(not_a_folder / "w.duckdb"), "ingest", str(records),
                     env={"TMPDIR": str(saved), **env})
    return run, not_a_folder, saved


def test_a_failure_outside_the_data_exits_4_with_one_line_naming_the_file_that_holds_the_traceback(tmp_path):
    run, not_a_folder, saved = _ingest_under_a_file(tmp_path)
    assert run.returncode == 4, run.stderr  # was 1, the code of a refused line, with a traceback
    (line,) = run.stderr.splitlines()
    assert line.startswith("evalhouse: ingest failed: ") and str(not_a_folder) in line
    assert "check this path" in line and "Traceback" not in line
    (kept,) = saved.glob("evalhouse-ingest-failure-*.txt")
    assert str(kept) in line and "EVALHOUSE_DEBUG=1" in line
    assert kept.read_text().startswith("Traceback (most recent call last):") and "Error" in kept.read_text()


def test_evalhouse_debug_prints_the_traceback_instead_of_saving_it(tmp_path):
    run, _, saved = _ingest_under_a_file(tmp_path, EVALHOUSE_DEBUG="1")
    assert run.returncode == 4
    assert run.stderr.startswith("Traceback (most recent call last):")
    assert run.stderr.splitlines()[-1].startswith("evalhouse: ingest failed: ")
    assert not list(saved.iterdir())


def test_a_bug_exits_4_saying_it_is_a_bug_and_where_it_happened(tmp_path, monkeypatch, capsys):
    def broken(*args, **kwargs):
        raise ValueError("a bug")

    monkeypatch.setattr(operations, "ingest", broken)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    code = main(["--db", str(tmp_path / "w.duckdb"), "ingest", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 4  # was a ValueError out of main
    assert "ingest failed: ValueError: a bug (in test_exit_codes.py:" in err and "a bug in evalhouse" in err
    (kept,) = tmp_path.glob("evalhouse-ingest-failure-*.txt")
    assert "ValueError: a bug" in kept.read_text()


def test_ctrl_c_exits_130_with_one_line_saying_what_was_kept(tmp_path, monkeypatch, capsys):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(operations, "ingest", interrupted)
    monkeypatch.delenv("EVALHOUSE_DEBUG", raising=False)
    # Before: Python's traceback of the KeyboardInterrupt (uvicorn re-raises Ctrl+C after `evalhouse api` shut down).
    assert main(["--db", str(tmp_path / "w.duckdb"), "ingest", str(tmp_path)]) == 130
    err = capsys.readouterr().err
    assert err.startswith("evalhouse: ingest stopped (Ctrl+C); each file goes in whole or not at all")
    assert "Traceback" not in err and len(err.splitlines()) == 1
    monkeypatch.setenv("EVALHOUSE_DEBUG", "1")
    with pytest.raises(KeyboardInterrupt):  # the traceback, for whoever looks into where it stopped
        main(["--db", str(tmp_path / "w.duckdb"), "ingest", str(tmp_path)])


_BROKEN_AT_B = """
import sys
from ingest import pipeline
real = pipeline._ingest_file
def broken_at_b(store, classifier, options, batch_id, path, *rest):
    if path.name == "b.jsonl":
        raise RuntimeError("a bug")
    return real(store, classifier, options, batch_id, path, *rest)
pipeline._ingest_file = broken_at_b
from evalhouse.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_the_run_after_an_ingest_that_failed_with_an_error_says_it_may_have_failed_not_only_been_killed(tmp_path):
    """An ingest that loaded a.jsonl, then broke on b.jsonl (exit 4, reported): the next run's note covers that."""
    folder = tmp_path / "in"
    write_lines(folder / "a.jsonl", [instance_record(sample_id="a")])
    write_lines(folder / "b.jsonl", [instance_record(sample_id="b")])
    db = str(tmp_path / "w.duckdb")
    broken = subprocess.run([sys.executable, "-c", _BROKEN_AT_B, "--db", db, "ingest", str(folder)], cwd=PROJECT_ROOT,
                            capture_output=True, text=True, env={**os.environ, "TMPDIR": str(tmp_path)}, timeout=600)
    assert broken.returncode == 4 and "RuntimeError: a bug" in broken.stderr, broken.stderr
    run = _evalhouse("--db", db, "ingest", str(folder))
    assert run.returncode == 0, run.stderr
    # was "(it stopped without recording an end: killed, interrupted, or the machine stopped)", after a reported error
    assert "did not finish (it stopped part way without recording an end: it failed with an error it reported, or it " \
           "was killed or interrupted, or the machine stopped)" in run.stderr


@pytest.mark.parametrize("value", ["0", "-5", "1.5"])
def test_a_max_record_bytes_below_1_exits_2_naming_the_argument_and_the_allowed_range(value, tmp_path, capsys):
    records = write_lines(tmp_path / "a.jsonl", [instance_record()])
    with pytest.raises(SystemExit) as stopped:
        main(["--db", str(tmp_path / "w.duckdb"), "ingest", "--max-record-bytes", value, str(records)])
    err = capsys.readouterr().err
    assert stopped.value.code == 2  # was 0, and -5 made up a line after the last
    assert f"argument --max-record-bytes: '{value}' is not a size it can use" in err and "1 or more" in err
    assert not (tmp_path / "w.duckdb").exists() and not working_copy(tmp_path / "w.duckdb").exists()


def _listed_codes(help_text: str) -> dict[int, str]:
    """The codes a --help lists under "exit codes:", each with its meaning as one line."""
    listed = help_text.split("exit codes:\n", 1)[1]
    codes: dict[int, str] = {}
    for line in listed.splitlines():
        code = re.match(r"^  (\d+) +(.*)$", line)
        if code:
            current = int(code.group(1))
            codes[current] = code.group(2)
        elif line.startswith(" " * 7) and codes:
            codes[current] += " " + line.strip()
        else:
            break
    return codes


def _help(capsys, *args: str) -> str:
    with pytest.raises(SystemExit) as exit_info:
        main([*args, "--help"])
    assert exit_info.value.code == 0
    return capsys.readouterr().out


def test_help_lists_every_exit_code_and_what_it_means(capsys):
    codes = _listed_codes(_help(capsys))
    assert sorted(codes) == [0, 1, 2, 3, 4, 130]
    assert codes == exit_codes.MEANINGS
    assert "--fail-on-reject" in codes[1] and "outside the data" in codes[4] and "interrupted" in codes[130]
    assert "a warehouse not built yet: run `evalhouse build`" in codes[2]


@pytest.mark.parametrize("command", sorted(exit_codes.COMMANDS))
def test_each_commands_help_lists_the_exit_codes_it_can_return(command, capsys):
    codes = _listed_codes(_help(capsys, command))
    assert codes == exit_codes.command_codes(command)  # was no "exit codes:" at all below the top level
    assert {exit_codes.EXIT_ERROR, exit_codes.EXIT_INTERRUPTED} <= set(codes)


def test_the_report_and_docs_list_no_failed_build_and_ingest_lists_refused_lines():
    assert exit_codes.EXIT_FAILED not in exit_codes.command_codes("report")
    assert "run `evalhouse build`" in exit_codes.command_codes("report")[exit_codes.EXIT_USAGE]
    assert "run `evalhouse build`" in exit_codes.command_codes("docs")[exit_codes.EXIT_USAGE]
    assert "--fail-on-reject" in exit_codes.command_codes("ingest")[exit_codes.EXIT_FAILED]


def test_every_command_has_its_codes_listed():
    (subparsers,) = [action for action in _parser()._actions if action.dest == "command"]
    assert set(subparsers.choices) == set(exit_codes.COMMANDS)  # a new command: say what it exits with


def test_no_cli_module_keeps_a_copy_of_the_codes():
    """ingest/cli.py and evalhouse/report/cli.py kept their own EXIT_OK = 0 and the like: one place says what a code
    means, so a changed code cannot leave a copy behind."""
    copies = [f"{path.relative_to(PROJECT_ROOT)}: {line.strip()}"
              for folder in ("evalhouse", "ingest") for path in sorted((PROJECT_ROOT / folder).rglob("*.py"))
              if path.name != "exit_codes.py"
              for line in path.read_text(encoding="utf-8").splitlines()
              if re.match(r"\s*(EXIT_\w+(, *EXIT_\w+)*) *=", line)]
    assert copies == []


def _readme_section(title: str) -> str:
    text = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index(f"## {title}\n")
    return text[start:text.index("\n## ", start + 1)]


def test_the_readme_lists_the_codes_and_which_command_returns_which():
    section = _readme_section("Exit codes")
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in section.splitlines()
            if line.startswith("| ") and not line.startswith("|---")]
    codes = [int(row[0]) for row in rows if row[0].isdigit()]
    assert codes == sorted(exit_codes.MEANINGS)
    by_command = {row[0].strip("`"): row[1:] for row in rows if row[0].startswith("`")}
    assert set(by_command) == set(exit_codes.COMMANDS)
    for command, cells in by_command.items():
        said = {code for code, cell in zip((0, 1, 2, 3), cells) if cell}
        assert said == set(exit_codes.COMMANDS[command]), command


# -- a warehouse not built yet, held, or no warehouse: report and docs ----------------------------------------------

@pytest.mark.parametrize("command", ["report", "docs"])
def test_a_report_or_docs_without_a_built_warehouse_exits_2_saying_to_build(command, tmp_path):
    db = tmp_path / "none.duckdb"
    run = _evalhouse("--db", str(db), command)
    assert run.returncode == 2, run.stderr  # was 1, the code of a failed build: nothing failed
    (line,) = run.stderr.splitlines()
    assert line.startswith("evalhouse: no ") and str(db) in line and "run `evalhouse build`" in line
    assert not db.exists()


def test_a_report_after_an_ingest_alone_says_the_records_wait_in_the_working_copy_for_a_build(tmp_path):
    db = tmp_path / "w.duckdb"
    assert _evalhouse("--db", str(db), "ingest", str(write_lines(tmp_path / "a.jsonl", [instance_record()]))
                      ).returncode == 0
    run = _evalhouse("--db", str(db), "report")
    assert run.returncode == 2, run.stderr
    assert run.stderr == (f"evalhouse: no warehouse built at {db} yet: what was ingested is in its working copy "
                          f"({working_copy(db).name}), which readers never read; run `evalhouse build` to publish "
                          "it\n")


def test_a_report_of_a_file_that_is_no_warehouse_exits_2_naming_it(tmp_path):
    not_a_warehouse = tmp_path / "notes.duckdb"
    not_a_warehouse.write_text("a text file, not a DuckDB database\n" * 200)
    run = _evalhouse("--db", str(not_a_warehouse), "report")
    assert run.returncode == 2, run.stderr
    (line,) = run.stderr.splitlines()
    assert line.startswith(f"evalhouse: cannot read {not_a_warehouse} as a warehouse (") and "--db" in line


def test_a_report_of_a_warehouse_another_process_holds_for_writing_exits_3_naming_it(tmp_path):
    db = tmp_path / "w.duckdb"
    with duckdb_held_open(db) as holder:
        run = _evalhouse("--db", str(db), "report")
    assert run.returncode == 3, run.stderr  # was 1, "is a build writing it?": evalhouse's builds never do
    (line,) = run.stderr.splitlines()
    assert line.startswith(f"evalhouse: cannot read {db}: a DuckDB connection from another process (PID "
                           f"{holder.pid},") and "Close that connection" in line


# -- a DuckDB connection from outside evalhouse holding the working copy ------------------------------------------

@pytest.fixture
def held_working_copy(tmp_path, request) -> Iterator[tuple[Path, subprocess.Popen]]:
    """A warehouse with an ingest in its working copy, and a process holding a DuckDB connection to that copy
    (read-only or not: request.param)."""
    db = tmp_path / "w.duckdb"
    assert _evalhouse("--db", str(db), "ingest", str(write_lines(tmp_path / "a.jsonl", [instance_record()]))
                      ).returncode == 0
    with duckdb_held_open(working_copy(db), read_only=request.param) as holder:
        yield db, holder


@pytest.mark.slow
@pytest.mark.parametrize("held_working_copy", [True, False], ids=["read-only", "read-write"], indirect=True)
@pytest.mark.parametrize("command", ["ingest", "build", "rebuild", "demo"])
def test_a_connection_holding_the_working_copy_makes_every_writer_exit_busy_naming_it(
        held_working_copy, command, tmp_path):
    """rebuild and demo replace the working copy: they went on, deleting the file under that connection (a
    read-write one could then write into the new file's log), or broke reading it (exit 4)."""
    db, holder = held_working_copy
    args = {"ingest": [str(write_lines(tmp_path / "b.jsonl", [instance_record(sample_id="2")]))],
            "demo": ["--force", "--no-serve"]}.get(command, [])
    before = working_copy(db).read_bytes()
    run = _evalhouse("--db", str(db), "--landing", str(tmp_path / "landing"), command, *args)
    assert run.returncode == 3, run.stderr  # build: was 1, "dbt build failed", with dbt's traceback
    (line,) = run.stderr.splitlines()
    assert f"{working_copy(db)}, the working copy that ingest and build write, is open in another process " \
           f"(PID {holder.pid}," in line
    assert "nothing was written" in line and "a read-only one holds the file too" in line
    assert working_copy(db).read_bytes() == before and not db.exists()  # nothing published either
    assert not (tmp_path / "landing").exists()  # the demo generated nothing
    assert read_status(db).running is None and read_status(db).unpublished.records == 1  # no build attempted


def test_dbts_process_holds_the_working_copy_from_its_check_to_the_builds_end(tmp_path, monkeypatch):
    """The check that the working copy is free is dbt's process's first open of it, kept open while dbt imports,
    parses and runs: a DuckDB connection tried meanwhile fails, and the build is never the one to fail. Checked
    and closed before dbt's process started (as it was), the file was free to open for the seconds dbt takes to
    parse, and a connection opened then made the build fail (exit 1) instead of finding it busy (exit 3)."""
    from evalhouse import build
    from evalhouse.build import BuildResult
    from ingest.load import RawStore

    work = tmp_path / "w.work.duckdb"
    RawStore(work).close()
    tried = []

    def building(db_path, **kwargs):
        other = subprocess.run([sys.executable, "-c", f"import duckdb; duckdb.connect({str(db_path)!r}, "
                                                      "read_only=True)"], capture_output=True, text=True)
        tried.append(other)
        return BuildResult(True, (), ())

    monkeypatch.setattr(build, "build_in_process", building)
    assert build._main([str(work), str(tmp_path / "result.json")]) == 0
    (other,) = tried
    assert other.returncode != 0 and "Could not set lock" in other.stderr, other.stderr
    duckdb.connect(str(work)).close()  # let go of at the end


# -- a port another process listens on ------------------------------------------------------------------------

@pytest.fixture
def busy_port() -> Iterator[int]:
    """A port on 127.0.0.1 that a socket of this process listens on."""
    with socket.socket() as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        yield listener.getsockname()[1]


@pytest.mark.slow
@pytest.mark.parametrize("command, what", [("serve", "the app"), ("api", "the API")])
def test_a_server_on_a_port_in_use_exits_busy_at_once_saying_what_to_do(busy_port, command, what, tmp_path):
    run = _evalhouse("--db", str(tmp_path / "w.duckdb"), "--landing", str(tmp_path / "landing"), command,
                     "--port", str(busy_port))
    assert run.returncode == 3, run.stderr  # was 1: serve said it served, then Streamlit "Port ... not available"
    assert f"evalhouse: {what} did not start: port {busy_port} on " in run.stderr
    assert "--port N" in run.stderr and "serving the app" not in run.stdout


def test_the_demo_checks_its_port_before_the_work(busy_port, tmp_path, monkeypatch, capsys):
    built = []
    monkeypatch.setattr(operations, "fresh_build", lambda *args, **kwargs: built.append(args) or False)
    code = main(["--db", str(tmp_path / "w.duckdb"), "--landing", str(tmp_path / "landing"), "demo",
                 "--port", str(busy_port)])
    assert code == 3  # was 1, after generating the data and building: the server found the port taken at the end
    assert "the demo did not start: port" in capsys.readouterr().err
    assert built == [] and not (tmp_path / "landing").exists()
