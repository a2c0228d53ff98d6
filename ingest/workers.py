"""Classification on every core: batches of raw records go to worker processes and their outcomes come back in
file order. Small inputs are classified in the ingest process itself; the outcomes are identical either way
(tests/ingest/test_workers.py holds that).

Memory stays bounded: at most `window` batches are in flight, and a batch is a few thousand records.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from ingest.classify import ClassifyOptions, Outcome, classify_batch
from ingest.sources import RawRecord, SourceError
from ingest.validate import Validators

BATCH_RECORDS = 2000

# Each worker process compiles its schemas once, on first use, and keeps them for the life of the pool.
_worker_validators: Validators | None = None


def _classify_in_worker(batch: list[RawRecord], options: ClassifyOptions) -> list[Outcome]:
    global _worker_validators
    if _worker_validators is None:
        _worker_validators = Validators()
    return classify_batch(batch, options, _worker_validators)


class Classifier:
    """Turns a stream of raw records into (record, outcome) pairs, in order."""

    def __init__(self, options: ClassifyOptions, processes: int = 0) -> None:
        self.options = options
        self.validators = Validators()
        self.pool: ProcessPoolExecutor | None = None
        if processes > 1:
            # spawn, not fork: the ingest process holds a DuckDB connection and threads.
            context = multiprocessing.get_context("spawn")
            self.pool = ProcessPoolExecutor(max_workers=processes, mp_context=context)
            self.window = processes * 2

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)

    def outcomes(self, records: Iterable[RawRecord]) -> Iterator[tuple[RawRecord, Outcome]]:
        """Every record with its outcome, in order. A SourceError from `records` is raised only after every
        record read before it has been yielded."""
        batches = _batched(records, BATCH_RECORDS)
        if self.pool is None:
            for batch in batches:
                yield from zip(batch, classify_batch(batch, self.options, self.validators))
            return
        in_flight: deque[tuple[list[RawRecord], Future]] = deque()
        try:
            for batch in batches:
                in_flight.append((batch, self._submit(batch)))
                if len(in_flight) >= self.window:
                    done, future = in_flight.popleft()
                    yield from zip(done, self._result(done, future))
        finally:
            while in_flight:
                done, future = in_flight.popleft()
                yield from zip(done, self._result(done, future))

    def _submit(self, batch: list[RawRecord]) -> Future | None:
        if self.pool is None:
            return None
        try:
            return self.pool.submit(_classify_in_worker, batch, self.options)
        except BrokenProcessPool:
            self._fall_back()
            return None

    def _result(self, batch: list[RawRecord], future: Future | None) -> list[Outcome]:
        """A batch's outcomes; if the worker processes could not start or died, the batch is classified here:
        slower, never lost."""
        if future is not None:
            try:
                return future.result()
            except BrokenProcessPool:
                self._fall_back()
        return classify_batch(batch, self.options, self.validators)

    def _fall_back(self) -> None:
        if self.pool is not None:
            print("evalhouse: worker processes stopped; classifying in this process instead", file=sys.stderr)
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None


def worker_count(total_bytes: int, threshold: int = 32 * 1024 * 1024) -> int:
    """Workers for an input this large: none for small inputs (starting processes costs more than it saves)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return cores if total_bytes >= threshold and cores > 1 else 0


def _batched(records: Iterable[RawRecord], size: int) -> Iterator[list[RawRecord]]:
    batch: list[RawRecord] = []
    try:
        for record in records:
            batch.append(record)
            if len(batch) >= size:
                yield batch
                batch = []
    except SourceError:
        if batch:
            yield batch  # what was read before the damage still counts
        raise
    if batch:
        yield batch
