"""The operations behind the `evalhouse` commands, composed from ingest, dbt build, publishing and the app.

Every write happens under the writer lock, on the working copy (evalhouse/publish.py); the published file is
replaced, whole, only when a build passed. So `evalhouse ingest` alone changes nothing readers see: the next
`evalhouse build` publishes it.
"""

from __future__ import annotations

import datetime as dt
import io
import os
import re
import shlex
import shutil
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from evalhouse import build_status
from evalhouse.build import BuildResult, WorkingCopyHeld, build_warehouse, dbt_target_dir, run_dbt
from evalhouse.exit_codes import EXIT_FAILED, EXIT_OK
from evalhouse.lock import WarehouseBusy, writer_lock
from evalhouse.ports import check_free
from evalhouse.publish import prepare_working_copy, publish, working_copy
from evalhouse.settings import DEFAULT_DB, PROJECT_ROOT, Settings

if TYPE_CHECKING:  # the ingest pipeline (pyarrow, jsonschema: a fifth of a second) is imported where it runs
    from ingest.pipeline import IngestOptions, ProgressFn, RunSummary

REPORTS_DIR = PROJECT_ROOT / "reports"  # where `evalhouse demo` writes the default warehouse's report (git-ignored)
# Under the landing folder: what the demo generates, and what the app and the API save (reviews, ratings, posted
# records) while they serve the demo's warehouse (saves_folder). A demo run replaces it.
DEMO_FOLDER = "demo"
APP_HOST = "localhost"  # where `evalhouse serve` listens
SHOWN_PATHS = 5  # an ingest's paths named in the command the build status keeps to run it again


class DemoRefused(Exception):
    """The demo would replace a warehouse that holds records from files that are not the demo's."""


class NotBuilt(Exception):
    """No warehouse has been published at --db yet, so there is nothing to read: the message says to build first."""


def ingest(settings: Settings, paths: Sequence[str | Path], options: IngestOptions | None = None,
           progress: ProgressFn | None = None, wait_seconds: float = 0) -> RunSummary:
    """Validate and load files into the working copy (published by the next build). The build status beside the
    warehouse tells readers what is loaded and not published: it records the ingest's start before it loads, and
    each file as it is loaded, so an ingest killed part way is told too (evalhouse/build_status.py)."""
    from ingest.pipeline import IngestOptions, ingest_paths

    options = options if options is not None else IngestOptions()
    with writer_lock(settings.db_path, "ingest", wait_seconds):
        _note_if_working_copy_gone(settings)
        work = prepare_working_copy(settings.db_path)
        unfinished = build_status.record_ingest_start(settings.db_path, _ingest_command(settings, paths, options))
        if unfinished is not None:
            print(f"evalhouse: note: {build_status.unfinished_ingest_note(unfinished)}", file=sys.stderr)
        loaded_any = False

        def record(outcome) -> None:  # each file as it is loaded: killed after it, it is counted
            nonlocal loaded_any
            build_status.record_file(settings.db_path, outcome)
            loaded_any = loaded_any or bool(outcome.accepted or outcome.quarantined)

        try:
            with _held_is_busy(settings.db_path):
                summary = ingest_paths(paths, work, options, progress, landing=settings.landing, loaded=record)
        except BaseException:
            # Stopped part way (Ctrl+C, an error of the whole run) after loading files: readers are told it did not
            # finish, as for a killed ingest. Before loading any (busy, a path that does not exist), nothing to tell.
            if not loaded_any:
                build_status.record_ingest_end(settings.db_path)
            raise
        build_status.record_ingest_end(settings.db_path)
        return summary


def _ingest_command(settings: Settings, paths: Sequence[str | Path], options: IngestOptions) -> str:
    """The command that runs this ingest again, from any folder (its paths made absolute; more than SHOWN_PATHS of
    them counted, to keep the build status small), for the notice of an ingest that did not finish."""
    from ingest.sources import DEFAULT_MAX_RECORD_BYTES

    words = ["--strict"] if options.strict else []
    words += ["--format", options.forced_format] if options.forced_format else []
    words += ["--max-record-bytes", str(options.max_record_bytes)] \
        if options.max_record_bytes != DEFAULT_MAX_RECORD_BYTES else []
    shown = [os.path.abspath(p) for p in paths[:SHOWN_PATHS]]
    more = len(paths) - len(shown)
    return (f"{_command(settings, 'ingest')} {shlex.join(words + shown)}".rstrip()
            + (f" … (and {more:,} more paths)" if more else ""))


