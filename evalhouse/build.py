"""`evalhouse build`: run `dbt build` (models, seeds and tests) against one warehouse file.

`run_dbt` runs dbt in this process (tests, docs); `build_warehouse` runs it in a process of its own that keeps
the file open for the whole build, closes it at the end and exits (`python -m evalhouse.build DB RESULT.json
PARENT`).
That process dies with the `evalhouse build` that started it: killed or crashed, a build never leaves a dbt
process behind holding the working copy, where the next writer, finding the writer lock free, would meet DuckDB's lock.

Incremental models read only what is new since the last build, which is right only if the project that built the
rest is the same: a successful build records the project's fingerprint (models, macros, seeds, dbt_project.yml) in
the warehouse, and a build that finds another one rebuilds every model in full (`dbt build --full-refresh`). So does
one that finds the marts built with other vars than dbt_project.yml's (marts.rpt_build_settings, which a dbt run
given --vars writes), since every mart the next build leaves alone would keep them.

A build runs only what the new data touches: a successful build also records how many rows each source table
held, and since the raw tables only ever grow, the next build selects the models downstream of the sources that
grew (`dbt build --select source:aif.eval_forms+ ...`), plus the models that read the build's own clock (tag
as_of_build). Everything else is left as the last build wrote it, which is what rebuilding it would give. So are
the views among the selected models: a view is a query DuckDB runs as it is read, and its SQL is the project's,
unchanged since the build that created it (the fingerprint); their tests still run.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path

import duckdb

from evalhouse.lifetime import die_with_parent
from evalhouse.settings import PROJECT_ROOT

# What decides what the models compute: a change to any of these makes the next build a full one.
FINGERPRINTED = ("models", "macros", "seeds", "dbt_project.yml")
BUILD_STATE = "main.evalhouse_build_state"  # written by the on-run-end hooks in macros/build_state.sql
BUILD_SOURCES = "main.evalhouse_build_sources"
BUILD_SETTINGS = "marts.rpt_build_settings"  # the vars the marts were built with, one column each
AS_OF_BUILD = "tag:as_of_build+"  # models that read the build's clock: built every time
VIEWS = "config.materialized:view"


class WorkingCopyHeld(Exception):
    """dbt's process could not open the file to build: another process (a DuckDB shell, a notebook) holds it.
    Its message is DuckDB's, which names that process."""


@dataclass(frozen=True)
class BuildResult:
    ok: bool
    failures: tuple[str, ...]  # "model.evalhouse.fct_x: message" for each error or failed test
    nodes: tuple[str, ...]  # the unique id of every node the run ran ("model.evalhouse.fct_x", "test...")

    @property
    def n_nodes(self) -> int:
        return len(self.nodes)


def project_fingerprint() -> str:
    """sha256 over the paths and contents of the files that decide what the models compute."""
    digest = hashlib.sha256()
    for name in FINGERPRINTED:
        root = PROJECT_ROOT / name
        for path in sorted(root.rglob("*")) if root.is_dir() else [root]:
            if path.is_file():
                digest.update(f"{path.relative_to(PROJECT_ROOT)}\0".encode() + path.read_bytes() + b"\0")
    return digest.hexdigest()


@dataclass(frozen=True)
class BuildPlan:
    full_refresh: bool
    select: tuple[str, ...] | None  # dbt selectors; None builds every node
    reason: str  # what the build will do and why, for the person who ran it

    @property
    def exclude_resource_types(self) -> tuple[str, ...]:
        """Unit tests check the models' logic on fixed inputs, not the data. A build that runs only what new data
        touches is planned only when the project is the one whose last build passed (the fingerprint), unit tests
        included, so it leaves them out; a build of every node runs them."""
        return ("unit_test",) if self.select is not None else ()

    @property
    def exclude(self) -> tuple[str, ...]:
        """The views, in a build of what new data touches: recreating one with the same SQL changes nothing. Their
        tests stay selected (run_dbt excludes without indirect selection). This holds while no view's SQL carries
        a value of the build that compiled it (run_started_at, say): a model that must show the build's clock is a
        table tagged as_of_build, as rpt_review_backlog is."""
        return (VIEWS,) if self.select is not None else ()


