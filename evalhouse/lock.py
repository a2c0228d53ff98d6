"""One writer at a time: ingest and build take this lock; a second writer is told who holds it and since when."""

from __future__ import annotations

import datetime as dt
import fcntl
import json
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class WarehouseBusy(Exception):
    """Another ingest or build holds the warehouse."""


@contextmanager
def writer_lock(db_path: Path, action: str, wait_seconds: float = 0) -> Iterator[None]:
    """Hold the warehouse's writer lock for the duration. If another writer holds it, wait up to `wait_seconds`
    (0: not at all), then raise WarehouseBusy saying who holds it: never wait silently or forever."""
    lock_path = db_path.with_name(db_path.name + ".lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    handle = lock_path.open("a+")
    deadline = time.monotonic() + wait_seconds
    try:
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    handle.seek(0)
                    raise WarehouseBusy(_busy_message(handle.read(), db_path)) from None
                time.sleep(0.1)
        handle.seek(0)
        handle.truncate()
        holder = {"pid": os.getpid(), "action": action, "since": dt.datetime.now().astimezone().isoformat(timespec="seconds"),
                  "command": " ".join(sys.argv)}
        handle.write(json.dumps(holder))
        handle.flush()
        try:
            yield
        finally:
            handle.seek(0)
            handle.truncate()
            fcntl.flock(handle, fcntl.LOCK_UN)
    finally:
        handle.close()


def _busy_message(content: str, db_path: Path) -> str:
    try:
        holder = json.loads(content)
        who = f"{holder['action']} (pid {holder['pid']})"
        since = holder["since"]
    except (ValueError, KeyError, TypeError):
        who, since = "a writer", "an unknown time"
    return f"another ingest or build is running since {since}: {who} holds {db_path}; wait for it to finish and retry"
