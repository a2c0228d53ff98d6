"""Shared test helpers: valid records of each format, writing input files, ingesting into a temporary warehouse."""

from __future__ import annotations

import copy
import fcntl
import hashlib
import json
import os
import shutil
import traceback
import uuid
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from evalhouse.build import BuildResult, run_dbt
from ingest.pipeline import IngestOptions, RunSummary, ingest_paths

FIXTURES = Path(__file__).parent / "fixtures"
# An lm-eval samples file: detection knows it by its name, so under another name each of its ten lines is refused.
LM_EVAL_SAMPLES = FIXTURES / "lm_eval" / "samples_math_perturbed_full_2026-01-21T03-44-18.458309.jsonl"
# For a build of part of the project. dbt's default (eager) runs every test one of whose models is selected, so a
# relationships test between a selected model and one left unbuilt (fct_trials and the specs marts point at
# dim_models) fails on the missing table. Cautious runs only the tests whose every model is selected.
CAUTIOUS = ("--indirect-selection", "cautious")

_INSTANCE = {
    "schema_version": "0.3.0",
    "evaluation_id": "gsm8k/acme_chat-7b/1763000000.0",
    "model_id": "acme/chat-7b",
    "evaluation_name": "gsm8k",
    "sample_id": "gsm8k_0001",
    "interaction_type": "single_turn",
    "input": {"raw": "What is 2 + 3?", "reference": ["5"]},
    "output": {"raw": ["5"]},
    "answer_attribution": [
        {"turn_idx": 0, "source": "output.raw", "extracted_value": "5", "extraction_method": "exact_match",
         "is_terminal": True}
    ],
    "evaluation": {"score": 1.0, "is_correct": True},
    "metadata": {"trial": "1"},
}

_EVAL_FORM = {
    "schema_version": "1.0.0",
    "eval_id": "6f1c2b9e-3d7a-4c51-9a43-0d2a8f7c1e55",
    "created_at": "2026-11-16T10:04:00Z",
    "derived_from": None,
    "rater": {"type": "human", "id": "h-ana", "training_cohort": "2026-Q3"},
    "subject": {"model": "acme/chat-7b", "version": "2026-11-10"},
    "task": {"task_id": "support-0042", "suite_id": "support-v1", "modality": "chat", "prompt": "Reset my password",
             "response": "Go to settings.", "response_id": "r-91"},
    "universal": {
        "helpfulness": {"score": 4, "confidence": "high"},
        "instruction_following": {"score": 5, "confidence": "high"},
        "faithfulness": {"score": 5, "confidence": "high"},
        "safety": {"score": 5, "confidence": "high"},
        "overall_quality": {"score": 4, "confidence": "high"},
    },
}

_COGNIBENCH = {
    "evaluation_id": "eval_1234567890",
    "task_id": 17,
    "model_id": "acme/chat-7b",
    "judge_llm_model": "gpt-4o",
    "judge_prompt_template_path": "prompts/judging/Math-L1-judge-v1.0.txt",
    "raw_judge_output": {"raw_content": "..."},
    "parsed_rubric_scores": {"Problem Understanding": {"score": "Yes", "justification": "Correct."}},
    "aggregated_score": "Pass",
    "final_answer_verified": True,
    "needs_human_review": False,
    "review_reasons": [],
    "human_review_status": "Not Required",
    "created_at": "2025-04-12T17:30:00.123456Z",
}


def instance_record(**changes: Any) -> dict[str, Any]:
    """A strictly valid Every Eval Ever 0.3.0 instance record, with top-level changes applied."""
    return {**copy.deepcopy(_INSTANCE), **changes}


def eval_form_record(**changes: Any) -> dict[str, Any]:
    """A valid eval form with a fresh eval_id, with top-level changes applied."""
    return {**copy.deepcopy(_EVAL_FORM), "eval_id": str(uuid.uuid4()), **changes}


