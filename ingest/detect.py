"""Which format is this record? Decided from keys the format requires, never guessed from partial likeness."""

from __future__ import annotations

from ingest.formats import FORMATS
from ingest.formats.base import Record, RecordFormat


def detect_format(record: Record) -> RecordFormat | None:
    """The first format whose signature the record carries, or None: an unknown shape is quarantined as such."""
    for fmt in FORMATS.values():
        if fmt.looks_like(record):
            return fmt
    return None


def describe_unknown(record: Record) -> str:
    keys = sorted(record)
    shown = ", ".join(keys[:8]) + (", ..." if len(keys) > 8 else "")
    return (
        f"not a record of any known format (top-level keys: {shown or 'none'}); "
        f"known formats: {', '.join(FORMATS)}. Pass --format NAME if you know which it is"
    )