def build(settings: Settings, wait_seconds: float = 0) -> BuildResult:
    """dbt build on the working copy; publish it only if every model and test passed. Either way the build status
    beside the warehouse says how it went, for readers (evalhouse/build_status.py): it records the build's start
    before it runs, so a build killed part way is told too."""
    with writer_lock(settings.db_path, "build", wait_seconds):
        _note_if_working_copy_gone(settings)
        work = prepare_working_copy(settings.db_path)
        from ingest.load import RawStore

        # The raw tables the models read, as this version's ingester creates them: empty in a first build with
        # nothing ingested, and those added since an older version last ingested into the file (its DDL creates
        # only what is missing), which dbt's sources would otherwise not find.
        with _held_is_busy(settings.db_path):
            RawStore(work).close()
        with _recorded(settings, "build"):
            # A process holding the working copy is found by dbt's process as it opens the file, which it then holds
            # to the end (build.WorkingCopyHeld): busy (exit 3), not a failed build (exit 1).
            with _held_is_busy(settings.db_path):
                result = build_warehouse(work)
            # dbt's process has let go of the file, and publishing opens it to checkpoint: a connection opened in
            # between (no process can hold the file for another) is found there.
            with _held_is_busy(settings.db_path, "so the build, which passed, was not published"):
                _publish_if_passed(settings, result)
        return result


@contextmanager
def _held_is_busy(published: Path, outcome: str = "so nothing was written") -> Iterator[None]:
    """Raise WarehouseBusy, naming the file and the process, when DuckDB cannot lock the working copy (here, or in
    dbt's process: WorkingCopyHeld): the writer lock was free, so a process outside evalhouse (a DuckDB shell, a
    notebook, a script) has a connection to it, read-only or not. `outcome` says what that left undone."""
    try:
        yield
    except (duckdb.IOException, WorkingCopyHeld) as exc:
        if not isinstance(exc, WorkingCopyHeld) and "lock" not in str(exc).lower():
            raise
        holder = re.search(r"held in (.+?) \(PID (\d+)\)", str(exc))
        who = f" (PID {holder.group(2)}, {Path(holder.group(1)).name})" if holder else ""
        raise WarehouseBusy(
            f"{working_copy(published)}, the working copy that ingest and build write, is open in another "
            f"process{who}, {outcome}. Close that DuckDB connection (a shell, notebook or script; a "
            f"read-only one holds the file too: read the published {published.name} instead) and run this again."
        ) from None


def _command(settings: Settings, action: str) -> str:
    """The command a user runs to do `action` again on this warehouse ("evalhouse --db 'my w.duckdb' build")."""
    return shlex.join(["evalhouse", *(["--db", str(settings.db_path)] if settings.db_path != DEFAULT_DB else []),
                       action])


@contextmanager
def _recorded(settings: Settings, action: str) -> Iterator[None]:
    """The build status records the start of a build before it runs (killed, it stays: readers say the build did
    not finish), and an exception that stops it (busy: nothing ran, so nothing is recorded). Its end is recorded by
    _publish_if_passed."""
    build_status.record_start(settings.db_path, _command(settings, action))
    try:
        yield
    except WarehouseBusy:
        build_status.record_not_run(settings.db_path)
        raise
    except BaseException as exc:
        reason = "interrupted (Ctrl+C)" if isinstance(exc, KeyboardInterrupt) else f"{type(exc).__name__}: {exc}"
        with suppress(Exception):  # the exception that stopped the build is the one to report
            build_status.record_stopped(settings.db_path, reason, see_why=_command(settings, action))
        raise


