"""How staged rows are kept on disk between classification and load: Arrow IPC files, uncompressed.

A file's accepted and quarantined rows wait in these files until the whole file is classified, then go into
the warehouse in one INSERT per table. Arrow's own format costs a worker about half a microsecond per record to
write (Parquet with snappy: about three), and DuckDB scans it as Arrow; the price is disk: a file's staging takes
about as much space as the file itself, until the file is loaded.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.ipc as ipc

SUFFIX = ".arrow"
Writer = ipc.RecordBatchFileWriter


def open_writer(path: Path, schema: pa.Schema) -> Writer:
    """For a table written in several appends; close it before the file is read."""
    return ipc.new_file(str(path), schema)


def write_rows(table: pa.Table, path: Path) -> None:
    with open_writer(path, table.schema) as writer:
        writer.write_table(table)


def read_rows(path: Path, columns: Sequence[str] | None = None) -> pa.Table:
    with pa.OSFile(str(path)) as source:
        table = ipc.open_file(source).read_all()
    return table.select(list(columns)) if columns is not None else table


def stream_rows(paths: Sequence[Path], columns: Sequence[str] | None = None) -> pa.RecordBatchReader:
    """The rows of several files with one schema, read a batch at a time (memory stays bounded). With `columns`,
    only those are read: the files are memory-mapped, so the other columns' bytes are never touched."""
    with pa.OSFile(str(paths[0])) as source:
        schema = ipc.open_file(source).schema
    if columns is not None:
        schema = pa.schema([schema.field(name) for name in columns])

    def batches() -> Iterator[pa.RecordBatch]:
        for path in paths:
            with pa.memory_map(str(path)) if columns is not None else pa.OSFile(str(path)) as source:
                reader = ipc.open_file(source)
                for index in range(reader.num_record_batches):
                    batch = reader.get_batch(index)
                    yield batch.select(list(columns)) if columns is not None else batch

    return pa.RecordBatchReader.from_batches(schema, batches())
