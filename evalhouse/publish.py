"""Atomic publishing: writers work on a private copy of the warehouse; readers only ever open the published file,
which is replaced whole, in one rename, when a build has passed.

  warehouse/evalhouse.duckdb        published: what --db names, what the app, the report and analysts read
  warehouse/evalhouse.work.duckdb   the working copy: ingest and dbt build write here, one writer at a time

A reader never sees half a build or a lock error: it holds either the old file (its open descriptor keeps the
old inode alive after the rename) or the new one. A failed build leaves the published file untouched.

Publishing renames the working copy into the published name, so readers see the build at once, then makes the
next working copy out of the file published before: when no reader holds that file any more, only the parts
that differ from the new one are written into it, which after an incremental build is a few percent of the
file; when a reader still holds it, it is left to that reader and the working copy is a whole new copy.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import struct
from pathlib import Path

import duckdb

CHUNK = 1 << 20  # bytes compared (and, when they differ, written) at a time when a file is brought up to date


def working_copy(published: Path) -> Path:
    return published.with_name(f"{published.stem}.work{published.suffix or '.duckdb'}")


def prepare_working_copy(published: Path, *, fresh: bool = False) -> Path:
    """The working copy, created from the published file the first time (or empty when `fresh`)."""
    work = working_copy(published)
    work.parent.mkdir(parents=True, exist_ok=True)
    if fresh:
        _remove(work)
    elif not work.exists() and published.exists():
        _copy_atomically(published, work)
    return work


def publish(published: Path) -> None:
    """Make the working copy the published file, in one rename, and the file published before the next working
    copy (brought up to date in place when no reader holds it, a whole copy otherwise)."""
    work = working_copy(published)
    with duckdb.connect(str(work)) as con:
        con.execute("checkpoint")  # everything in the database file itself, nothing left in a WAL
    before = _previous(published)
    _remove(before)  # a name left by a publish that was stopped half way
    if published.exists():
        try:
            os.link(published, before)  # the old inode keeps a name of its own when the rename takes the published one
        except OSError:
            pass  # no hard links here: the working copy will be a whole copy
    os.replace(work, published)
    published.with_name(published.name + ".wal").unlink(missing_ok=True)  # never replay a stale WAL onto the new file
    _fsync_directory(published.parent)
    reused = False
    try:
        if before.exists() and update_in_place(before, published) is not None:
            os.replace(before, work)
            reused = True
    except OSError:
        pass  # the published file is in place; whatever stopped the update, a whole copy makes the working copy
    finally:
        before.unlink(missing_ok=True)
    if not reused:
        _copy_atomically(published, work)


def update_in_place(target: Path, source: Path) -> int | None:
    """Make `target` a byte-for-byte copy of `source` by writing only the chunks that differ, then sync it.
    Returns the number of bytes written, or None, touching nothing, when a DuckDB connection (in this process or
    another) holds `target`: its reader must keep seeing the file as it was.

    While it works, `target` is locked: DuckDB refuses to open it rather than read it half written."""
    fd = os.open(target, os.O_RDWR)
    try:
        if not _lock_if_unheld(fd):
            return None
        written = 0
        size = source.stat().st_size
        with source.open("rb", buffering=0) as reader:
            new, old = bytearray(CHUNK), bytearray(CHUNK)
            offset = 0
            while offset < size:
                n = reader.readinto(new)
                if n == 0:
                    break
                m = os.preadv(fd, [old], offset)
                same = m >= n and (new == old if n == CHUNK else new[:n] == old[:n])
                if not same:
                    os.pwrite(fd, memoryview(new)[:n], offset)
                    written += n
                offset += n
        os.ftruncate(fd, size)
        os.fsync(fd)
        return written
    finally:
        os.close(fd)  # releases the lock


def _lock_if_unheld(fd: int) -> bool:
    """Take an exclusive lock on the whole file if no one holds one. An open file description lock: unlike
    flock or a process's own fcntl locks, it conflicts with the fcntl lock DuckDB takes on every file it opens,
    read-only included, even when that connection is in this process."""
    if not hasattr(fcntl, "F_OFD_SETLK"):
        return False  # not Linux: no way to tell, so never write into a file a reader may hold
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


def _fsync_directory(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _remove(path: Path) -> None:
    path.unlink(missing_ok=True)
    path.with_name(path.name + ".wal").unlink(missing_ok=True)
