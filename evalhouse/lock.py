"""One writer at a time, and readers of the working copy that never make a writer fail: ingest and build take the
writer lock, and a second writer is told who holds it and since when; the app's brief reads of the working copy take
a shared reader lock, which a writer waits out instead of exiting busy.

Both are locks on bytes of one file, `<db>.lock`, held by open file description (Linux's F_OFD_* locks: unlike a
process's own fcntl locks they conflict between threads of one process, as flock does, and unlike flock a lock can
be looked at without taking it):

  byte 0  the writer's, exclusive, for the whole of its work. A reader only looks at it: it never takes it, so it
          never makes a writer's try fail.
  byte 1  shared by readers while they read; a writer takes it exclusively after byte 0, waiting for the readers
          there (each reads for milliseconds). A reader that finds byte 0 held backs off, so once a writer has
          come no new reader starts and a stream of readers cannot starve it.

Where there are no OFD locks (not Linux) the writer lock is a flock of the file and readers are always told busy.
"""

from __future__ import annotations

import datetime as dt
import errno
import fcntl
import json
import os
import struct
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

# How long a writer waits for the readers of the working copy it found reading: a read takes milliseconds, and
# no new reader starts while a writer waits, so only a reader that hangs makes a writer wait this long.
READERS_GRACE_SECONDS = 30.0
_WRITER, _READING = 0, 1  # the bytes of the lock file locked (see the module's docstring)
_OFD = hasattr(fcntl, "F_OFD_SETLK")


class WarehouseBusy(Exception):
    """Another ingest or build holds the warehouse (or, for a reader, holds it or is waiting for it)."""


class WriterHeld(WarehouseBusy):
    """Another ingest or build holds the writer lock, and the wait for it (if any) ran out: waiting longer helps
    (the CLI says so to a command that has --wait), where it does not for a connection holding the working copy."""


@contextmanager
def writer_lock(db_path: Path, action: str, wait_seconds: float = 0) -> Iterator[None]:
    """Hold the warehouse's writer lock for the duration. If another writer holds it, wait up to `wait_seconds`
    (0: not at all), then raise WarehouseBusy saying who holds it: never wait silently or forever. Readers of the
    working copy (reader_lock) are waited out, up to READERS_GRACE_SECONDS, whatever `wait_seconds` says."""
    handle = _open(db_path)
    try:
        deadline = time.monotonic() + wait_seconds
        while not _try_lock(handle, fcntl.F_WRLCK, _WRITER):
            if time.monotonic() >= deadline:
                handle.seek(0)
                raise WriterHeld(_busy_message(handle.read(), db_path))
            time.sleep(0.1)
        try:
            handle.seek(0)
            handle.truncate()
            holder = {"pid": os.getpid(), "action": action,
                      "since": dt.datetime.now().astimezone().isoformat(timespec="seconds"),
                      "command": " ".join(sys.argv)}
            handle.write(json.dumps(holder))
            handle.flush()
            try:
                deadline = time.monotonic() + READERS_GRACE_SECONDS
                while _OFD and not _try_lock(handle, fcntl.F_WRLCK, _READING):
                    if time.monotonic() >= deadline:
                        raise WarehouseBusy(f"a reader of {db_path}'s working copy (the app's review page, which "
                                            f"reads it for moments) has held it for more than "
                                            f"{READERS_GRACE_SECONDS:.0f} s; restart that app and retry")
                    time.sleep(0.01)
                yield
            finally:
                handle.seek(0)
                handle.truncate()
        finally:
            # Explicitly, not by closing: a child process that inherited the descriptor would keep the lock.
            _unlock(handle)
    finally:
        handle.close()


@contextmanager
def reader_lock(db_path: Path) -> Iterator[None]:
    """Hold off writers while the working copy is read, for moments: a DuckDB connection to it, even read-only,
    would make a writer's open of it fail. Never waits: raises WarehouseBusy when a writer holds the warehouse or
    is waiting for it (the caller says it cannot tell now, and asks again later)."""
    if not _OFD:
        raise WarehouseBusy("readers cannot hold off writers on this system (no open file description locks)")
    handle = _open(db_path)
    try:
        # Shared byte first, then the writer's byte looked at: a writer that comes in between waits for this read.
        if not _try_lock(handle, fcntl.F_RDLCK, _READING):
            raise WarehouseBusy(f"an ingest or build is writing {db_path}")
        try:
            if _held(handle, _WRITER):
                raise WarehouseBusy(f"an ingest or build holds {db_path} or is about to")
            yield
        finally:
            _unlock(handle)
    finally:
        handle.close()


def writer_active(db_path: Path) -> bool | None:
    """Whether a writer (ingest, build, rebuild, the API) holds the warehouse now, looked at without taking or
    creating anything, so it never makes a writer's try fail. None where that cannot be told (no OFD locks)."""
    if not _OFD:
        return None
    try:
        handle = db_path.with_name(db_path.name + ".lock").open("r")
    except FileNotFoundError:
        return False  # no writer ever ran here
    with handle:
        return _held(handle, _WRITER)


def _open(db_path: Path) -> IO[str]:
    lock_path = db_path.with_name(db_path.name + ".lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    return lock_path.open("a+")


def _flock_struct(kind: int, byte: int | None) -> bytes:
    """struct flock for one byte (None: the whole file), as Linux lays it out; l_pid 0, as OFD locks require."""
    start, length = (0, 0) if byte is None else (byte, 1)
    return struct.pack("hh4xqqi4x", kind, os.SEEK_SET, start, length, 0)


def _try_lock(handle: IO[str], kind: int, byte: int) -> bool:
    if not _OFD:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True
    try:
        fcntl.fcntl(handle, fcntl.F_OFD_SETLK, _flock_struct(kind, byte))
    except OSError as exc:
        if exc.errno in (errno.EAGAIN, errno.EACCES):  # held by someone else; any other error is not "busy"
            return False
        raise
    return True


def _held(handle: IO[str], byte: int) -> bool:
    """Whether anyone else holds a lock on the byte that conflicts with a shared one, without taking it."""
    answer = fcntl.fcntl(handle, fcntl.F_OFD_GETLK, _flock_struct(fcntl.F_RDLCK, byte))
    return struct.unpack("hh4xqqi4x", answer)[0] != fcntl.F_UNLCK


def _unlock(handle: IO[str]) -> None:
    if _OFD:
        fcntl.fcntl(handle, fcntl.F_OFD_SETLK, _flock_struct(fcntl.F_UNLCK, None))
    else:
        fcntl.flock(handle, fcntl.LOCK_UN)


def _busy_message(content: str, db_path: Path) -> str:
    try:
        holder = json.loads(content)
        who = f"{holder['action']} (pid {holder['pid']})"
        since = holder["since"]
    except (ValueError, KeyError, TypeError):
        who, since = "a writer", "an unknown time"
    return f"another ingest or build is running since {since}: {who} holds {db_path}; wait for it to finish and retry"
