"""Inspect AI logs: the log's header (one record per log) and its samples (one record per sample and epoch: a
trial). ingest/readers_inspect.py turns `.eval` archives and `.json` logs into these records.

Detection uses keys Inspect itself writes: a header has `version` and an `eval` object; a sample has `id`,
`epoch`, `input` and `target`. A member the reader could not read (`inspect_unreadable_member`) is detected as
the kind of member it is, so its quarantine row names the right format, and its schema rejects it with the reason.

No natural key: records are identified by their file and place in it (the log file is the unit; the same log
saved in both forms loads twice, as two files), so a sample identical to one of another file is still loaded
(loaded_once False): its trial is joined to the header of its own file.
"""

from __future__ import annotations

from ingest.formats.base import Record, RecordFormat
from ingest.readers_inspect import HEADER_MEMBERS, UNREADABLE_KEY


def _unreadable_member(record: Record) -> str | None:
    note = record.get(UNREADABLE_KEY)
    if isinstance(note, dict) and len(record) == 1:
        return str(note.get("member", ""))
    return None


def _is_log(record: Record) -> bool:
    member = _unreadable_member(record)
    if member is not None:
        return member in HEADER_MEMBERS
    return isinstance(record.get("eval"), dict) and "version" in record


def _is_sample(record: Record) -> bool:
    member = _unreadable_member(record)
    if member is not None:
        return member not in HEADER_MEMBERS
    return "id" in record and "epoch" in record and "input" in record and "target" in record


INSPECT_LOG = RecordFormat(
    name="inspect_log",
    loaded_once=False,  # a header is read with its own file's samples (see above)
    title="Inspect AI log header",
    schemas={"2": "inspect_ai/log.schema.json"},
    version_field="version",  # an integer (2 since 2024): any number is held to the one schema
    looks_like=_is_log,
)

INSPECT_SAMPLE = RecordFormat(
    name="inspect_sample",
    loaded_once=False,  # a sample is read with its own file's header (see above)
    title="Inspect AI sample (one epoch)",
    schemas={"2": "inspect_ai/sample.schema.json"},
    version_field=None,  # a sample carries no version; its log's header does
    looks_like=_is_sample,
)