def _note_if_working_copy_gone(settings: Settings, out=None) -> None:
    """A working copy deleted by hand takes with it what was ingested and not published, which the next build
    cannot publish: the build status stops calling it unpublished and says it was discarded (until a build passes),
    and this says so to whoever runs the command, naming the files to ingest again."""
    if working_copy(settings.db_path).exists():
        return
    gone = build_status.record_working_copy_gone(settings.db_path)
    if gone is not None:
        print(f"evalhouse: note: {working_copy(settings.db_path)} is gone. {build_status.discarded_note(gone)}",
              file=out or sys.stderr)


def _check_working_copy_not_held(published: Path) -> None:
    """Raise WarehouseBusy when a DuckDB connection outside evalhouse holds the working copy (under the writer lock:
    evalhouse's own writers are not there). For a rebuild or the demo, which replace the working copy: an outside
    connection would go on reading, or worse writing into, a file they delete."""
    work = working_copy(published)
    if work.exists():
        with _held_is_busy(published):
            duckdb.connect(str(work)).close()


def _publish_if_passed(settings: Settings, result: BuildResult) -> None:
    """Publish a build that passed, and record the attempt in the build status either way (a publish that raises
    is recorded as a failed build, then raised)."""
    see_why = _command(settings, "build")
    log = dbt_target_dir() / "logs" / "dbt.log"
    if not result.ok:
        build_status.record_build(settings.db_path, passed=False, failures=result.failures, see_why=see_why, log=log)
        return
    try:
        publish(settings.db_path)
    except BaseException as exc:
        build_status.record_build(settings.db_path, passed=False, see_why=see_why, log=log,
                                  failures=(f"the build passed but publishing it failed: {exc!r}",))
        raise
    build_status.record_build(settings.db_path, passed=True, see_why=see_why)


def docs(settings: Settings, *, quiet: bool = False) -> BuildResult:
    """dbt docs (index.html, manifest.json, catalog.json in dbt's target folder) of the published warehouse, read
    as the app and analysts read it: through the profile's read-only `docs` target. A writer never opens the
    published file (publishing replaces it by a rename), so this neither waits for nor holds off anyone, and it
    describes what readers see, not the working copy's unpublished state. Raises NotBuilt when nothing is
    published at --db yet."""
    if not settings.db_path.exists():
        raise NotBuilt(f"no published warehouse at {settings.db_path}: run `evalhouse build` (or `make demo`) first, "
                       "or pass --db PATH")
    return run_dbt(settings.db_path, ("docs", "generate"), target="docs", quiet=quiet, write_json=True)


@dataclass(frozen=True)
class IngestedFile:
    """A file the manifest says was ingested, and the options it was ingested with."""

    path: str
    sha256: str
    strict: bool
    forced_format: str | None
    max_record_bytes: int | None  # None: ingested before the manifest kept the limit (so, most likely, the default)
    # Its place in the landing folder it was ingested from; None: outside it, or before the manifest kept it.
    path_in_landing: str | None = None

    def current_path(self, landing: Path) -> Path:
        """Where the file is now: where it was, or, when that is gone and it was ingested from a landing folder, at
        its place in `landing` (source_path is absolute, and the project or its landing folder may have moved)."""
        from ingest.path_text import path_from_text  # a name not UTF-8 is kept with \xNN escapes

        where = path_from_text(self.path)
        if where.exists() or self.path_in_landing is None:
            return where
        there = path_from_text(str(landing / self.path_in_landing))
        return there if there.exists() else where

    def is_the_demos(self, settings: Settings) -> bool:
        """Whether it is one of the demo's files (its sample data, or what the app or the API saved for it)."""
        if self.path_in_landing is not None and Path(self.path_in_landing).parts[:1] == (DEMO_FOLDER,):
            return True
        return Path(self.path).is_relative_to(demo_folder(settings))


@dataclass(frozen=True)
class IngestRun:
    """Inputs ingested together, with one set of options (None: the defaults)."""

    paths: tuple[str, ...]
    options: IngestOptions | None = None