def cognibench_record(**changes: Any) -> dict[str, Any]:
    return {**copy.deepcopy(_COGNIBENCH), "evaluation_id": f"eval_{uuid.uuid4().hex[:10]}", **changes}


def write_lines(path: Path, lines: Iterable[Any]) -> Path:
    """Write a JSONL file: dicts are serialised, bytes and str are written as they are (one per line)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        for line in lines:
            if isinstance(line, bytes):
                handle.write(line + b"\n")
            elif isinstance(line, str):
                handle.write(line.encode("utf-8") + b"\n")
            else:
                handle.write(json.dumps(line).encode("utf-8") + b"\n")
    return path


def built_warehouse_path(folder: Path) -> Path:
    """Where a test keeps a warehouse that dbt builds: `folder`/w.duckdb, the folder saying what the warehouse is
    (incremental/, full/). dbt parses the project once for each database name, the file's stem, which every node
    carries: a saved parse (_keep_a_saved_parse_per_profile_and_vars) serves only builds of files named alike. When
    each had a name of its own, a run saved 20 parses and parsed in full 31 times (4 to 8 s each, most of them); named
    alike, 8 parses and 19 or 20 full ones (two runs, dbt's logs). Many tests spell it `tmp_path / "w.duckdb"`."""
    return folder / "w.duckdb"


class Warehouse:
    """A temporary warehouse file with helpers to ingest into it and query it."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def ingest(self, *paths: Path | str, **options: Any) -> RunSummary:
        return ingest_paths([str(p) for p in paths], self.path, IngestOptions(**options))

    def build(self, *args: str, **options: Any) -> BuildResult:
        """`dbt build` of this warehouse in this process, with `args` after it ("--select", ..., CAUTIOUS, "--vars",
        ...) and run_dbt's `options` (target_path, write_json), asserting that it passed: dbt's failures, node by
        node, are the message."""
        result = run_dbt(self.path, ("build", *args), quiet=True, **options)
        assert result.ok, "dbt build failed:\n" + "\n".join(result.failures)
        return result

    @classmethod
    def built_from(cls, folder: Path, records: Iterable[Any], *args: str, **options: Any) -> Warehouse:
        """`records` written to `folder`/records.jsonl and ingested, none refused, into `folder`/w.duckdb, then
        built (`build`'s args and options): a small warehouse of a test's own."""
        warehouse = cls(folder / "w.duckdb")
        warehouse.ingest(write_lines(folder / "records.jsonl", records))
        assert warehouse.quarantine() == []
        warehouse.build(*args, **options)
        return warehouse

    def rows(self, sql: str, params: Iterable[Any] = ()) -> list[tuple]:
        with duckdb.connect(str(self.path), read_only=True) as con:
            return con.execute(sql, list(params)).fetchall()

    def frame(self, sql: str, params: Iterable[Any] = ()):
        with duckdb.connect(str(self.path), read_only=True) as con:
            return con.execute(sql, list(params)).df()

    def scalar(self, sql: str, params: Iterable[Any] = ()) -> Any:
        return self.rows(sql, params)[0][0]

    def quarantine(self) -> list[dict[str, Any]]:
        with duckdb.connect(str(self.path), read_only=True) as con:
            cursor = con.execute("select * from raw.quarantine order by source_path, source_line")
            names = [d[0] for d in cursor.description]
            return [dict(zip(names, row)) for row in cursor.fetchall()]

    def row_counts(self) -> dict[str, int]:
        """Rows in every raw table: what "a second run adds nothing" is measured on."""
        with duckdb.connect(str(self.path), read_only=True) as con:
            tables = [t for (t,) in con.execute(
                "select table_name from information_schema.tables where table_schema = 'raw' order by 1").fetchall()]
            return {t: con.execute(f'select count(*) from raw."{t}"').fetchone()[0] for t in tables}


@pytest.fixture
def warehouse(tmp_path: Path) -> Warehouse:
    return Warehouse(tmp_path / "warehouse.duckdb")


# dbt's own setting (--exclude-resource-type): the suite's builds leave out the project's dbt unit tests, which
# check the models' logic on fixed inputs whatever the warehouse holds. They took about 10 of an empty warehouse's
# 25 s build, in each of the suite's many builds. tests/models/test_dbt_unit_tests.py runs every one of them, and
# a test that is about unit tests running or not removes the setting (monkeypatch.delenv(UNIT_TESTS_OFF)).
UNIT_TESTS_OFF = "DBT_EXCLUDE_RESOURCE_TYPES"


# dbt's own setting: how much its file log (logs/dbt.log in the target) keeps. At debug, dbt's default, it writes
# every statement of every node, about a tenth of a small warehouse's build in this suite (11.3 against 10.1 s for
# the demo's, six builds each, in two alternating rounds); at info it keeps what the console shows and why dbt
# parsed in full.
# A test about the statements dbt ran sets debug for itself.
DBT_FILE_LOG_LEVEL = "DBT_LOG_LEVEL_FILE"


# dbt's own setting (--no-write-json): the suite's builds leave out manifest.json and run_results.json, which dbt
# writes after each run and no test reads but the few that pass write_json=True. Writing them took about half a
# second of every build, whatever its size (0.7 to 0.8 s against 1.2 to 1.3 s for a build of nine nodes).
ARTIFACTS_OFF = "DBT_WRITE_JSON"


@pytest.fixture(scope="session", autouse=True)
def dbt_target_of_this_session(tmp_path_factory) -> Iterator[Path]:
    """dbt's files (partial parse, compiled SQL, logs) for the builds a test starts without a target path, as
    `evalhouse build` does: in this session's temporary directory, not the project's target/. `make test` runs
    the tests in parallel workers (pytest-xdist), each a session of its own, and two builds writing one
    target/ at once could read each other's half-written partial parse. And the dbt unit tests are left out
    (UNIT_TESTS_OFF), dbt's file log keeps info, not debug (DBT_FILE_LOG_LEVEL), and dbt writes no manifest.json
    or run_results.json (ARTIFACTS_OFF), in this process's builds and in those of the processes it starts."""
    target = tmp_path_factory.mktemp("dbt_target")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DBT_TARGET_PATH", str(target))  # inherited by the build processes the tests start
        patch.setenv(UNIT_TESTS_OFF, "unit_test")
        patch.setenv(ARTIFACTS_OFF, "false")
        if DBT_FILE_LOG_LEVEL not in os.environ:  # a developer's own setting wins (debug: every statement)
            patch.setenv(DBT_FILE_LOG_LEVEL, "info")
        _reuse_the_parse_across_warehouse_paths(patch)
        _keep_a_saved_parse_per_profile_and_vars(patch, _shared_directory(tmp_path_factory) / "dbt_parses")
        yield target


def _reuse_the_parse_across_warehouse_paths(patch: pytest.MonkeyPatch) -> None:
    """dbt saves its parse of the project and reuses it while the profile stays the same, and the DuckDB file's
    path is part of the profile (dbt-duckdb's connection keys). A user builds one warehouse at one path; the tests
    build hundreds, each at a path of its own, so every in-process build parsed the whole project again (4 to 7
    s; 33 of the 66 full parses in a CI run). The path is left out of what this process's dbt compares. Nothing
    that dbt parses depends on it: no model or macro reads target.path (tests/test_conftest.py checks), and the
    database name the nodes carry, the file's name, stays in the comparison. Builds in processes of their own
    (`evalhouse build`) compare the path as dbt does."""
    from dbt.adapters.duckdb.credentials import DuckDBCredentials

    keys = DuckDBCredentials._connection_keys
    if "path" not in keys(DuckDBCredentials(path=":memory:")):
        raise RuntimeError("dbt-duckdb's connection keys no longer name the path: tests/conftest.py's "
                           "_reuse_the_parse_across_warehouse_paths needs to follow that change")
    patch.setattr(DuckDBCredentials, "_connection_keys",
                  lambda self: tuple(key for key in keys(self) if key != "path"))


def _keep_a_saved_parse_per_profile_and_vars(patch: pytest.MonkeyPatch, kept: Path) -> None:
    """dbt keeps one saved parse, in the target directory, and parses the whole project again when the next run's
    profile (the database name: the file's stem), vars or target differ from the saved one's, or when the target
    directory is new. The tests' builds take turns: the demo's warehouse, then one at built_warehouse_path; a build
    with the project's fingerprint (--vars), then one without; a target of a test's own for its artifacts. So this
    session keeps one saved parse per state dbt compares (ManifestLoader's state check: the vars, profile,
    project env vars and dbt_project.yml, and the project's folder), in `kept`, shared by the test workers, and
    gives each in-process run the one matching it before dbt reads its target's. dbt still checks every project
    file against it and reparses what differs: the saved parse only saves the parse of what did not change."""
    from dbt.parser.manifest import ManifestLoader

    kept.mkdir(exist_ok=True)
    read, write = ManifestLoader.read_manifest_for_partial_parse, ManifestLoader.write_manifest_for_partial_parse

    def paths(loader: ManifestLoader) -> tuple[Path, Path]:
        check = loader.manifest.state_check
        state = (loader.root_project.project_root, check.vars_hash.checksum, check.profile_hash.checksum,
                 check.project_env_vars_hash.checksum, sorted((name, h.checksum) for name, h in
                                                             check.project_hashes.items()))
        key = hashlib.sha256(repr(state).encode()).hexdigest()[:20]
        return kept / f"{key}.msgpack", Path(loader.root_project.project_target_path) / "partial_parse.msgpack"

    def reading(loader: ManifestLoader):
        saved, target = paths(loader)
        if saved.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(saved, target)
        return read(loader)

    def writing(loader: ManifestLoader) -> None:
        write(loader)
        saved, target = paths(loader)
        partial = saved.with_name(f"{saved.name}.{os.getpid()}")
        shutil.copyfile(target, partial)
        os.replace(partial, saved)  # whole, for the other worker reading it at the same moment

    patch.setattr(ManifestLoader, "read_manifest_for_partial_parse", reading)
    patch.setattr(ManifestLoader, "write_manifest_for_partial_parse", writing)


# What dbt parses: the project's SQL, Jinja and YAML (tests/test_conftest.py reads them for target.path).
PROJECT_FILES_DBT_PARSES = ("dbt_project.yml", "profiles.yml", "models/**/*.sql", "models/**/*.yml",
                            "macros/**/*.sql", "macros/**/*.yml", "tests/dbt/**/*.sql", "seeds/**/*.yml")


# -- built warehouses, shared by the tests that read marts ------------------------------------------------------

DEMO_END_DATE = "2026-11-21"  # the demo's last day in tests: the shifted judge's week is 2026-W45


def build_warehouse(db_path: Path, inputs: list[Path]) -> None:
    """Ingest `inputs` into `db_path` and run `dbt build` on it. dbt's own files go to the session's target
    (dbt_target_of_this_session), where the project parsed by the first build is reused by the next ones."""
    from evalhouse.build import run_dbt

    if inputs:
        ingest_paths([str(p) for p in inputs], db_path)
    else:
        from ingest.load import RawStore

        RawStore(db_path).close()  # the raw tables exist, empty
    result = run_dbt(db_path, quiet=True)
    assert result.ok, "dbt build failed:\n" + "\n".join(result.failures)


def build_retried_warehouse(root: Path) -> Warehouse:
    """A built warehouse whose quarantine holds ten lines a later run loaded and one no run could: the lm-eval samples
    file ingested under another name, then under its own, and a line that is not JSON."""
    warehouse = Warehouse(built_warehouse_path(root))
    renamed = root / "run" / "math.jsonl"
    renamed.parent.mkdir()
    renamed.write_bytes(LM_EVAL_SAMPLES.read_bytes())
    warehouse.ingest(renamed)
    warehouse.ingest(renamed.rename(renamed.with_name(LM_EVAL_SAMPLES.name)))
    warehouse.ingest(write_lines(root / "broken.jsonl", ["not json"]))
    build_warehouse(warehouse.path, [])
    return warehouse


def _shared_directory(tmp_path_factory) -> Path:
    """The temporary directory of the whole test session: with workers (pytest-xdist), the one their own share."""
    basetemp = tmp_path_factory.getbasetemp()
    return basetemp.parent if os.environ.get("PYTEST_XDIST_WORKER") else basetemp


class SharedBuildFailed(Exception):
    """What built_once raises in a worker whose shared build failed in another worker: that build's error."""


def built_once(tmp_path_factory, name: str, build: Callable[[Path], None]) -> Path:
    """The directory `name`, made by build(directory) once for the whole test session. `make test` runs the tests in
    parallel workers (pytest-xdist), each a pytest session with session fixtures of its own, and each had built the
    demo warehouse (30 to 40 s) for itself. The first worker to ask builds it, holding an exclusive lock on a file
    in the directory the workers' temporary directories share (pytest-xdist's "Making session-scoped fixtures
    execute only once"); the others wait for the lock and use what it built. A failed build is recorded and fails
    every test that asks for it, in every worker, with the build's error (none waits for or repeats it); a worker
    killed while building leaves no record, and the next one to ask builds afresh. What this makes is shared:
    tests read it and never write to it (DuckDB lets processes open a file together read-only, but a process that
    opens it to write fails while another has it open, and makes the others' opens fail): a test that writes
    works on a copy of its own."""
    shared = _shared_directory(tmp_path_factory)
    directory, built, failed = shared / name, shared / f"{name}.built", shared / f"{name}.failed"
    with (shared / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or when this worker dies
        if failed.exists():
            raise SharedBuildFailed(f"{name}, built once for this test session, failed in another test worker "
                                    f"(the error below): fix that and run the tests again\n{failed.read_text()}")
        if not built.exists():
            shutil.rmtree(directory, ignore_errors=True)  # what a worker killed while building left
            directory.mkdir()
            try:
                build(directory)
            except Exception:
                failed.write_text(traceback.format_exc())
                raise
            built.touch()
    return directory


@pytest.fixture(scope="session")
def demo_dir(tmp_path_factory) -> Path:
    """The demo's landing folder, generated once per test session (built_once). Read it; never write to it."""
    import datetime as dt

    from evalhouse.demo.generate import generate_demo

    def generate(directory: Path) -> None:
        generate_demo(directory / "landing", end_date=dt.date.fromisoformat(DEMO_END_DATE))

    return built_once(tmp_path_factory, "demo", generate) / "landing"


@pytest.fixture(scope="session")
def demo_warehouse(demo_dir, tmp_path_factory) -> Warehouse:
    """The demo data, ingested and built once per test session (built_once), shared by the workers. Read it;
    never write to it, nor give its path to anything that opens it to write (dbt does): copy it."""
    root = built_once(tmp_path_factory, "demo_warehouse",
                      lambda directory: build_warehouse(directory / "demo.duckdb", [demo_dir]))
    return Warehouse(root / "demo.duckdb")


@pytest.fixture(scope="session")
def empty_warehouse(tmp_path_factory) -> Warehouse:
    """A warehouse with every table and mart, and no data, built once per test session (built_once). Read it;
    never write to it: copy it."""
    root = built_once(tmp_path_factory, "empty_warehouse",
                      lambda directory: build_warehouse(built_warehouse_path(directory), []))
    return Warehouse(built_warehouse_path(root))
