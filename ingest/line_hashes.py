"""The sha256 of chosen lines of a file, hashed exactly as the ingester hashes a line it refuses: so a file skipped as
loaded before can tell which of its lines still hold what an earlier run refused there (ingest/pipeline.py), without
classifying the file again. It reads only as far as the last line asked for.
"""

from __future__ import annotations

import bisect
import hashlib
from collections.abc import Collection
from contextlib import closing
from pathlib import Path

from ingest.batches import split_chunk
from ingest.byte_order_mark import shed_bom
from ingest.sources import LinesChunk, SourceError, read_units


def refused_line_sha256s(path: Path, lines: Collection[int], max_record_bytes: int, strict: bool) -> dict[int, str]:
    """{line: sha256} for those of `lines` the file holds, read as a load with these options reads it (the same
    readers and chunk splitting, so the same line numbers and, for a line over the limit, the same preview). A first
    line is hashed without a byte-order mark, as ingest/classify.py hashes it (removed, or refused for it), except a
    first line over the limit under --strict, refused as too large with its mark. A file damaged part way (a gzip
    stream) yields the lines before the damage: a load read no further either."""
    wanted_set = set(lines)
    wanted = sorted(wanted_set)
    if not wanted:
        return {}
    found: dict[int, str] = {}
    try:
        with closing(read_units(path, max_record_bytes)) as units:
            for unit in units:
                if isinstance(unit, LinesChunk):
                    if unit.first_line > wanted[-1]:
                        break
                    n_lines = unit.data.count(b"\n") + (0 if unit.data.endswith(b"\n") else 1)
                    first = bisect.bisect_left(wanted, unit.first_line)
                    if first == len(wanted) or wanted[first] >= unit.first_line + n_lines:
                        continue  # none of the lines asked for: not split, as a load's reader would not either
                    records = split_chunk(unit, max_record_bytes)
                else:
                    records = [unit]
                for raw in records:
                    if raw.line in wanted_set:
                        if raw.line == 1 and not (strict and raw.oversized):
                            raw, _ = shed_bom(raw)
                        found[raw.line] = hashlib.sha256(raw.data).hexdigest()
                if len(found) == len(wanted) or (records and records[-1].line >= wanted[-1]):
                    break
    except SourceError:
        pass
    return found
