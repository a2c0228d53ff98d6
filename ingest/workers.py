"""Classification on every core: units of work (chunks of lines, batches of records) go to worker processes and
come back as Arrow tables, in file order. Small inputs are classified in the ingest process itself; the tables
are identical either way (tests/ingest/test_workers.py holds that).

Memory stays bounded: at most `window` units are in flight, and a unit is about a megabyte of lines or a few
thousand records.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from evalhouse.lifetime import die_with_parent
from ingest.allocator import keep_freed_memory
from ingest.batches import BatchTables, tables_for
from ingest.classify import ClassifyOptions
from ingest.sources import LinesChunk, RawRecord, SourceError
from ingest.validate import Validators

BATCH_RECORDS = 2000
Unit = LinesChunk | list[RawRecord]

# Each worker process compiles its schemas once, on first use, and keeps them for the life of the pool.
_worker_validators: Validators | None = None


def _validators_in_worker() -> Validators:
    global _worker_validators
    if _worker_validators is None:
        _worker_validators = Validators()
    return _worker_validators


def _start_worker(parent_pid: int) -> None:
    """Each worker's first act: end with the ingest process, so that a killed ingest leaves no worker behind
    waiting on its pipe (test_crash.py), and keep freed buffers for reuse."""
    if not die_with_parent(parent_pid):
        os._exit(1)  # the ingest is gone already: nothing will read this worker's tables
    keep_freed_memory()


def _tables_in_worker(unit: Unit, options: ClassifyOptions, file_sha: str, parts: Path) -> BatchTables:
    return tables_for(unit, options, _validators_in_worker(), file_sha, parts)


class Classifier:
    """Turns a file's units of work into BatchTables, in order."""

    def __init__(self, options: ClassifyOptions, processes: int = 0) -> None:
        self.options = options
        self.validators = Validators()
        self.pool: ProcessPoolExecutor | None = None
        if processes > 1:
            # spawn, not fork: the ingest process holds a DuckDB connection and threads.
            context = multiprocessing.get_context("spawn")
            self.pool = ProcessPoolExecutor(max_workers=processes, mp_context=context,
                                            initializer=_start_worker, initargs=(os.getpid(),))
            self.window = processes * 2
            for _ in range(processes):  # start them now: they start and import while the file is checksummed
                self.pool.submit(_validators_in_worker)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)

    def tables(self, units: Iterable[LinesChunk | RawRecord], file_sha: str, part_dir: Path) -> Iterator[BatchTables]:
        """The tables of every unit, in order, their accepted rows written to files in `part_dir`. A SourceError
        from `units` is raised only after everything read before it has been yielded."""
        work = ((unit, part_dir / f"{n:07d}") for n, unit in enumerate(_grouped(units, BATCH_RECORDS)))
        if self.pool is None:
            for unit, parts in work:
                yield tables_for(unit, self.options, self.validators, file_sha, parts)
            return
        in_flight: deque[tuple[Unit, Path, Future | None]] = deque()
        try:
            for unit, parts in work:
                in_flight.append((unit, parts, self._submit(unit, file_sha, parts)))
                if len(in_flight) >= self.window:
                    yield self._result(*in_flight.popleft(), file_sha)
        finally:
            while in_flight:
                yield self._result(*in_flight.popleft(), file_sha)

    def _submit(self, unit: Unit, file_sha: str, parts: Path) -> Future | None:
        if self.pool is None:
            return None
        try:
            return self.pool.submit(_tables_in_worker, unit, self.options, file_sha, parts)
        except BrokenProcessPool:
            self._fall_back()
            return None

    def _result(self, unit: Unit, parts: Path, future: Future | None, file_sha: str) -> BatchTables:
        """A unit's tables; if the worker processes could not start or died, the unit is classified here:
        slower, never lost."""
        if future is not None:
            try:
                return future.result()
            except BrokenProcessPool:
                self._fall_back()
        return tables_for(unit, self.options, self.validators, file_sha, parts)

    def _fall_back(self) -> None:
        if self.pool is not None:
            print("evalhouse: worker processes stopped; classifying in this process instead", file=sys.stderr)
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None


def worker_count(total_bytes: int, threshold: int = 32 * 1024 * 1024) -> int:
    """Workers for an input this large: none for small inputs (starting processes costs more than it saves)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return cores if total_bytes >= threshold and cores > 1 else 0


def _grouped(units: Iterable[LinesChunk | RawRecord], size: int) -> Iterator[Unit]:
    """Chunks pass as they are; records are grouped into lists of `size`, keeping file order."""
    batch: list[RawRecord] = []
    try:
        for unit in units:
            if isinstance(unit, LinesChunk):
                if batch:
                    yield batch
                    batch = []
                yield unit
                continue
            batch.append(unit)
            if len(batch) >= size:
                yield batch
                batch = []
    except SourceError:
        if batch:
            yield batch  # what was read before the damage still counts
        raise
    if batch:
        yield batch
