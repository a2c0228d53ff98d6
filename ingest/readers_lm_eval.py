"""Read lm-evaluation-harness output as records: `samples_<task>_<date>.jsonl` (written by `--log_samples`, one
line per doc and filter) and the `results_<date>.json` written beside it by the same run.

A samples line does not name its task, its run or its model: the file name carries the first two, the results
file the third. So each line becomes an envelope that keeps the line verbatim and adds what only the reader
knows, plus the line's metric values in a fixed shape (the line keeps them under keys named after the metrics,
which SQL cannot address portably):

    {"lm_eval": {"task": "<task>", "run": "<date>", "results_file": "results_<date>.json",
                 "output_folder": "<the folder's name>",
                 "scores": [{"metric": "exact_match", "value": 0.0}, ...]},   # one per name in `metrics`, in order
     "sample": <the line, byte for byte>}

A metric the line lists without a value gets `{"metric": name}` alone, which the schema quarantines with the
reason. A line that is not a JSON object is passed on as it is, so the parser says what is wrong with it.
`line` and `offset` are the line's own. Results files are read as one document each. In both, a bare `NaN`
(Python's json writes it for a metric it could not compute) becomes `null` (ingest/nonfinite.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

from ingest.byte_order_mark import carry_bom, shed_bom
from ingest.nonfinite import nonfinite_to_null

# lm-eval names its files with `datetime.now().isoformat().replace(":", "-")`.
_DATE = r"\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?"
SAMPLES_FILE = re.compile(rf"^samples_(?P<task>.+)_(?P<date>{_DATE})\.jsonl$")
RESULTS_FILE = re.compile(rf"^results_(?P<date>{_DATE})\.json$")


def read_samples(path: Path, max_record_bytes: int, size: int | None = None) -> Iterator[Any]:
    """One envelope per line of a samples file (see the module docstring). A byte-order mark at the file's start
    goes in front of the first envelope, so it is repaired or refused as in any file (ingest/byte_order_mark.py).
    With `size`, the lines of the file's first `size` bytes only: a samples file is JSON Lines that lm-eval writes
    as it runs, read as far as its checksum went (ingest/sources.py, read_units)."""
    from ingest.sources import _read_jsonl  # late: ingest.sources registers this reader

    names = SAMPLES_FILE.match(path.name)
    context = {"task": names["task"], "run": names["date"], "results_file": f"results_{names['date']}.json",
               "output_folder": path.parent.name}
    for raw in _read_jsonl(path, max_record_bytes, size):
        raw, bom = shed_bom(raw) if raw.line == 1 else (raw, False)
        record = _envelope(raw, context, max_record_bytes)
        yield carry_bom(record) if bom else record


def _envelope(raw: Any, context: dict[str, str], max_record_bytes: int) -> Any:
    """The envelope of one line (a RawRecord), or the line as it is when it is not a JSON object."""
    from ingest.sources import PREVIEW_BYTES, RawRecord

    if raw.oversized or not raw.data.strip():
        return raw
    data, _ = nonfinite_to_null(raw.data)
    try:
        line = orjson.loads(data)
    except orjson.JSONDecodeError:
        return RawRecord(raw.line, raw.offset, data, len(data), unterminated=raw.unterminated)
    if not isinstance(line, dict):
        return RawRecord(raw.line, raw.offset, data, len(data), unterminated=raw.unterminated)
    envelope = (b'{"lm_eval":' + orjson.dumps({**context, "scores": _scores(line)}) + b',"sample":'
                + data.strip() + b"}")
    if len(envelope) > max_record_bytes:
        return RawRecord(raw.line, raw.offset, envelope[:PREVIEW_BYTES], len(envelope), oversized=True)
    return RawRecord(raw.line, raw.offset, envelope, len(envelope), unterminated=raw.unterminated)


def read_results(fallback: Callable[[Path, int], Iterator[Any]]) -> Callable[[Path, int], Iterator[Any]]:
    """A results file read by the generic `.json` reader, with bare NaN written as null."""
    from ingest.sources import RawRecord

    def read(path: Path, max_record_bytes: int) -> Iterator[Any]:
        for raw in fallback(path, max_record_bytes):
            if raw.oversized:
                yield raw
                continue
            data, replaced = nonfinite_to_null(raw.data)
            yield RawRecord(raw.line, raw.offset, data, len(data), unterminated=raw.unterminated) if replaced else raw

    return read


def is_samples_file(path: Path) -> bool:
    return SAMPLES_FILE.match(path.name) is not None


def is_results_file(path: Path) -> bool:
    return RESULTS_FILE.match(path.name) is not None


def _scores(line: dict[str, Any]) -> list[dict[str, Any]]:
    metrics = line.get("metrics")
    if not isinstance(metrics, list):
        return []
    return [{"metric": name, "value": line[name]} if name in line else {"metric": name}
            for name in metrics if isinstance(name, str)]
