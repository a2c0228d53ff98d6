"""A UTF-8 byte-order mark at the start of a file is handled in one place, whatever reads the file: the reader
leaves it on the file's first record (line 1), where ingest/batches.py removes it as the counted compatibility
repair `utf8_bom_removed`, or, under --strict, ingest/parse.py refuses that record for it. A reader that dropped
the mark itself would load the file as if it had none, uncounted, and --strict would not refuse it.
"""

from __future__ import annotations

from typing import Any

UTF8_BOM = b"\xef\xbb\xbf"


def shed_bom(record: Any) -> tuple[Any, bool]:
    """A file's first record (a RawRecord) without the mark in front of its bytes, its offset then the record's
    own; and whether it had one."""
    if not record.data.startswith(UTF8_BOM):
        return record, False
    return record._replace(offset=record.offset + len(UTF8_BOM), data=record.data[len(UTF8_BOM):],
                           size=record.size - len(UTF8_BOM)), True


def carry_bom(record: Any) -> Any:
    """A reader's first record (a RawRecord) with the file's mark in front of its bytes. Its offset moves back by
    the mark's length, as though the mark sat just before the record: shed_bom moves it forward again, so the
    offset stored once the mark is removed is the record's own."""
    return record._replace(offset=record.offset - len(UTF8_BOM), data=UTF8_BOM + record.data,
                           size=record.size + len(UTF8_BOM))
