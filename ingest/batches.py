"""A unit of ingest work turned into Arrow tables ready to load: the accepted records per format and the
quarantined ones, each row with its place in the file. Runs in a worker process (or in the ingest process for
small inputs), so the process that writes the warehouse handles tables, not records.

A unit is either a chunk of whole JSON lines (cheap to read and to send: the worker splits it) or a list of raw
records from a reader that cannot be chunked (a .json array, a YAML suite file, an Inspect archive...).

The accepted rows are written to disk (ingest/arrow_files.py) right where they were classified (StagedRows), and
only what the ingest process decides on travels back: each row's key, checksum and place, not its text. Writing
there spreads the encoding over the workers and spares the ingest process a copy of every record.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import pyarrow as pa

from ingest import arrow_files
from ingest.classify import ACCEPT, BLANK, ClassifyOptions, classify
from ingest.byte_order_mark import shed_bom
from ingest.sources import PREVIEW_BYTES, LinesChunk, RawRecord
from ingest.validate import Validators

# The compatibility repair of a file that starts with a UTF-8 byte-order mark (README "Compatibility repairs").
BOM_REPAIR = "utf8_bom_removed"

# What a row knows by itself; the file's path, checksum, batch and time are added when the file is loaded.
RECORD_ROW = pa.schema([
    ("record_id", pa.string()), ("natural_key", pa.string()), ("schema_version", pa.string()),
    ("record_json", pa.string()), ("repairs", pa.string()), ("source_line", pa.int64()),
    ("byte_offset", pa.int64()), ("record_sha256", pa.string()),
])
QUARANTINE_ROW = pa.schema([
    ("quarantine_id", pa.string()), ("source_line", pa.int64()), ("byte_offset", pa.int64()),
    ("format", pa.string()), ("schema_version", pa.string()), ("error_kind", pa.string()),
    ("error_pointer", pa.string()), ("error_message", pa.string()), ("raw_text", pa.string()),
    ("raw_text_truncated", pa.bool_()), ("raw_sha256", pa.string()),
])


# What the ingest process needs of an accepted row that was written to disk where it was classified.
INDEX_COLUMNS = ("natural_key", "schema_version", "repairs", "source_line", "byte_offset", "record_sha256")


@dataclass(frozen=True)
class StagedRows:
    """Accepted rows of one format, written to `path` (RECORD_ROW columns); `index` holds INDEX_COLUMNS of the
    same rows in the same order."""

    path: Path
    index: pa.Table

    @property
    def num_rows(self) -> int:
        return self.index.num_rows

    def read(self) -> pa.Table:
        return arrow_files.read_rows(self.path)

    @cached_property
    def texts(self) -> pa.ChunkedArray:
        """Each row's record text, read from the file once, when first asked for (a conflict's quarantine row)."""
        return arrow_files.read_rows(self.path, ["record_json"]).column("record_json")


@dataclass
class BatchTables:
    accepted: dict[str, StagedRows] = field(default_factory=dict)  # format -> its accepted rows
    rejected: pa.Table = field(default_factory=lambda: QUARANTINE_ROW.empty_table())
    n_records: int = 0  # non-blank lines or records
    n_blank: int = 0
    last_line: int = 0


def line_id(file_sha: str, line: int | None, salt: str = "") -> str:
    """A row id that is the same on every run and machine: the file's content and the row's place."""
    return hashlib.sha256(f"{file_sha}:{line or 0}:{salt}".encode()).hexdigest()[:32]


def split_chunk(chunk: LinesChunk, max_record_bytes: int) -> list[RawRecord]:
    """The raw records of a chunk of whole lines (its last line may be the file's unterminated last)."""
    lines = chunk.data.split(b"\n")
    terminated_end = chunk.data.endswith(b"\n")
    if terminated_end:
        lines.pop()
    records, offset = [], chunk.offset
    for index, line in enumerate(lines):
        unterminated = not terminated_end and index == len(lines) - 1
        size = len(line)
        data = line[:-1] if line.endswith(b"\r") else line
        if size > max_record_bytes:
            records.append(RawRecord(chunk.first_line + index, offset, data[:PREVIEW_BYTES], size, oversized=True,
                                     unterminated=unterminated))
        else:
            records.append(RawRecord(chunk.first_line + index, offset, data, len(data), unterminated=unterminated))
        offset += size + 1
    return records


def tables_for(unit: LinesChunk | list[RawRecord], options: ClassifyOptions, validators: Validators,
               file_sha: str, parts: Path) -> BatchTables:
    """The unit's rows: each format's accepted rows written to `{parts}-{format}.arrow` (`parts` is a path
    prefix unique to the unit), the rejected ones as a table."""
    records = split_chunk(unit, options.max_record_bytes) if isinstance(unit, LinesChunk) else unit
    accepted: dict[str, list[tuple]] = {}  # format -> rows, in RECORD_ROW's column order (the text as bytes)
    rejected: dict[str, list] = {name: [] for name in QUARANTINE_ROW.names}
    out = BatchTables()
    for raw in records:
        # Under --strict the first record keeps its mark and is refused for it (ingest/parse.py).
        raw, bom = shed_bom(raw) if raw.line == 1 and not options.strict else (raw, False)
        outcome = classify(raw, options, validators)
        if outcome[0] == BLANK:
            out.n_blank += 1
            continue
        out.n_records += 1
        if outcome[0] == ACCEPT:
            _, sha, format_name, key, version, repairs = outcome
            if bom:  # counted on the record it was removed from, like every repair, so every count agrees
                repairs = (*repairs, BOM_REPAIR)
            rows = accepted.get(format_name)
            if rows is None:
                rows = accepted[format_name] = []
            rows.append((key if key is not None else line_id(file_sha, raw.line), key, version, raw.data,
                         json.dumps(list(repairs)) if repairs else None, raw.line, raw.offset, sha))
        else:
            _, sha, format_name, version, kind, pointer, message = outcome
            add_quarantine_row(rejected, file_sha, raw, format_name, version, kind, pointer, message, sha)
    if records:
        out.last_line = records[-1].line
    for name, rows in accepted.items():
        table = _record_table(rows)
        path = parts.with_name(f"{parts.name}-{name}{arrow_files.SUFFIX}")
        arrow_files.write_rows(table, path)
        out.accepted[name] = StagedRows(path, table.select(INDEX_COLUMNS))
    out.rejected = pa.Table.from_pydict(rejected, schema=QUARANTINE_ROW)
    return out


def _record_table(rows: list[tuple]) -> pa.Table:
    """RECORD_ROW rows from tuples in its column order; the record's text arrives as bytes that parsed as JSON,
    so valid UTF-8, and becomes a string column in one step."""
    arrays = [
        pa.array(values, type=pa.binary()).cast(pa.string()) if field.name == "record_json"
        else pa.array(values, type=field.type)
        for values, field in zip(zip(*rows), RECORD_ROW)
    ]
    return pa.Table.from_arrays(arrays, schema=RECORD_ROW)


def add_quarantine_row(rows: dict[str, list], file_sha: str, raw: RawRecord | None, format_name: str | None,
                       version: str | None, kind: str, pointer: str | None, message: str, sha: str | None,
                       *, line: int | None = None) -> None:
    line = raw.line if raw is not None else line
    data = raw.data if raw is not None else b""
    truncated = raw is not None and raw.oversized
    rows["quarantine_id"].append(line_id(file_sha, line, kind))
    rows["source_line"].append(line)
    rows["byte_offset"].append(raw.offset if raw is not None else None)
    rows["format"].append(format_name)
    rows["schema_version"].append(version)
    rows["error_kind"].append(kind)
    rows["error_pointer"].append(pointer)
    rows["error_message"].append(message)
    rows["raw_text"].append(data[:PREVIEW_BYTES].decode("utf-8", "backslashreplace") if truncated
                            else data.decode("utf-8", "backslashreplace"))
    rows["raw_text_truncated"].append(truncated)
    rows["raw_sha256"].append(sha)
