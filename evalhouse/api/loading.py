"""Loading what a request appended: ingest the landing file into the warehouse's working copy, then read back
what became of each of the request's lines (loaded, a duplicate of a record already loaded, or quarantined), the
lines it appended and the earlier lines that held its repeated records already (writing.py).

This is `evalhouse.operations.ingest` (the writer lock, the working copy, ingest_paths) with the per-line read-back
in the same hold of the lock: once the lock is let go, a build may take the file before the lines could be read.
The next `evalhouse build` publishes the records to readers, as after any ingest.

Requests of one process take turns (one ingest at a time), and a request whose lines an earlier turn's ingest
already covered only reads them back: under load, one ingest serves many requests. When another writer (a build,
an ingest, another API process) holds the warehouse for longer than `wait_seconds`, the request answers that its
records are saved and load at the next ingest: they are in the landing file already, so nothing is lost.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from evalhouse import build_status
from evalhouse.api.writing import Appended, LineCounter, frozen
from evalhouse.lock import WarehouseBusy, writer_lock
from evalhouse.publish import prepare_working_copy
from evalhouse.settings import Settings
from ingest.formats.base import RecordFormat
from ingest.pipeline import IngestOptions, ingest_paths

LOG = logging.getLogger("evalhouse.api")
_RETRY_SECONDS = 0.05


@dataclass(frozen=True)
class LineOutcome:
    status: str  # loaded | duplicate | quarantined | pending
    kind: str | None = None  # the quarantine's error kind (conflict, ...)
    pointer: str | None = None
    message: str | None = None


@dataclass(frozen=True)
class LoadReport:
    loaded: bool  # False: the lines wait in the landing file for the next ingest (see `note`)
    outcomes: dict[int, LineOutcome] = field(default_factory=dict)  # landing line -> what became of it
    note: str | None = None


class Loader:
    def __init__(self, warehouse: Settings, wait_seconds: float) -> None:
        self.warehouse = warehouse
        self.wait_seconds = wait_seconds
        self._turn = threading.Lock()
        self._counter = LineCounter()
        self._ingested_through: dict[str, int] = {}  # landing file -> lines an ingest of this process has read
        self._gave_up_at = float("-inf")  # monotonic time this process last found the warehouse busy for too long

    def load(self, appended: Appended, fmt: RecordFormat, keys: Sequence[str | None]) -> LoadReport:
        written_at = time.monotonic()
        with self._turn:
            if written_at < self._gave_up_at:
                # The turn before this one waited for the warehouse while these lines were already written.
                return LoadReport(False, note=_busy_note("another writer holds the warehouse"))
            deadline = time.monotonic() + self.wait_seconds
            while True:
                try:
                    with writer_lock(self.warehouse.db_path, "api"):
                        return self._load_locked(appended, fmt, keys)
                except WarehouseBusy as exc:
                    if time.monotonic() >= deadline:
                        self._gave_up_at = time.monotonic()
                        return LoadReport(False, note=_busy_note(str(exc)))
                    time.sleep(_RETRY_SECONDS)
                except Exception as exc:  # noqa: BLE001 - the records are saved: say so, never lose the answer
                    error_id = uuid.uuid4().hex[:12]
                    LOG.error("error %s loading %s", error_id, appended.path, exc_info=exc)
                    return LoadReport(False, note=f"saved, but loading failed (error id {error_id}): the next "
                                                  "`evalhouse ingest` of the landing folder loads them")

    def _load_locked(self, appended: Appended, fmt: RecordFormat, keys: Sequence[str | None]) -> LoadReport:
        work = prepare_working_copy(self.warehouse.db_path)
        source = str(appended.path)
        if self._ingested_through.get(source, 0) < appended.end:
            with frozen(appended.path, self._counter) as n_lines:
                summary = ingest_paths([appended.path], work,
                                       IngestOptions(strict=True, forced_format=fmt.name, workers=0),
                                       landing=self.warehouse.landing)
            build_status.record_summary(self.warehouse.db_path, summary)  # readers' notice: not published yet
            failed = [f for f in summary.files if f.status == "failed"]
            if failed:
                raise RuntimeError(failed[0].message)
            self._ingested_through[source] = n_lines
        return LoadReport(True, _read_back(work, source, fmt, appended, keys))


def _read_back(work, source: str, fmt: RecordFormat, appended: Appended,
               keys: Sequence[str | None]) -> dict[int, LineOutcome]:
    lines = sorted(set(appended.lines))
    outcomes: dict[int, LineOutcome] = {}
    with duckdb.connect(str(work), read_only=True) as con:
        for line, kind, pointer, message in con.execute(
                "select source_line, error_kind, error_pointer, error_message from raw.quarantine "
                "where source_path = ? and source_line in (select unnest(?::bigint[]))", [source, lines]).fetchall():
            outcomes[line] = LineOutcome("quarantined", kind, pointer, message)
        # Loaded wins over an earlier refusal of the same line (a torn line completed since, say).
        for (line,) in con.execute(
                f"select source_line from raw.{fmt.name} where source_path = ? "
                "and source_line in (select unnest(?::bigint[]))", [source, lines]).fetchall():
            outcomes[line] = LineOutcome("loaded")
        # A line neither loaded nor quarantined was skipped: its record (same id, same content) was loaded before.
        missing = {line: key for line, key in zip(appended.lines, keys) if line not in outcomes}
        wanted = sorted({k for k in missing.values() if k})
        before = {}
        if wanted and fmt.natural_key_name:
            before = {key: (path, line) for key, path, line in con.execute(
                f"select natural_key, source_path, source_line from raw.{fmt.name} "
                "where natural_key in (select unnest(?::varchar[]))", [wanted]).fetchall()}
        # A record without an id is skipped when the same bytes were loaded before (ingest/load.py).
        shas = _line_shas(appended.path, {line for line, key in missing.items() if key not in before})
        same = {}
        if shas:
            same = {sha: (path, line) for sha, path, line in con.execute(
                f"select record_sha256, source_path, source_line from raw.{fmt.name} "
                "where record_sha256 in (select unnest(?::varchar[]))", [sorted(set(shas.values()))]).fetchall()}
    for line, key in missing.items():
        if key in before:
            path, at = before[key]
            outcomes[line] = LineOutcome("duplicate", message=f"{fmt.natural_key_name} {key!r} was loaded before, "
                                                              f"with the same content ({path} line {at}): skipped")
        elif shas.get(line) in same:
            path, at = same[shas[line]]
            outcomes[line] = LineOutcome("duplicate", message=f"the same record was loaded before ({path} line {at}):"
                                                              " skipped")
        else:
            outcomes[line] = LineOutcome("pending", message="not loaded yet: the next ingest loads it")
    return outcomes


def _line_shas(path: Path, lines: set[int]) -> dict[int, str]:
    """The sha256 of some lines of a landing file, as the ingester computes each record's (no newline, no CR)."""
    if not lines:
        return {}
    shas, last = {}, max(lines)
    with path.open("rb") as handle:
        for number, data in enumerate(handle, start=1):
            if number in lines:
                shas[number] = hashlib.sha256(data.rstrip(b"\n").removesuffix(b"\r")).hexdigest()
            if number >= last:
                break
    return shas


def _busy_note(reason: str) -> str:
    return (f"saved in the landing folder, not loaded yet: {reason}. The next `evalhouse ingest` of the landing "
            "folder (or the next request here) loads them")
