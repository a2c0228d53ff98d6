"""Read Inspect AI logs as records, as Inspect wrote them: one record for the log's header (eval, model, config,
reported results) and one per sample and epoch (a trial). Both log forms give the same records:

- `.eval` (a zip archive): the member `header.json` (or, for a log whose eval had not finished, the member
  `_journal/start.json` Inspect writes first) and every member `samples/<id>_epoch_<n>.json`, each record being
  the member's bytes as they are. `line` is the member's 1-based place in the archive's members sorted by name;
  `offset` is where its local header starts in the archive. The other members (`reductions.json`,
  `summaries.json`, `_journal/summaries/*`) repeat what the header and the samples hold and are not read.
  A member that cannot be read (zstd without the `zstandard` package, damaged, encrypted) gives a small record
  `{"inspect_unreadable_member": {"member", "problem", "reason"}}` that the format's schema quarantines with the
  reason; the other members load.
- `.json` (one JSON document): the elements of its `samples` array, streamed one at a time (`line` = the
  element's position in the array, from 1; `offset` = its byte offset), then the header: the document's other
  members (`version`, `status`, `eval`, `plan`, `results`, `stats`, `reductions`, ...) with their bytes as
  written, as one object (`line` = the number of samples + 1, `offset` = 0).

Inspect writes an unscored value or an undefined metric as a bare `NaN`, which is not JSON: in every record it
becomes `null` (ingest/nonfinite.py), so the value is NULL downstream. The log file stays the system of record.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ingest.byte_order_mark import UTF8_BOM, carry_bom
from ingest.json_object_stream import Element, Member, ObjectStream
from ingest.nonfinite import nonfinite_to_null
from ingest.zip_members import MemberUnreadable, read_member, sorted_members

EVAL_SUFFIX = ".eval"
HEADER_MEMBERS = ("header.json", "_journal/start.json")  # the finished log's header, else the one written first
UNREADABLE_KEY = "inspect_unreadable_member"
_SNIFF_BYTES = 1024 * 1024


def read_eval_log(path: Path, max_record_bytes: int) -> Iterator[Any]:
    """The records of a `.eval` archive (see the module docstring). Raises SourceError for a file that is not a
    readable zip archive or holds no Inspect header."""
    from ingest.sources import PREVIEW_BYTES, RawRecord, SourceError  # late: ingest.sources registers this reader

    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise SourceError(
            "not_zip",
            f"{path.name} is not a readable zip archive ({exc}): an Inspect AI .eval log is a zip file. A log cut "
            "short while it was copied has lost its directory at the end: copy it again from where Inspect wrote it",
        ) from exc
    with archive:
        members = sorted_members(archive)
        names = {info.filename for info in members}
        header = next((name for name in HEADER_MEMBERS if name in names), None)
        if header is None:
            raise SourceError(
                "not_inspect_log",
                f"{path.name} is a zip archive without header.json or _journal/start.json, so it is not an Inspect "
                "AI log (or not a complete one); nothing of it was loaded",
            )
        for position, info in enumerate(members, start=1):
            name = info.filename
            if name != header and not (name.startswith("samples/") and name.endswith(".json")):
                continue
            try:
                member = read_member(archive, path, info, max_record_bytes, PREVIEW_BYTES)
            except MemberUnreadable as problem:
                note = json.dumps({UNREADABLE_KEY: {"member": name, "problem": problem.kind,
                                                    "reason": problem.message}}).encode()
                yield RawRecord(position, info.header_offset, note, len(note))
                continue
            if member.oversized:
                yield RawRecord(position, info.header_offset, member.data, member.size, oversized=True)
                continue
            data, _ = nonfinite_to_null(member.data)
            yield RawRecord(position, info.header_offset, data, len(data))


def read_json_log(path: Path, max_record_bytes: int) -> Iterator[Any]:
    """The records of a `.json` Inspect log: its samples one by one, then its header (see the module docstring).
    Raises SourceError, after yielding what could be read, when the document ends early."""
    from ingest.sources import PREVIEW_BYTES, RawRecord, SourceError

    header: list[Member] = []
    n_samples = 0
    with path.open("rb") as handle:
        stream = ObjectStream(handle, "samples", max_record_bytes, PREVIEW_BYTES)
        for event in stream.events():
            if isinstance(event, Element):
                n_samples = event.index
                data = event.data if event.oversized else nonfinite_to_null(event.data)[0]
                record = RawRecord(event.index, event.offset, data, len(data) if not event.oversized else event.size,
                                   oversized=event.oversized, unterminated=event.unterminated)
                # The file's mark goes with its first record, to be repaired or refused (ingest/byte_order_mark.py).
                yield carry_bom(record) if stream.bom and event.index == 1 else record
            else:
                header.append(event)
    record = _header_record(RawRecord, PREVIEW_BYTES, header, n_samples + 1, max_record_bytes)
    if stream.bom and n_samples == 0:  # the header is the first record; the document starts after the mark
        record = carry_bom(record._replace(offset=len(UTF8_BOM)))
    yield record
    if not stream.complete:
        raise SourceError(
            "truncated",
            f"the log ends before its JSON document does (cut short while it was written or copied?): {n_samples} "
            "samples were read and the header holds only the parts written before the cut. Write or copy the log "
            "again in full and ingest it again",
        )


def is_json_log(path: Path) -> bool:
    """Whether a `.json` file is an Inspect AI log: a document whose top-level members include Inspect's
    `version` and an `eval` object, within its first megabyte (Inspect writes them first)."""
    with path.open("rb") as handle:
        head = handle.read(_SNIFF_BYTES)
    stream = ObjectStream(io.BytesIO(head), "samples", _SNIFF_BYTES, 0)
    seen: set[str] = set()
    for event in stream.events():
        if isinstance(event, Member):
            if event.key == "eval" and not event.value.startswith(b"{"):
                return False
            seen.add(event.key)
            if {"version", "eval"} <= seen:
                return True
    return False


def _header_record(raw_record: type, preview_bytes: int, members: list[Member], line: int, limit: int) -> Any:
    """The log's members other than `samples`, as one JSON object made of their bytes as written."""
    data = b"{" + b",".join(m.key_json + b":" + m.value for m in members) + b"}"
    if any(m.oversized for m in members):  # a member kept only its preview: so does the header
        return raw_record(line, 0, data[:preview_bytes], sum(m.size for m in members), oversized=True)
    if len(data) > limit:
        return raw_record(line, 0, data[:preview_bytes], len(data), oversized=True)
    data, _ = nonfinite_to_null(data)
    return raw_record(line, 0, data, len(data))
