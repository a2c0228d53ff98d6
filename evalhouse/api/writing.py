"""Appending accepted records to the landing folder, the system of record, and their lineage beside them.

  <landing>/api/<format>_<YYYY-MM-DD>.jsonl          the records, one whole line each, as they were checked
  <landing>/api/<format>_<YYYY-MM-DD>.lineage.csv    one row per landing line: who sent it, when, from where

(under <landing>/demo/ instead while the warehouse is the demo's: evalhouse.operations.saves_folder, asked per request)

Records are never given extra fields (their schemas are closed, and the line must stay what was checked), so the
lineage lives in the CSV beside the file, keyed by the landing line and the line's SHA-256 (the raw tables'
source_line and record_sha256). The `.csv` suffix keeps it out of `evalhouse ingest landing/`.

A record is appended once: one whose line the landing file holds already (a client's retry of a post that was
saved) is not appended again, and its answer points at the line that holds it. The ingester keeps two identical lines
of one file as two records (an instance-level result carries no id to tell a retry from a second trial), so
`evalhouse rebuild`, which loads the file whole, would count a retried record twice had its line been appended
again. Records of one request are all appended, identical or not: within a post, as within a file, they are
separate records.

Whole lines, never interleaved: a request's lines are written while holding an in-process lock and an exclusive
fcntl.flock on the landing file, so threads and other API processes take turns; the file is opened in append
mode, a torn last line left by a crash is closed with a newline first, and data and lineage are fsynced before
the request is answered. The loader freezes the file with a shared flock while it ingests it, so an ingest never
reads a line half-written.
"""

from __future__ import annotations

import csv
import datetime as dt
import fcntl
import hashlib
import io
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from evalhouse.durable import fsync_directory

LINEAGE_COLUMNS = ("landing_file", "line", "record_sha256", "record_key", "format", "received_at", "request_id",
                   "key_name", "remote")
_CHUNK = 1024 * 1024


@dataclass(frozen=True)
class Sender:
    """Who sent a request: what its lines' lineage rows record (a key's name or hash, never the key)."""

    request_id: str
    key_name: str
    remote: str | None
    received_at: dt.datetime


@dataclass(frozen=True)
class Appended:
    path: Path  # the landing file, resolved (as the ingester names it in source_path)
    lines: tuple[int, ...]  # each record's landing line (1-based, as the ingester counts), in the request's order
    written: tuple[bool, ...]  # False: the record was already that line of the file (a repeated post), not appended
    end: int  # the file's lines once this request's were appended: an ingest through here covers them

    @property
    def appended(self) -> int:
        return sum(self.written)


def api_folder(landing: Path) -> Path:
    return landing / "api"


def landing_file(landing: Path, format_name: str, now: dt.datetime) -> Path:
    return api_folder(landing) / f"{format_name}_{now.astimezone(dt.timezone.utc):%Y-%m-%d}.jsonl"


def lineage_file(path: Path) -> Path:
    return path.with_name(path.name.removesuffix(".jsonl") + ".lineage.csv")


class LineCounter:
    """Lines in a file that only grows, counted incrementally: (inode, size) -> lines, reading only what was
    appended since the last count. Not thread-safe: each owner uses it under its own lock."""

    def __init__(self) -> None:
        self._known: dict[Path, tuple[int, int, int, bool]] = {}  # path -> (inode, size, lines, ends with newline)

    def count(self, path: Path, fd: int) -> tuple[int, bool]:
        """(lines, whether the file ends with a newline or is empty); a torn last line counts as a line."""
        info = os.fstat(fd)
        inode, offset, lines, closed = self._known.get(path, (info.st_ino, 0, 0, True))
        if inode != info.st_ino or offset > info.st_size:
            offset, lines, closed = 0, 0, True  # replaced or truncated by hand: count again
        complete = lines if closed else lines - 1
        while offset < info.st_size:
            chunk = os.pread(fd, min(_CHUNK, info.st_size - offset), offset)
            if not chunk:
                break
            complete += chunk.count(b"\n")
            closed = chunk.endswith(b"\n")
            offset += len(chunk)
        total = complete + (0 if closed else 1)
        self._known[path] = (info.st_ino, offset, total, closed)
        return total, closed


class LineIndex:
    """Where each record of a file that only grows is, by its record_sha256 (as the ingester hashes a line: no
    newline, no CR): the first line holding it. Kept incrementally, reading only what was appended since the last
    look (by this process or another), for a few files at a time. Not thread-safe: each owner uses it under its own
    lock, and reads a file while holding its flock."""

    def __init__(self, files: int = 8) -> None:
        self._files = files
        self._known: OrderedDict[Path, _Indexed] = OrderedDict()

    def read(self, path: Path, fd: int) -> _Indexed:
        info = os.fstat(fd)
        known = self._known.pop(path, None)
        if known is None or known.inode != info.st_ino or known.offset > info.st_size:
            known = _Indexed(info.st_ino)  # new, or replaced or truncated by hand: read it whole
        while known.offset < info.st_size:
            chunk = os.pread(fd, min(_CHUNK, info.st_size - known.offset), known.offset)
            if not chunk:
                break
            known.offset += len(chunk)
            *complete, known.tail = (known.tail + chunk).split(b"\n")
            for line in complete:
                known.complete += 1
                known.first.setdefault(record_digest(line), known.complete)
        self._known[path] = known
        while len(self._known) > self._files:
            self._known.popitem(last=False)
        return known


