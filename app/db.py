"""The app's only door to DuckDB: short-lived read-only connections, parameters bound with `?`.

Results are cached per query and per version of the warehouse file (its inode, size and modification time, and
its write-ahead log's): while the file has not changed, a rerun costs no connection at all, so the app holds the
file for a few milliseconds only when something new was built. While a build holds the file, a query returns
the last result it had, with the time it was read, so an open dashboard never breaks a build and a build never
breaks a page. The review page writes through `ingest`, which takes the writer lock like `evalhouse ingest`.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd

from evalhouse import build_settings as settings_mart
from evalhouse.build_settings import BuildSettings
from evalhouse.build_status import BuildStatus, observe, read_record, status_path
from evalhouse.settings import resolve

_CACHE_SIZE = 128  # distinct (query, parameters) results kept; the least recently used goes first


@dataclass(frozen=True)
class Result:
    frame: pd.DataFrame
    stale_since: dt.datetime | None = None  # a build holds the file: this is the result as read at that time
    missing: bool = False  # the warehouse file, the mart or a column does not exist (yet)
    busy: bool = False  # a build held the file when the page asked
    problem: str | None = None  # why the result is missing, for the page's empty state

    @property
    def empty(self) -> bool:
        return self.frame.empty


@dataclass(frozen=True)
class _Entry:
    stamp: tuple[Any, ...]
    frame: pd.DataFrame
    read_at: dt.datetime


_cache: OrderedDict[tuple[Any, ...], _Entry] = OrderedDict()
_lock = threading.Lock()
# published file -> (the stamps of its build status record and of the file, the record as read, not observed)
_status_cache: dict[str, tuple[tuple[Any, ...], BuildStatus | None]] = {}


def warehouse_path() -> Path:
    """EVALHOUSE_DB, else the project's default warehouse file (what `evalhouse serve` passes on)."""
    return resolve().db_path


def saves_folder() -> Path:
    """Where the review and rating pages save their records: the landing folder (EVALHOUSE_LANDING, else the
    project's), or the demo's folder in it while the warehouse is the demo's (evalhouse.operations.saves_folder
    decides, for the app and the API alike). Read again only when the published file changed."""
    from evalhouse.operations import saves_folder as decide

    settings = resolve()
    stamp = _file_stamp(settings.db_path)
    key = (str(settings.db_path), str(settings.landing), "saves_folder")
    with _lock:
        cached = _cache.get(key)
        if cached is not None and cached.stamp == stamp:
            return Path(cached.frame["folder"].iloc[0])
    folder = decide(settings)
    with _lock:
        _cache[key] = _Entry(stamp, pd.DataFrame({"folder": [str(folder)]}), dt.datetime.now())
        _cache.move_to_end(key)
    return folder


def query(sql: str, params: Sequence[Any] = ()) -> Result:
    """Run one read-only query. Whatever a person chose goes in `params`, never into `sql`."""
    path = warehouse_path()
    key = (str(path), sql, _hashable(params))
    stamp = _file_stamp(path)
    if stamp is None:
        return Result(pd.DataFrame(), missing=True, problem=f"there is no warehouse file at {path}")
    with _lock:
        cached = _cache.get(key)
        if cached is not None and cached.stamp == stamp:
            _cache.move_to_end(key)
            return Result(cached.frame.copy())
    try:
        with duckdb.connect(str(path), read_only=True) as con:
            frame = con.execute(sql, list(params)).df()
    except (duckdb.CatalogException, duckdb.BinderException) as exc:
        # A mart (or a column) that a newer build adds: the page says what is missing and how to get it.
        return Result(pd.DataFrame(), missing=True, problem=_first_line(exc))
    except (duckdb.IOException, duckdb.ConnectionException):
        # IOException: another process (a build) holds the file; ConnectionException: this process is ingesting.
        if cached is None:
            return Result(pd.DataFrame(), busy=True)
        return Result(cached.frame.copy(), stale_since=cached.read_at, busy=True)
    with _lock:
        _cache[key] = _Entry(stamp, frame, dt.datetime.now())
        _cache.move_to_end(key)
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return Result(frame.copy())


