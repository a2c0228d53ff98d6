"""tests/conftest.py's built_once: what the test workers share (the demo warehouse) is built by one of them, once,
and a build that failed fails the tests of every worker with its error rather than being waited for or repeated.
And its reuse of dbt's parse across warehouse paths (right only while nothing dbt parses reads the path) and across
target directories."""

from __future__ import annotations

import multiprocessing
import os
import re
import threading
from pathlib import Path

import pytest

from tests.conftest import DBT_FILE_LOG_LEVEL, PROJECT_FILES_DBT_PARSES, SharedBuildFailed, built_once


class _Worker:
    """A pytest-xdist worker's tmp_path_factory, as far as built_once asks: its temporary directory, under the
    directory every worker's lies in."""

    def __init__(self, shared: Path, name: str) -> None:
        self.basetemp = shared / f"popen-{name}"
        self.basetemp.mkdir(parents=True, exist_ok=True)

    def getbasetemp(self) -> Path:
        return self.basetemp


@pytest.fixture
def workers(tmp_path, monkeypatch) -> tuple[_Worker, _Worker]:
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    return _Worker(tmp_path, "gw0"), _Worker(tmp_path, "gw1")


def test_the_first_worker_builds_and_the_others_use_what_it_built(workers, tmp_path):
    first, second = workers
    builds: list[Path] = []
    building, release = threading.Event(), threading.Event()

    def build(directory: Path) -> None:
        building.set()
        release.wait()  # the other worker asks meanwhile, and waits for this build
        (directory / "warehouse.duckdb").write_text("built")
        builds.append(directory)

    found: dict[str, Path] = {}
    builder = threading.Thread(target=lambda: found.update(first=built_once(first, "demo", build)))
    builder.start()
    building.wait()
    waiter = threading.Thread(target=lambda: found.update(second=built_once(second, "demo", build)))
    waiter.start()
    release.set()
    builder.join()
    waiter.join()

    assert builds == [tmp_path / "demo"]  # once, in the directory the workers share
    assert found == {"first": tmp_path / "demo", "second": tmp_path / "demo"}
    assert (tmp_path / "demo" / "warehouse.duckdb").read_text() == "built"


def test_a_failed_build_fails_every_worker_with_its_error(workers):
    first, second = workers
    calls = []

    def failing(directory: Path) -> None:
        calls.append(directory)
        raise AssertionError("dbt build failed:\nmodel.evalhouse.fct_trials: Binder Error")

    with pytest.raises(AssertionError, match="dbt build failed"):
        built_once(first, "demo", failing)
    with pytest.raises(SharedBuildFailed, match="(?s)failed in another test worker.*fct_trials: Binder Error"):
        built_once(second, "demo", failing)
    assert len(calls) == 1  # not built again


def _die_while_building(factory: _Worker) -> None:
    def build(directory: Path) -> None:
        (directory / "half.duckdb").write_text("half")
        os._exit(1)  # the worker killed half way: no record of the build, its lock released with the process

    built_once(factory, "demo", build)


def test_a_build_whose_worker_died_half_way_is_built_again_by_the_next(workers, tmp_path):
    first, second = workers
    dying = multiprocessing.get_context("fork").Process(target=_die_while_building, args=(first,))
    dying.start()
    dying.join()
    assert dying.exitcode == 1 and (tmp_path / "demo" / "half.duckdb").exists()

    directory = built_once(second, "demo", lambda d: (d / "warehouse.duckdb").write_text("built"))
    assert sorted(p.name for p in directory.iterdir()) == ["warehouse.duckdb"]


def test_without_workers_the_session_builds_in_its_own_temporary_directory(tmp_path, monkeypatch):
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    session = _Worker(tmp_path, "session")
    assert built_once(session, "demo", lambda d: None) == session.basetemp / "demo"


def test_nothing_dbt_parses_reads_the_warehouse_path():
    """The tests reuse dbt's saved parse for warehouses at other paths (tests/conftest.py,
    _reuse_the_parse_across_warehouse_paths): a model, macro or test reading target.path would make that parse
    wrong for the next path."""
    reads = re.compile(r"target\s*(\.\s*path\b|\[\s*['\"]path['\"])")
    files = [f for pattern in PROJECT_FILES_DBT_PARSES for f in Path(__file__).parents[1].glob(pattern)]
    assert len(files) > 100
    assert [str(f) for f in files if reads.search(f.read_text(encoding="utf-8"))] == []


def test_dbt_compares_every_connection_key_but_the_path_in_this_test_session():
    from dbt.adapters.duckdb.credentials import DuckDBCredentials

    keys = DuckDBCredentials(path="/data/w.duckdb")._connection_keys()
    assert "path" not in keys and "database" in keys


@pytest.mark.slow
def test_a_run_in_a_new_target_starts_from_the_parse_the_session_saved_for_its_profile_and_vars(tmp_path,
                                                                                             monkeypatch):
    """A test's own target directory starts without dbt's saved parse; the session gives it the one saved by an
    earlier run with the same profile and vars, so dbt parses only what changed (nothing here). A warehouse name
    no other test uses: its first run parses in full."""
    from evalhouse.build import run_dbt

    monkeypatch.setenv(DBT_FILE_LOG_LEVEL, "debug")  # what dbt did with a saved parse it found

    def parse(name: str) -> str:
        target = tmp_path / name
        assert run_dbt(tmp_path / name / "kept_parse_probe.duckdb", ("parse",), target_path=target, quiet=True).ok
        return (target / "logs" / "dbt.log").read_text()

    assert "Unable to do partial parsing because saved manifest not found" in parse("first")
    second = parse("second")
    assert "Unable to do partial parsing" not in second
    assert "Partial parsing enabled, no changes found, skipping parsing" in second