def previously_ingested(db_path: Path) -> list[IngestedFile]:
    """Every file the warehouse holds records from, with its checksum and options as its manifest recorded
    them, in the order they were first ingested."""
    if not db_path.exists():
        return []
    with duckdb.connect(str(db_path), read_only=True) as con:
        # A warehouse no ingest has opened since the manifest began to keep these lacks their columns. (Read from
        # the table itself: information_schema lists every mart's columns too, and takes longer than the manifest.)
        kept = {column[0] for column in con.execute("select * from raw.ingest_files limit 0").description}
        limit = "max_record_bytes" if "max_record_bytes" in kept else "cast(null as bigint) as max_record_bytes"
        place = "path_in_landing" if "path_in_landing" in kept else "cast(null as varchar) as path_in_landing"
        rows = con.execute(
            f"select source_path, file_sha256, strict, forced_format, {limit}, {place} from raw.ingest_files "
            "where status <> 'failed' group by all order by min(started_at), source_path"
        ).fetchall()
    return [IngestedFile(*row) for row in rows]


def rebuild(settings: Settings, *, out=None) -> bool:
    """A fresh warehouse from every file ingested before, each with the options it was ingested with (--strict,
    --format and --max-record-bytes decide what loads), plus the landing folder; reports changed and vanished
    files. A file ingested from the landing folder that is gone from where it was is looked for at its place in
    today's landing folder, so a rebuild after the project moved finds it (IngestedFile.current_path). What to load
    is read under the writer lock, so an ingest cannot slip in between the reading and the fresh working copy."""
    out = out or sys.stdout
    return fresh_build(settings, lambda: _rebuild_runs(settings, out), out=out)


def _rebuild_runs(settings: Settings, out) -> list[IngestRun]:
    """What a rebuild loads, in order (see rebuild), printing the files that vanished or changed."""
    from ingest.path_text import path_text
    from ingest.pipeline import IngestOptions
    from ingest.sources import DEFAULT_MAX_RECORD_BYTES, file_sha256, find_inputs

    runs: list[IngestRun] = []
    # The working copy knows every ingest, including those no build has published yet.
    manifest = working_copy(settings.db_path) if working_copy(settings.db_path).exists() else settings.db_path
    ingested = [(entry, entry.current_path(settings.landing)) for entry in previously_ingested(manifest)]
    loaded_shas: dict[Path, set[str]] = {}
    for entry, path in ingested:
        loaded_shas.setdefault(path, set()).add(entry.sha256)
    current: dict[Path, str | None] = {}
    for entry, path in ingested:
        in_landing = path.is_relative_to(settings.landing)  # the app and the API write there: no news to report
        if path not in current:
            current[path] = file_sha256(path)[0] if path.exists() else None
            if current[path] is None and not in_landing:
                print(f"vanished: {path} (its records are not in the rebuilt warehouse)", file=out)
            elif current[path] not in loaded_shas[path] and not in_landing:
                print(f"changed: {path} (its current content is loaded, not what was loaded before)", file=out)
        if current[path] is None:
            continue
        limit = entry.max_record_bytes if entry.max_record_bytes is not None else DEFAULT_MAX_RECORD_BYTES
        options = IngestOptions(strict=entry.strict, forced_format=entry.forced_format, max_record_bytes=limit)
        if runs and runs[-1].options == options:
            runs[-1] = IngestRun((*runs[-1].paths, str(path)), options)
        else:
            runs.append(IngestRun((str(path),), options))
    if settings.landing.exists():  # what the manifest does not know yet, with the defaults
        demo_dir = demo_folder(settings)
        kinds = {entry.is_the_demos(settings) for entry, _ in ingested}
        landed = find_inputs([str(settings.landing)], each_names_input=False)  # an empty landing folder is fine
        for item in landed.left_out:  # as an ingest of the folder says them: a rebuild does not read them either
            print(f"left out: {path_text(item.path)}: {item.reason}", file=out)
        unknown = [p for p in landed.files if p not in loaded_shas]
        # The demo's folder joins only a warehouse that holds the demo's data already, and the rest of the landing
        # folder (a team's files, what an app or API on a team's warehouse saved) only one that holds more than the
        # demo's: a rebuild keeps the demo's warehouse the demo's, so the next demo run does not refuse it.
        new = tuple(str(p) for p in unknown if (True in kinds if p.is_relative_to(demo_dir) else kinds != {True}))
        left_out = [p for p in unknown if kinds == {True} and not p.is_relative_to(demo_dir)]
        if left_out:
            shown = ", ".join(str(p) for p in left_out[:3]) + (f" and {len(left_out) - 3} more"
                                                                if len(left_out) > 3 else "")
            print(f"left out: {len(left_out)} file(s) of {settings.landing} that are not the demo's ({shown}): "
                  f"{settings.db_path} holds the demo's data alone. Load them into a warehouse of their own "
                  f"(--db PATH: README, Loading your own data), or `evalhouse ingest` them into this one to mix "
                  f"them with the demo's.", file=out)
        if new:
            runs.append(IngestRun(new))
    return runs