@dataclass
class _Indexed:
    inode: int
    offset: int = 0  # bytes read
    complete: int = 0  # lines ended by a newline
    tail: bytes = b""  # what follows the last newline: a torn line (left by a crash) or nothing
    first: dict[bytes, int] = field(default_factory=dict)  # a complete line's digest -> the first line holding it

    @property
    def closed(self) -> bool:
        return not self.tail

    def torn_line(self) -> tuple[bytes, int] | None:
        """The torn last line's digest and number: the line it becomes once a writer closes it with a newline."""
        return None if self.closed else (record_digest(self.tail), self.complete + 1)


def record_digest(line: bytes) -> bytes:
    """A line's SHA-256 as the ingester computes the record's record_sha256 (no newline, no CR)."""
    return hashlib.sha256(line.removesuffix(b"\r")).digest()


class LandingWriter:
    def __init__(self, landing: Path, saves_folder: Callable[[], Path] | None = None) -> None:
        """`saves_folder`: asked at each append where to save (the landing folder, or the demo's in it);
        None: `landing` itself."""
        self.landing = landing
        self._saves_folder = saves_folder
        self._lock = threading.Lock()
        self._index = LineIndex()

    def append(self, format_name: str, lines: Sequence[bytes], keys: Sequence[str | None], sender: Sender) -> Appended:
        """Append `lines` (each without its newline) to today's landing file of the format, and their lineage; a
        line the file holds already (a repeated post) is not appended again, and is answered with that line."""
        folder = self._saves_folder() if self._saves_folder is not None else self.landing
        path = landing_file(folder, format_name, sender.received_at)
        path.parent.mkdir(parents=True, exist_ok=True)
        path = path.resolve()
        with self._lock:
            created = not path.exists()
            fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)  # read: to count lines
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                index = self._index.read(path, fd)
                appended = _place(index, path, lines)
                torn = index.torn_line()
                closes_torn = torn is not None and (appended.appended > 0 or torn[1] in appended.lines)
                data = b"".join(line + b"\n" for line, new in zip(lines, appended.written) if new)
                if data or closes_torn:  # a torn last line is closed first, so the next line starts on its own
                    _write_all(fd, b"\n" + data if closes_torn else data)
                    os.fsync(fd)
                if appended.appended:
                    self._write_lineage(path, format_name, appended, lines, keys, sender)
                self._index.read(path, fd)
            finally:
                os.close(fd)  # closing releases the flock
            if created:
                fsync_directory(path.parent)
        return appended

    def _write_lineage(self, path: Path, format_name: str, appended: Appended, lines: Sequence[bytes],
                       keys: Sequence[str | None], sender: Sender) -> None:
        target = lineage_file(path)
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        if not target.exists() or target.stat().st_size == 0:
            writer.writerow(LINEAGE_COLUMNS)
        received = sender.received_at.astimezone(dt.timezone.utc).isoformat(timespec="milliseconds")
        received = received.replace("+00:00", "Z")
        for number, new, line, key in zip(appended.lines, appended.written, lines, keys):
            if not new:
                continue  # its line has its lineage row already: the post that appended it
            writer.writerow((path.name, number, hashlib.sha256(line).hexdigest(), key or "", format_name, received,
                             sender.request_id, sender.key_name, sender.remote or ""))
        fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            _write_all(fd, buffer.getvalue().encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)


def _place(index: _Indexed, path: Path, lines: Sequence[bytes]) -> Appended:
    """Each line's landing line: the first line of the file holding its record already (a torn last line counts as
    the line it becomes once closed), or the next one free. Lines of this request are not compared with each other."""
    torn = index.torn_line()
    next_line = index.complete + (0 if index.closed else 1) + 1
    numbers, written = [], []
    for line in lines:
        digest = record_digest(line)
        earlier = index.first.get(digest, torn[1] if torn is not None and torn[0] == digest else None)
        if earlier is not None:
            numbers.append(earlier)
            written.append(False)
        else:
            numbers.append(next_line)
            written.append(True)
            next_line += 1
    return Appended(path, tuple(numbers), tuple(written), next_line - 1)


@contextmanager
def frozen(path: Path, counter: LineCounter) -> Iterator[int]:
    """Hold off every appender (shared flock) while the file is read whole; yields its line count."""
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
        lines, _ = counter.count(path, fd)
        yield lines
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