def plan_build(db_path: Path, fingerprint: str, con: duckdb.DuckDBPyConnection | None = None) -> BuildPlan:
    """In full when the project changed since the last build; otherwise the models downstream of the sources
    that received rows since it (every model when the warehouse has no record of its last build). Read through
    `con` when given (the build's own connection to the file), else a read-only one of its own."""
    with duckdb.connect(str(db_path), read_only=True) if con is None else nullcontext(con) as con:
        built = _built_fingerprint(con)
        if built is not None and built != fingerprint:
            return BuildPlan(True, None, "the project (models, macros or seeds) changed since the last build: "
                                         "every model is rebuilt in full")
        other_vars = _vars_other_than_the_projects(con)
        if other_vars:
            return BuildPlan(True, None, f"the marts were built with other dbt vars than dbt_project.yml's "
                                         f"({'; '.join(other_vars)}): every model is rebuilt in full")
        grown = _grown_sources(con) if built is not None else None
    if grown is None:
        return BuildPlan(False, None, "")
    if not grown:
        return BuildPlan(False, (AS_OF_BUILD,), "nothing new since the last build: only the models that read "
                                                "the build's clock are refreshed")
    names = ", ".join(f"{source}.{table}" for source, table in grown)
    return BuildPlan(False, (*(f"source:{source}.{table}+" for source, table in grown), AS_OF_BUILD),
                     f"new rows in {names}: building the models that depend on them")


def built_fingerprint(db_path: Path) -> str | None:
    """The fingerprint of the project the warehouse was last built with; None if it never was (or not since
    fingerprints were recorded)."""
    with duckdb.connect(str(db_path), read_only=True) as con:
        return _built_fingerprint(con)


def _built_fingerprint(con: duckdb.DuckDBPyConnection) -> str | None:
    row = con.execute(f"select fingerprint from {BUILD_STATE}").fetchone() if _exists(con, BUILD_STATE) else None
    return row[0] if row else None