def fresh_build(settings: Settings, runs: Sequence[IngestRun] | Callable[[], Sequence[IngestRun]], *, out=None,
                guard: Callable[[], None] | None = None, action: str = "rebuild") -> bool:
    """A new working copy from `runs` alone (or what `runs()` returns, asked under the writer lock), in order,
    built, and published if the build passed. `guard` runs under the writer lock before anything is replaced, and
    may raise to leave the warehouse as it is. `action` names the command, to run it again ("rebuild", "demo").

    Busy (WarehouseBusy, exit 3) when a DuckDB connection outside evalhouse holds the working copy, before anything
    is replaced. From then on the new working copy is held: by this process while it loads (the ingest's own
    connections share it), then by dbt's process from its first open to its end (evalhouse/build.py). What is
    left is the moment between the two, when neither process can hold it for the other (DuckDB's lock belongs to
    the process that opens the file): a connection opened just then makes dbt's process find it held, busy."""
    from ingest.cli import Progress, print_summary
    from ingest.load import RawStore
    from ingest.pipeline import IngestOptions, ingest_paths

    out = out or sys.stdout
    with writer_lock(settings.db_path, action):
        _check_working_copy_not_held(settings.db_path)
        if guard is not None:
            guard()
        _note_if_working_copy_gone(settings)
        runs = runs() if callable(runs) else runs
        with _recorded(settings, action):
            work = prepare_working_copy(settings.db_path, fresh=True)
            build_status.start_rebuild(settings.db_path)
            with _held_is_busy(settings.db_path):
                store = RawStore(work)  # the raw tables exist even when there is nothing to ingest
            try:
                for run in runs:
                    summary = ingest_paths(run.paths, work, run.options or IngestOptions(), Progress(),
                                           landing=settings.landing)
                    build_status.record_summary(settings.db_path, summary)
                    print_summary(summary, "table", out)
            finally:
                store.close()
            with _held_is_busy(settings.db_path, "so the rebuild was loaded into it and not built: once it is "
                                                 "closed, `evalhouse build` builds and publishes it"):
                result = build_warehouse(work)
            with _held_is_busy(settings.db_path, "so the rebuild, which passed, was not published"):
                _publish_if_passed(settings, result)
        if not result.ok:
            print("dbt build failed; the published warehouse is unchanged:", *result.failures, sep="\n  ", file=out)
            return False
    print(f"built and published {settings.db_path}", file=out)
    return True


def demo_folder(settings: Settings) -> Path:
    """The demo's own folder under the landing folder: its sample data, and what its app and API save."""
    return settings.landing / DEMO_FOLDER


def saves_folder(settings: Settings) -> Path:
    """Where the app and the API save what people and judges submit (reviews/, ratings/, api/ under it): the demo's
    folder when the published warehouse holds the demo's files alone, whichever command started them, so that what
    was saved while trying the demo stays the demo's and the next `evalhouse demo` does not refuse the warehouse;
    the landing folder otherwise (a team's warehouse, an empty one, none yet). Asked at each save: a demo run may
    replace the warehouse while an app serves it."""
    try:
        ingested = previously_ingested(settings.db_path)
    except duckdb.Error:
        # Not an evalhouse warehouse, or a program holds it for writing (no evalhouse writer ever opens the
        # published file): nothing says it is the demo's.
        return settings.landing
    return demo_folder(settings) if ingested and all(e.is_the_demos(settings) for e in ingested) else settings.landing


