"""Stopping the processes tests start (the app's server, Chromium, the submission API) without leaving one behind,
finding the children of a process and whether they still run (Linux /proc), and a process that holds a DuckDB
file open, as an analyst's shell or notebook does."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


# What /proc raises for a process or thread that has ended: ENOENT on opening its file, ESRCH on reading it.
_ENDED = (FileNotFoundError, ProcessLookupError)


def stop(process: subprocess.Popen | None, timeout: float = 10) -> None:
    """Terminate a process that is still running, and kill it if it has not ended `timeout` seconds later."""
    if process is not None and process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _threads(pid: int) -> list[str]:
    """`pid`'s thread ids (Linux /proc); none once it has ended."""
    try:
        return os.listdir(f"/proc/{pid}/task")
    except _ENDED:
        return []


def _read(path: str) -> str:
    """A /proc file's text; empty once its process or thread has ended. A starting dbt's Python spins threads up
    and down, and a child may end between being listed and being read: opening its file then raises
    FileNotFoundError (a CI failure of the killed-build test), and reading a file opened just before it ended raises
    ProcessLookupError (ESRCH: a CI failure of the killed-ingest test, a pool worker's thread)."""
    try:
        return Path(path).read_text()
    except _ENDED:
        return ""


def children(pid: int) -> list[int]:
    """The process ids of `pid`'s children, from every one of its threads (Linux /proc); none once it has ended."""
    return [int(child) for task in _threads(pid) for child in _read(f"/proc/{pid}/task/{task}/children").split()]


def command_line(pid: int) -> str:
    """`pid`'s command line, its arguments joined by NULs; empty once it has ended."""
    return _read(f"/proc/{pid}/cmdline")


def running(pid: int) -> bool:
    """Whether `pid` still runs: a zombie holds no file and does no work (Linux /proc). Every thread is looked at:
    killed, a process's first thread is a zombie at once while its others (DuckDB's) still exit, holding its files
    and their locks until the last one has."""
    for task in _threads(pid):
        stat = _read(f"/proc/{pid}/task/{task}/stat")  # empty: that thread has ended
        if stat and stat.split(")")[-1].split()[0] != "Z":
            return True
    return False


@contextmanager
def duckdb_held_open(path: Path, *, read_only: bool = False) -> Iterator[subprocess.Popen]:
    """Another process with a DuckDB connection to `path` (DuckDB's file lock is taken per process), open until the
    block ends."""
    holder = subprocess.Popen(
        [sys.executable, "-c", f"import duckdb, sys; con = duckdb.connect({str(path)!r}, read_only={read_only}); "
                               "print('open', flush=True); sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "open"
        yield holder
    finally:
        holder.communicate("")