def _vars_other_than_the_projects(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Each var whose value in marts.rpt_build_settings differs from dbt_project.yml's ("drift_alert_z 3.0 where
    dbt_project.yml has 4.0"): the last run of the marts was given --vars (dbt run by hand; `evalhouse build` passes
    none). Empty when they agree, or when there is no such record (built before the mart existed)."""
    from evalhouse.dbt_vars import dbt_var

    if not _exists(con, BUILD_SETTINGS):
        return []
    cursor = con.execute(f"select * from {BUILD_SETTINGS}")
    names = [column[0] for column in cursor.description]
    row = cursor.fetchone()
    if row is None:
        return []
    differ = []
    for name, built in zip(names, row):
        declared = dbt_var(name, None)  # None: not a var (built_at, a value derived from the vars)
        if declared is not None and _comparable(declared) != _comparable(built):
            differ.append(f"{name} {built} where dbt_project.yml has {declared}")
    return differ


def _comparable(value: object) -> object:
    """A var as the mart stores it: numbers as floats (4 and 4.0 are one value), a list joined with ', '."""
    if isinstance(value, (list, tuple)):
        return ", ".join(str(item) for item in value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return value


def _grown_sources(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str]] | None:
    """(source, table) of every source table holding more rows than when the last build read it; None when that
    cannot be told (no record, or a recorded table missing or smaller), which means: build everything."""
    if not _exists(con, BUILD_SOURCES):
        return None
    grown = []
    recorded = con.execute(f"select source_name, table_name, table_schema, table_identifier, n_rows "
                           f"from {BUILD_SOURCES} order by source_name, table_name").fetchall()
    for source, table, schema, identifier, n_rows in recorded:
        if not _exists(con, f"{schema}.{identifier}"):
            return None
        now = con.execute(f'select count(*) from "{schema}"."{identifier}"').fetchone()[0]
        if now < n_rows:
            return None
        if now > n_rows:
            grown.append((source, table))
    return grown


def _exists(con: duckdb.DuckDBPyConnection, qualified: str) -> bool:
    return con.execute("select count(*) from information_schema.tables "
                       "where table_schema || '.' || table_name = ?", [qualified]).fetchone()[0] > 0


def run_dbt(db_path: Path, command: Sequence[str] = ("build",), *, target_path: Path | None = None,
            quiet: bool = False, target: str | None = None, full_refresh: bool = False,
            fingerprint: str | None = None, select: Sequence[str] | None = None,
            exclude: Sequence[str] = (), exclude_resource_types: Sequence[str] = (),
            write_json: bool | None = None) -> BuildResult:
    """Run a dbt command on the project with EVALHOUSE_DB pointing at `db_path`, in this process. With a
    fingerprint, a build that passes records it (the on-run-end hooks). write_json False: dbt leaves out
    manifest.json and run_results.json (the result says what ran and failed; target/logs/dbt.log keeps all); True:
    it writes them whatever DBT_WRITE_JSON says; None: as DBT_WRITE_JSON says (dbt writes them unless it is false)."""
    from dbt.cli.main import dbtRunner  # imported late: dbt is slow to import and not needed by ingest

    args = [*command, "--project-dir", str(PROJECT_ROOT), "--profiles-dir", str(PROJECT_ROOT)]
    if full_refresh:
        args += ["--full-refresh"]
    if select is not None:
        args += ["--select", *select]
    if exclude:
        # Only the nodes named: dbt's default (eager) would also leave out every test of an excluded model.
        args += ["--exclude", *exclude, "--indirect-selection", "empty"]
    if exclude_resource_types:
        args += ["--exclude-resource-type", *exclude_resource_types]
    if fingerprint is not None:
        args += ["--vars", json.dumps({"project_fingerprint": fingerprint})]
    if target is not None:
        args += ["--target", target]
    if target_path is not None:
        args += ["--target-path", str(target_path)]
    if quiet:
        args += ["--quiet"]
    if write_json is not None:
        args += ["--write-json" if write_json else "--no-write-json"]
    target_dir = dbt_target_dir(target_path)
    held = _hold_for_the_run(db_path, command, target)
    try:
        with _environment(EVALHOUSE_DB=str(db_path), DBT_LOG_PATH=str(target_dir / "logs")):
            result = dbtRunner().invoke(args)
    finally:
        if held is not None:
            held.close()  # the last connection: DuckDB checkpoints the run's writes into the file, once
    failures: list[str] = []
    nodes: list[str] = []
    if result.result is not None and hasattr(result.result, "results"):
        for node_result in result.result.results:
            nodes.append(node_result.node.unique_id)
            if str(node_result.status) in ("error", "fail", "runtime error"):
                failures.append(f"{node_result.node.unique_id}: {node_result.message}")
    if result.exception is not None:
        failures.append(f"dbt could not run: {result.exception}")
    return BuildResult(result.success and not failures, tuple(failures), tuple(nodes))


def _hold_for_the_run(db_path: Path, command: Sequence[str],
                      target: str | None) -> duckdb.DuckDBPyConnection | None:
    """A connection for run_dbt to hold while dbt builds on the profile's default target, or None. That target
    keeps no connection open (keep_open: false: nothing holds the file once dbt returns), so dbt would close the
    file after each model and test and open it again for the next: DuckDB reads the catalog on each open and
    checkpoints on each close. Held, dbt's connections share this one's database, as in `evalhouse build` (_hold);
    the demo's full build took 8.9 to 9.9 s against 10.5 to 11.0 s (three warm builds each, alternating). None for
    the other targets (`build` keeps its own open, `docs` reads only), for a command that writes nothing, and when
    this process cannot open the file (another process holds it: dbt meets the lock and says so)."""
    if target is not None or not command or command[0] not in ("build", "run", "seed", "test"):
        return None
    try:
        return duckdb.connect(str(db_path))
    except duckdb.Error:
        return None


def dbt_target_dir(target_path: Path | None = None) -> Path:
    """Where dbt writes its files (logs, the saved parse, compiled SQL): `target_path` when given, else
    DBT_TARGET_PATH, which dbt itself reads when no --target-path is given (the tests give each session its own),
    else the project's target/."""
    return target_path or Path(os.environ.get("DBT_TARGET_PATH") or PROJECT_ROOT / "target")


@contextmanager
def _environment(**values: str) -> Iterator[None]:
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, old in saved.items():
            if old is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = old


def build_warehouse(db_path: Path) -> BuildResult:
    """`dbt build` in a process of its own, its output shown as it runs; the file's lock ends with the process."""
    with tempfile.TemporaryDirectory(prefix="evalhouse-build-") as scratch:
        result_file = Path(scratch) / "result.json"
        code = subprocess.call([sys.executable, "-m", "evalhouse.build", str(db_path), str(result_file),
                                str(os.getpid())], cwd=PROJECT_ROOT)
        if not result_file.exists():
            return BuildResult(False, (f"the dbt process ended without a result (exit {code})",), ())
        data = json.loads(result_file.read_text())
    if data.get("held"):
        raise WorkingCopyHeld(data["held"])
    return BuildResult(data["ok"], tuple(data["failures"]), tuple(data["nodes"]))


