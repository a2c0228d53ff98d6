"""Which reader reads a `.json` or `.jsonl` file when it is a harness's own output rather than records: an Inspect
AI `.json` log (recognised by its first top-level members), lm-evaluation-harness `samples_<task>_<date>.jsonl`
and `results_<date>.json` (recognised by lm-eval's file names). Every other file goes to the generic reader it
would have gone to anyway. `.eval` archives have a suffix of their own (ingest/readers_inspect.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ingest import readers_inspect, readers_lm_eval

Reader = Callable[[Path, int], Iterator[Any]]


def json_reader(generic: Reader) -> Reader:
    """The `.json` reader: Inspect logs and lm-eval results files first, else `generic`."""
    results = readers_lm_eval.read_results(generic)

    def read(path: Path, max_record_bytes: int) -> Iterator[Any]:
        if readers_inspect.is_json_log(path):
            return readers_inspect.read_json_log(path, max_record_bytes)
        if readers_lm_eval.is_results_file(path):
            return results(path, max_record_bytes)
        return generic(path, max_record_bytes)

    return read


def jsonl_reader(generic: Reader) -> Reader:
    """The `.jsonl` reader: lm-eval samples files first, else `generic`."""

    def read(path: Path, max_record_bytes: int) -> Iterator[Any]:
        if readers_lm_eval.is_samples_file(path):
            return readers_lm_eval.read_samples(path, max_record_bytes)
        return generic(path, max_record_bytes)

    return read