def files_not_from_the_demo(settings: Settings) -> list[str]:
    """The files the warehouse's manifest lists (published, or ingested into the working copy and not built yet) that
    are not the demo's (IngestedFile.is_the_demos): each path once, in the order first ingested, whether or not it
    loaded a record (`paths_holding_records` tells which did). Raises DemoRefused for a DuckDB file that is no
    evalhouse warehouse."""
    foreign: dict[str, None] = {}  # a path ingested again (appended to, or with other options) is listed once
    for path in _published_and_working(settings):
        try:
            ingested = previously_ingested(path)
        except duckdb.CatalogException:
            raise DemoRefused(
                f"the demo did not run: {path} is a DuckDB file without an evalhouse manifest (raw.ingest_files), "
                f"and the demo would replace it. Give the demo a file of its own: evalhouse demo --db PATH."
            ) from None
        foreign.update((e.path, None) for e in ingested if not e.is_the_demos(settings))
    return list(foreign)


def paths_holding_records(settings: Settings, paths: Sequence[str]) -> set[str]:
    """Those of `paths` (source paths) whose records a raw table of the published warehouse or of its working copy
    holds. A file the manifest lists may hold none: every line quarantined, an empty file, or records loaded before
    from another file."""
    from ingest.formats import FORMATS

    holding: set[str] = set()
    for db in _published_and_working(settings):
        if not db.exists():
            continue
        with duckdb.connect(str(db), read_only=True) as con:
            tables = {row[0] for row in con.execute(
                "select table_name from information_schema.tables where table_schema = 'raw'").fetchall()}
            selects = [f"select source_path from raw.{name} where source_path in (select unnest($paths::varchar[]))"
                       for name in FORMATS if name in tables]  # names of the registry, never user input
            if selects:
                holding.update(row[0] for row in con.execute(
                    f"select distinct source_path from ({' union all '.join(selects)})", {"paths": list(paths)}
                ).fetchall())
    return holding


def _published_and_working(settings: Settings) -> tuple[Path, Path]:
    return settings.db_path, working_copy(settings.db_path)


def mixed_with_the_demo(settings: Settings) -> bool:
    """Whether the working copy holds records from the demo's folder beside records from other files: the marts
    mix the demo's fictional models with real ones, and the next demo run would refuse this warehouse."""
    try:
        kinds = {e.is_the_demos(settings) for e in previously_ingested(working_copy(settings.db_path))}
    except duckdb.Error:
        return False  # no manifest to read: nothing to say
    return kinds == {True, False}


def _refuse_foreign_files(settings: Settings, force: bool, out) -> None:
    foreign = files_not_from_the_demo(settings)
    if not foreign:
        return
    holding = paths_holding_records(settings, foreign)
    with_records = [path for path in foreign if path in holding]
    without = len(foreign) - len(with_records)
    held = (f"records from {len(with_records)} file(s) that are not the demo's ({_some(with_records)})"
            if with_records else
            f"no record from a file that is not the demo's, but its manifest lists {len(foreign)} such file(s) "
            f"({_some(foreign)})")
    if with_records and without:
        held += (f", and its manifest lists {without} more that loaded no record (every line quarantined, empty, or "
                 f"its records loaded before from another file)")
    elif not with_records:
        held += " that loaded no record (every line quarantined, empty, or its records loaded before from another file)"
    if force:
        print(f"--force: replacing {settings.db_path}, which held {held} (the files stay where they are)", file=out)
        return
    raise DemoRefused(
        f"the demo did not run: {settings.db_path} holds {held}, and the demo replaces the warehouse it runs on, "
        f"which would drop {'them' if with_records else 'their quarantined lines and manifest rows'}. Nothing was "
        f"changed. Run the demo on a file of its own, e.g. `evalhouse demo --db warehouse/demo.duckdb` "
        f"(`make demo DEMO_ARGS=\"--db warehouse/demo.duckdb\"`), or, to replace this warehouse with the demo, "
        f"add --force (the files stay on disk: `evalhouse ingest` loads them into a warehouse again)."
    )


