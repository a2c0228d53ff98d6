"""Atomic publishing: writers work on a private copy of the warehouse; readers only ever open the published file,
which is replaced whole, in one rename, when a build has passed.

  warehouse/evalhouse.duckdb        published: what --db names, what the app, the report and analysts read
  warehouse/evalhouse.work.duckdb   the working copy: ingest and dbt build write here, one writer at a time

A reader never sees half a build or a lock error: it holds either the old file (its open descriptor keeps the
old inode alive after the rename) or the new one. A failed build leaves the published file untouched.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import duckdb


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
    """Replace the published file with the working copy, whole, in one rename."""
    work = working_copy(published)
    with duckdb.connect(str(work)) as con:
        con.execute("checkpoint")  # everything in the database file itself, nothing left in a WAL
    _copy_atomically(work, published)


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