def build_settings() -> BuildSettings:
    """The dbt vars the warehouse's last build used (marts.rpt_build_settings), which the pages quote: what made the
    marts they show, whatever dbt_project.yml says now. Cached with the queries, per version of the file."""
    result = query(settings_mart.SQL)
    # No row: a warehouse built before the mart existed (or none yet, or a build holding it before this page first
    # read it): dbt_project.yml's vars now are the best guess at what built it.
    return settings_mart.from_row(None if result.empty else result.frame.iloc[0].to_dict())


def build_status() -> BuildStatus | None:
    """The build status beside the published warehouse (evalhouse/build_status.py): what was ingested and not
    published yet, whether the last build failed or did not finish. None when there is none or it cannot be read
    (unknown). Read again only when the record or the published file changed: otherwise two stat calls, and, when
    it names a build started or records not published, a look at whether that build still runs and whether the
    working copy still holds them (build_status.observe), which change without the record changing."""
    path = warehouse_path()
    stamp = (_file_stamp(status_path(path)), _file_stamp(path))
    if stamp[0] is None:
        return None
    with _lock:
        cached = _status_cache.get(str(path))
    if cached is not None and cached[0] == stamp:
        record = cached[1]
    else:
        record = read_record(path)
        with _lock:
            _status_cache[str(path)] = (stamp, record)
    return None if record is None else observe(record, path)


def clear_cache() -> None:
    with _lock:
        _cache.clear()
        _status_cache.clear()


def ingest(paths: Iterable[Path]):
    """Load files as `evalhouse ingest` does: into the warehouse's working copy, under the writer lock; the next
    build publishes them. Readers (this app included) never hold the file a writer writes.

    Raises evalhouse.lock.WarehouseBusy when a build or another ingest holds the warehouse: the caller keeps
    the file, and the next ingest loads it.
    """
    from evalhouse.operations import ingest as ingest_files
    from ingest.pipeline import IngestOptions

    settings = resolve()
    # In-process: a review file is a few lines, and a web server should not start worker processes.
    return ingest_files(settings, [str(p) for p in paths], IngestOptions(workers=0))


def loaded_eval_forms(eval_ids: Sequence[str]) -> set[str] | None:
    """Which of these eval forms are in the warehouse: loaded by an ingest (in the working copy, until a build
    publishes it) or published. None when a writer holds the warehouse, so it cannot be told.

    Read under the reader lock (evalhouse/lock.py), which a writer that comes meanwhile waits out: a DuckDB connection
    to the working copy would make its open fail, and holding the writer lock instead would make it exit busy.
    Cached per version of the working copy, so it is read again only after a writer changed it."""
    from evalhouse.lock import WarehouseBusy, reader_lock
    from evalhouse.publish import working_copy

    if not eval_ids:
        return set()
    published = warehouse_path()
    path = working_copy(published) if working_copy(published).exists() else published
    stamp = _file_stamp(path)
    if stamp is None:
        return set()
    key = (str(path), "loaded_eval_forms", _hashable(sorted(eval_ids)))
    with _lock:
        cached = _cache.get(key)
        if cached is not None and cached.stamp == stamp:
            return set(cached.frame["record_id"])
    try:
        with reader_lock(published):
            with duckdb.connect(str(path), read_only=True) as con:
                frame = con.execute("select record_id from raw.eval_form where record_id in (select unnest(?))",
                                    [list(eval_ids)]).df()
    except duckdb.CatalogException:  # no raw tables yet: nothing was loaded
        return set()
    except (WarehouseBusy, duckdb.IOException, duckdb.ConnectionException):
        return None
    with _lock:
        _cache[key] = _Entry(stamp, frame, dt.datetime.now())
    return set(frame["record_id"])


def _file_stamp(path: Path) -> tuple[Any, ...] | None:
    try:
        main = path.stat()
    except FileNotFoundError:
        return None
    try:
        wal = path.with_name(path.name + ".wal").stat()
        wal_stamp = (wal.st_size, wal.st_mtime_ns)
    except FileNotFoundError:
        wal_stamp = None
    return (main.st_ino, main.st_size, main.st_mtime_ns, wal_stamp)


def _hashable(value: Any) -> Any:
    if isinstance(value, (list, tuple, set, frozenset)):
        return tuple(_hashable(v) for v in value)
    return value


def _first_line(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