def _some(paths: Sequence[str]) -> str:
    return ", ".join(paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")


def demo(settings: Settings, *, seed: int | None, serve_app: bool, port: int, end_date: dt.date | None = None,
         force: bool = False, out=None) -> int:
    """Sample data in every format, a warehouse built from it, the latest complete week's report, and the app.

    The demo's files are its folder under the landing folder (demo_folder), and nothing else: it ingests only
    them, the app and the API save there while they serve its warehouse (saves_folder), and each run replaces the
    folder, so the same seed and end date give the same figures. It refuses (DemoRefused) to replace a warehouse
    that holds records from other files, unless `force`. end_date None: the data ends on the Sunday that ended
    last week (evalhouse/demo/generate.py).
    """
    from evalhouse.demo.generate import DEFAULT_SEED, generate_demo

    out = out or sys.stdout
    if serve_app:
        check_free(APP_HOST, port, "the demo")  # before the work, not after it
    # Before the folder is replaced, and again by fresh_build: under the writer lock, as no writer is then at work on
    # the working copy that these open.
    with writer_lock(settings.db_path, "demo"):
        _check_working_copy_not_held(settings.db_path)
        _refuse_foreign_files(settings, force, out)
    demo_dir = demo_folder(settings)
    if demo_dir.exists():
        saved = [p for folder in ("reviews", "ratings", "api") for p in (demo_dir / folder).glob("*.jsonl")]
        if saved:
            print(f"discarding {len(saved)} file(s) of reviews, ratings and posted records saved for the last demo "
                  f"({demo_dir}/reviews, ratings, api): each demo starts from its sample data alone", file=out)
        shutil.rmtree(demo_dir)
    summary = generate_demo(demo_dir, seed=DEFAULT_SEED if seed is None else seed, end_date=end_date)
    print(f"sample data written to {demo_dir} ({sum(summary.record_counts.values()):,} records, "
          f"{summary.weeks[0]} to {summary.weeks[-1]}, last day {summary.end_date})", file=out)
    if not fresh_build(settings, [IngestRun((str(demo_dir),))], out=out,
                       guard=lambda: _refuse_foreign_files(settings, force, io.StringIO()), action="demo"):
        return EXIT_FAILED
    write_this_weeks_report(settings, out=out)
    if serve_app:
        return serve(settings, port=port)
    return EXIT_OK


def reports_dir(settings: Settings) -> Path:
    """Where `evalhouse demo` writes its report: the project's reports/ for the default warehouse, else a reports/
    folder beside the warehouse file, so that demos on other warehouses never overwrite each other's report."""
    return REPORTS_DIR if settings.db_path == DEFAULT_DB else settings.db_path.parent / "reports"


def write_this_weeks_report(settings: Settings, *, out=None, now: dt.datetime | None = None) -> Path | None:
    """The weekly quality report for the latest complete week with results (a week in progress, marked so, only
    when none is complete), as weekly_<YYYY-Www>.html in reports_dir(settings). now None: the clock (UTC)."""
    from evalhouse.report import ReportError, write_weekly_report

    out = out or sys.stdout
    db = None if settings.db_path == DEFAULT_DB else str(settings.db_path)
    try:
        path = write_weekly_report(settings.db_path, reports_dir(settings), db=db, relative_to=PROJECT_ROOT,
                                   now=now)
    except ReportError as exc:
        print(f"no weekly report: {exc}", file=out)
        return None
    if path is not None:
        print(f"weekly report written to {path}", file=out)
    return path


def serve(settings: Settings, *, port: int) -> int:
    """Run the Streamlit app on localhost, in this process's place, so a signal to it reaches the server. Raises
    PortInUse, starting nothing, when another process listens on `port`."""
    check_free(APP_HOST, port, "the app")
    env = {**os.environ, "EVALHOUSE_DB": str(settings.db_path), "EVALHOUSE_LANDING": str(settings.landing)}
    command = [
        sys.executable, "-m", "streamlit", "run", str(PROJECT_ROOT / "app" / "streamlit_app.py"),
        "--server.port", str(port), "--server.address", APP_HOST, "--server.headless", "true",
        "--browser.gatherUsageStats", "false", "--client.toolbarMode", "minimal",
    ]
    print(f"serving the app on http://localhost:{port} (Ctrl+C to stop); it saves reviews and ratings under "
          f"{saves_folder(settings)}", flush=True)
    os.execve(sys.executable, command, env)
    return EXIT_OK  # not reached: execve replaces this process