def build_in_process(db_path: Path, *, target: str | None = None, target_path: Path | None = None,
                     quiet: bool = False, write_json: bool | None = None,
                     con: duckdb.DuckDBPyConnection | None = None) -> BuildResult:
    """What `evalhouse build` runs: in full when the project changed since the warehouse's last build,
    otherwise what the new data touches (plan_build), recording the project's fingerprint if it passes. `con`: a
    connection this process holds to the file, which the plan is read through."""
    fingerprint = project_fingerprint()
    plan = plan_build(db_path, fingerprint, con)
    if plan.reason:
        print(plan.reason, flush=True)
    return run_dbt(db_path, target=target, target_path=target_path, quiet=quiet, fingerprint=fingerprint,
                   full_refresh=plan.full_refresh, select=plan.select, exclude=plan.exclude,
                   exclude_resource_types=plan.exclude_resource_types, write_json=write_json)


def _close_kept_open(held: duckdb.DuckDBPyConnection) -> str | None:
    """Close the warehouse file: `held` (see _main), then the connection dbt kept open for the whole build (the
    `build` target's keep_open), the last one, whose closing writes the write-ahead log into the file (DuckDB's
    checkpoint on close). Returns why that failed, or None: a build whose file cannot be closed is not published.
    Publishing checkpoints again and finds nothing left; a build killed before this leaves its log beside the
    working copy, which the next writer's DuckDB replays."""
    from dbt.adapters.duckdb.connections import DuckDBConnectionManager

    try:
        held.close()  # dbt's connection, when it made one, keeps the database open: nothing is written yet
        environment = DuckDBConnectionManager.env()
    except duckdb.Error as exc:  # dbt never connected, and closing `held` checkpointed and failed
        return f"the warehouse file could not be closed after the build (DuckDB's checkpoint failed): {exc}"
    except Exception:  # dbt never connected (it stopped before running a node): `held` was the last, and closed
        return None
    try:
        environment.close()
    except Exception as exc:  # duckdb.Error, OSError (a full disk): the build's writes are not in the file
        return f"the warehouse file could not be closed after the build (DuckDB's checkpoint failed): {exc}"
    return None


def _hold(db_path: Path) -> duckdb.DuckDBPyConnection | str:
    """A connection to the file this process builds, opened before anything else, or DuckDB's message when another
    process holds the file. Held to the end of the build: dbt's own connection (the same file, the same settings)
    shares its database, so from this open to the build's end no other process can open the file. Checked in the
    parent and closed, it would be open to anyone while dbt imports and parses, which takes seconds: a DuckDB shell
    opened then made the build fail (exit 1) instead of finding it busy (exit 3)."""
    try:
        return duckdb.connect(str(db_path))
    except duckdb.IOException as exc:
        if "lock" not in str(exc).lower():
            raise
        return str(exc)


def _main(argv: Sequence[str]) -> int:
    db_path, result_file = Path(argv[0]), Path(argv[1])
    if len(argv) > 2 and not die_with_parent(int(argv[2])):
        return 1  # the `evalhouse build` that started this is gone: nothing may be published
    held = _hold(db_path)
    if isinstance(held, str):
        result_file.write_text(json.dumps({"ok": False, "failures": [], "nodes": [], "held": held}))
        return 1
    # No manifest.json or run_results.json: writing the manifest alone took half a second of every build.
    result = build_in_process(db_path, target="build", write_json=False, con=held)
    closing_failed = _close_kept_open(held)
    if closing_failed is not None:
        result = BuildResult(False, (*result.failures, closing_failed), result.nodes)
    outcome = {"ok": result.ok, "failures": list(result.failures), "nodes": list(result.nodes)}
    result_file.write_text(json.dumps(outcome))
    return 0 if result.ok else 1


def _exit_without_teardown(code: int) -> None:
    """End this process once its work is saved: the exit handlers run (logging's flush, multiprocessing's
    semaphores), the interpreter's teardown does not. Freeing dbt's objects one by one took 0.54 s of the
    benchmark's incremental build (a profiling copy, one measure), after the result was written and the file
    closed."""
    import atexit

    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    _exit_without_teardown(_main(sys.argv[1:]))
