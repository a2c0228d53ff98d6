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


def stop(process: subprocess.Popen | None, timeout: float = 10) -> None:
    """Terminate a process that is still running, and kill it if it has not ended `timeout` seconds later."""
    if process is not None and process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def children(pid: int) -> list[int]:
    """The process ids of `pid`'s children, from every one of its threads (Linux /proc); none once it has ended.
    A thread may end between the listing and the read (a starting dbt's Python spins threads up and down): it has
    no children to give, and reading it raised FileNotFoundError (a CI failure of the killed-build test)."""
    found = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except FileNotFoundError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as listed:
                found += [int(child) for child in listed.read().split()]
        except FileNotFoundError:
            continue  # that thread has ended
    return found


def command_line(pid: int) -> str:
    """`pid`'s command line, its arguments joined by NULs; empty once it has ended (a child may end between being
    listed and being read)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_text()
    except FileNotFoundError:
        return ""


def running(pid: int) -> bool:
    """Whether `pid` still runs: a zombie holds no file and does no work (Linux /proc). Every thread is looked at:
    killed, a process's first thread is a zombie at once while its others (DuckDB's) still exit, holding its files
    and their locks until the last one has."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except FileNotFoundError:
        return False
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/stat") as stat:
                if stat.read().split(")")[-1].split()[0] != "Z":
                    return True
        except FileNotFoundError:
            continue  # that thread has ended
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
