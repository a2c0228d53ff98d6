"""Atomic publishing: writers work on a private copy of the warehouse; readers only ever open the published file,
which is replaced whole, in one rename, when a build has passed.

  warehouse/evalhouse.duckdb        published: what --db names, what the app, the report and analysts read
  warehouse/evalhouse.work.duckdb   the working copy: ingest and dbt build write here, one writer at a time
  warehouse/.evalhouse.duckdb.chunks the sha256 of each megabyte of the published file, as it was published

A reader never sees half a build or a lock error: it holds either the old file (its open descriptor keeps the
old inode alive after the rename) or the new one. A failed build leaves the published file untouched.

Publishing renames the working copy into the published name, so readers see the build at once, then makes the
next working copy out of the file published before: when no reader holds that file any more, only the parts
that differ from the new one are written into it, which after an incremental build is a few percent of the
file; when a reader still holds it, it is left to that reader and the working copy is a whole new copy. The
parts that differ are told by their digests, saved when the old file was published, so that file is not read
(it may have left the page cache since: reading 1.6 GB back from this machine's disk takes 11 s); without
digests that match it, it is compared byte for byte. Only DuckDB's lock tells that a file is held: a program that
reads the old file without one (a `cp` of the published file started before the publish) can see it change.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import struct
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

import duckdb

from evalhouse import build_status
from evalhouse.durable import fsync_directory

CHUNK = 1 << 20  # bytes compared (and, when they differ, written) at a time when a file is brought up to date
# How long publishing waits for the readers of the file published before to let go of it: the app's connections
# last milliseconds and new ones open the new file, so a busy dashboard releases the old file within moments.
READERS_GRACE_SECONDS = 1.0


def working_copy(published: Path) -> Path:
    return published.with_name(f"{published.stem}.work{published.suffix or '.duckdb'}")


def prepare_working_copy(published: Path, *, fresh: bool = False) -> Path:
    """The working copy, created from the published file the first time (or empty when `fresh`).

    Publishing always leaves one, so a working copy missing after the first was deleted by hand, with whatever was
    ingested into it and not published: those records are lost to the warehouse (their files are not), and the
    build status says so instead of calling them unpublished (build_status.record_working_copy_gone)."""
    work = working_copy(published)
    work.parent.mkdir(parents=True, exist_ok=True)
    if fresh:
        _remove(work)
    elif not work.exists():
        build_status.record_working_copy_gone(published)
        if published.exists():
            _copy_atomically(published, work)
    return work


def remove_warehouse(published: Path) -> None:
    """Delete the published file, its working copy and what publishing keeps beside them (each with its WAL, and
    the build status), leaving the writer lock's file: what was never built or published is gone."""
    for path in (published, working_copy(published), _digests_path(published), _previous(published)):
        _remove(path)
    build_status.forget(published)


def publish(published: Path) -> None:
    """Make the working copy the published file, in one rename, and the file published before the next working
    copy (brought up to date in place when no reader holds it, a whole copy otherwise)."""
    work = working_copy(published)
    with duckdb.connect(str(work)) as con:
        con.execute("checkpoint")  # everything in the database file itself, nothing left in a WAL
    before = _previous(published)
    _remove(before)  # a name left by a publish that was stopped half way
    known = None
    if published.exists():
        known = _load_digests(published)
        # The old inode keeps a name of its own when the rename takes the published one (on a filesystem without
        # hard links it keeps none, and the working copy is a whole copy).
        with suppress(OSError):
            os.link(published, before)
    os.replace(work, published)
    published.with_name(published.name + ".wal").unlink(missing_ok=True)  # never replay a stale WAL onto the new file
    fsync_directory(published.parent)
    updated = None
    try:
        if before.exists():
            updated = update_in_place(before, published, known, wait_seconds=READERS_GRACE_SECONDS)
            if updated is not None:
                os.replace(before, work)
    except OSError:
        updated = None  # the published file is in place; whatever stopped the update, a whole copy will do
    finally:
        before.unlink(missing_ok=True)
    if updated is None:
        _copy_atomically(published, work)
    _save_digests(published, updated.digests if updated is not None else _digest_chunks(published))


@dataclass(frozen=True)
class Update:
    written: int  # bytes written into the target
    digests: list[bytes]  # sha256 of each CHUNK of the source (and so of the target now)


def update_in_place(target: Path, source: Path, known: Sequence[bytes] | None = None,
                    wait_seconds: float = 0) -> Update | None:
    """Make `target` a byte-for-byte copy of `source` by writing only the chunks that differ, then sync it.
    `known` holds the sha256 of each of `target`'s chunks when they are known (the digests saved when `target` was
    published): then `target` is not read at all; otherwise each chunk is compared byte for byte.
    Returns None, touching nothing, when a DuckDB connection (in this process or another) holds `target` for
    longer than `wait_seconds`: its reader must keep seeing the file as it was.

    While it works, `target` is locked: DuckDB refuses to open it rather than read it half written."""
    if not hasattr(fcntl, "F_OFD_SETLK"):
        return None  # not Linux: no way to tell whether a reader holds it, so never write into it
    fd = os.open(target, os.O_RDWR)
    try:
        deadline = time.monotonic() + wait_seconds
        while not _lock_if_unheld(fd):
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.02)
        update = _over_chunks(source, fd, known)
        os.ftruncate(fd, os.stat(source).st_size)
        os.fsync(fd)
        return update
    finally:
        os.close(fd)  # releases the lock


def _digest_chunks(path: Path) -> list[bytes]:
    """The sha256 of each CHUNK of a file."""
    return _over_chunks(path, None, None).digests


def _over_chunks(source: Path, target_fd: int | None, known: Sequence[bytes] | None) -> Update:
    """Digest each chunk of `source` and, given a target, write the chunks that differ into it. The chunks are
    shared out in contiguous runs between threads, one per core: sha256 and the reads release the GIL."""
    source_fd = os.open(source, os.O_RDONLY)
    try:
        size = os.fstat(source_fd).st_size
        n_chunks = -(-size // CHUNK)
        digests = [b""] * n_chunks
        parts = max(1, min(os.cpu_count() or 1, 4, n_chunks))
        bounds = [n_chunks * part // parts for part in range(parts + 1)]
        with ThreadPoolExecutor(parts) as pool:
            written = sum(pool.map(lambda part: _update_chunks(target_fd, source_fd, size, known, digests,
                                                               range(bounds[part], bounds[part + 1])),
                                   range(parts)))
    finally:
        os.close(source_fd)
    return Update(written, digests)


def _update_chunks(target_fd: int | None, source_fd: int, size: int, known: Sequence[bytes] | None,
                   digests: list[bytes], indexes: range) -> int:
    """One thread's run of chunks: each digested and, given a target, written into it when it differs. Returns
    the bytes written."""
    new, old = bytearray(CHUNK), bytearray(CHUNK)
    written = 0
    for index in indexes:
        offset = index * CHUNK
        n = min(CHUNK, size - offset)
        chunk = memoryview(new)[:n]
        _read_exactly(source_fd, chunk, offset)
        digests[index] = hashlib.sha256(chunk).digest()
        if target_fd is None:
            continue
        if known is not None:
            same = index < len(known) and known[index] == digests[index]
        else:
            m = os.preadv(target_fd, [old], offset)
            same = m >= n and (new == old if n == CHUNK else chunk == memoryview(old)[:n])
        if not same:
            os.pwrite(target_fd, chunk, offset)
            written += n
    return written


def _read_exactly(fd: int, into: memoryview, offset: int) -> None:
    done = 0
    while done < len(into):
        n = os.preadv(fd, [into[done:]], offset + done)
        if n == 0:
            raise OSError(f"the file being published got shorter while it was read (at byte {offset + done})")
        done += n


def _digests_path(published: Path) -> Path:
    return published.with_name(f".{published.name}.chunks")


def _stamp(path: Path) -> bytes:
    """Which file, in which state, a list of digests describes: a file changed since (by a writer that opened the
    published file itself) no longer matches, and is then compared byte for byte."""
    st = path.stat()
    return f"evalhouse chunks v1 {CHUNK} {st.st_ino} {st.st_size} {st.st_mtime_ns}".encode()


def _load_digests(published: Path) -> list[bytes] | None:
    try:
        header, _, body = _digests_path(published).read_bytes().partition(b"\n")
    except FileNotFoundError:
        return None
    if header != _stamp(published) or len(body) % 32:
        return None
    return [body[i:i + 32] for i in range(0, len(body), 32)]


def _save_digests(published: Path, digests: list[bytes]) -> None:
    path = _digests_path(published)
    partial = path.with_name(path.name + ".partial")
    partial.write_bytes(_stamp(published) + b"\n" + b"".join(digests))
    os.replace(partial, path)


def _lock_if_unheld(fd: int) -> bool:
    """Take an exclusive lock on the whole file if no one holds one. An open file description lock: unlike
    flock or a process's own fcntl locks, it conflicts with the fcntl lock DuckDB takes on every file it opens,
    read-only included, even when that connection is in this process (Linux only: update_in_place checks)."""
    whole_file = struct.pack("hh4xqqi4x", fcntl.F_WRLCK, os.SEEK_SET, 0, 0, 0)
    try:
        fcntl.fcntl(fd, fcntl.F_OFD_SETLK, whole_file)
    except OSError:
        return False
    return True


def _previous(published: Path) -> Path:
    return published.with_name(f".{published.name}.previous")


def _copy_atomically(source: Path, target: Path) -> None:
    partial = target.with_name(f".{target.name}.partial")
    _remove(partial)
    shutil.copyfile(source, partial)
    with partial.open("rb+") as handle:
        os.fsync(handle.fileno())
    os.replace(partial, target)
    target.with_name(target.name + ".wal").unlink(missing_ok=True)  # never replay a stale WAL onto the new file


def _remove(path: Path) -> None:
    path.unlink(missing_ok=True)
    path.with_name(path.name + ".wal").unlink(missing_ok=True)
