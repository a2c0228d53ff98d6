"""From a request body to checked landing lines: split the body into records, fill the rater from the X-Rater-*
headers, and hold each record to exactly what `evalhouse ingest --strict --format <format>` will hold its line to.

The check is the ingester's own: each record is serialised as the line the landing file will hold, and that line
goes through ingest.classify (the same parser, duplicate-key and NaN rules, schema and format checker, strict, the
format forced), so the API never accepts a line the next ingest would quarantine for its content.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from evalhouse.api.errors import ApiError
from ingest.classify import ACCEPT, ClassifyOptions, classify
from ingest.formats.base import RecordFormat
from ingest.parse import ParseFailure, find_duplicate_key, parse_record
from ingest.pointer import to_pointer
from ingest.sources import DEFAULT_MAX_RECORD_BYTES, RawRecord
from ingest.validate import Validators

# The rater fields a header may fill, eval-form records only (the plan's section 7: X-Rater-Type, X-Rater-Model).
RATER_HEADERS = {"type": "X-Rater-Type", "model": "X-Rater-Model"}


@dataclass(frozen=True)
class Checked:
    """One posted record: the line to append when it passed, else why it did not."""

    index: int  # its place in the posted array (0 for a single object)
    line: bytes | None  # the landing line (no newline) when it passed
    key: str | None  # its natural key (eval_id, evaluation_id), when the format has one and the record gives it
    kind: str | None = None  # the ingester's error kind when it failed: schema, duplicate_key, not_an_object, ...
    pointer: str | None = None  # JSON pointer of the failing part, relative to the record
    message: str | None = None

    @property
    def ok(self) -> bool:
        return self.line is not None


def split_body(body: bytes) -> tuple[list[Any], dict[int, ParseFailure]]:
    """The posted records (one object, or an array of them) and the duplicate-key failure of any of them.

    A body that is not JSON at all, or is JSON of another shape, is an ApiError 400: nothing in it is a record.
    """
    text = body.strip()
    if not text:
        raise ApiError(400, "empty_body", "the body is empty: post one JSON record, or a JSON array of records")
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        failure = parse_record(RawRecord(1, 0, text, len(text)), len(text) + 1)
        message = failure.message if isinstance(failure, ParseFailure) else "the body is not valid JSON"
        kind = failure.kind if isinstance(failure, ParseFailure) else "invalid_json"
        # The parser's advice is for a file's line; a body is fixed and posted again, and nothing of it was loaded.
        message = message.replace(" (the records already loaded are skipped)", "").replace(
            "ingest the file again", "post it again")
        if "(JSON Lines)" in message:  # the parser tells a `.json` file of JSON Lines to be renamed: no file here
            message = ("the body holds one JSON value per line (JSON Lines): post one record, or a JSON array of "
                       "records")
        where = f" (JSON pointer {failure.pointer})" if isinstance(failure, ParseFailure) and failure.pointer else ""
        raise ApiError(400, kind, f"the body is not JSON: {message}{where}") from None
    if isinstance(value, dict):
        records = [value]
    elif isinstance(value, list):
        records = value
        if not records:
            raise ApiError(400, "no_records", "the array is empty: post at least one record")
    else:
        raise ApiError(400, "not_a_record", "post one JSON object (a record) or a JSON array of records")
    duplicates: dict[int, ParseFailure] = {}
    duplicate = find_duplicate_key(text, value)
    if duplicate is not None:  # the first one found; the record it is in is refused
        parts = (duplicate.pointer or "").split("/")[1:]
        if isinstance(value, list) and parts and parts[0].isdigit():
            index = int(parts[0])
            rest = "".join(f"/{p}" for p in parts[1:])  # the pointer within that record
        else:
            index, rest = 0, duplicate.pointer or ""
        duplicates[index] = ParseFailure(duplicate.kind, duplicate.message, rest)
    return records, duplicates


def fill_rater(record: dict[str, Any], headers: Mapping[str, str]) -> tuple[str, str] | None:
    """Fill rater.<field> from its header where the body leaves it out. A body value that differs from its header
    is a conflict: (pointer, message), and the record is refused."""
    for field, header in RATER_HEADERS.items():
        given = headers.get(field)
        if given is None:
            continue
        rater = record.setdefault("rater", {})
        if not isinstance(rater, dict):
            return None  # the schema says what is wrong with it
        if field not in rater:
            rater[field] = given
        elif rater[field] != given:
            return (to_pointer(["rater", field]),
                    f"the body says rater.{field} {_json(rater[field])} but the {header} header says {_json(given)}; "
                    "send one of them, or make them agree")
    return None


def check_records(records: list[Any], duplicates: Mapping[int, ParseFailure], fmt: RecordFormat,
                  rater_headers: Mapping[str, str], validators: Validators) -> list[Checked]:
    options = ClassifyOptions(strict=True, forced_format=fmt.name, max_record_bytes=DEFAULT_MAX_RECORD_BYTES)
    checked = []
    for index, record in enumerate(records):
        if index in duplicates:
            failure = duplicates[index]
            checked.append(Checked(index, None, _key(fmt, record), failure.kind, failure.pointer, failure.message))
            continue
        if not isinstance(record, dict):
            checked.append(Checked(index, None, None, "not_an_object", "",
                                   f"expected a JSON object (one record), found {_json_type(record)}"))
            continue
        if rater_headers:
            conflict = fill_rater(record, rater_headers)
            if conflict is not None:
                checked.append(Checked(index, None, _key(fmt, record), "header_conflict", *conflict))
                continue
        line = orjson.dumps(record)
        if len(line) > DEFAULT_MAX_RECORD_BYTES:
            checked.append(Checked(index, None, _key(fmt, record), "too_large", "",
                                   f"the record is {len(line):,} bytes, over the ingester's limit of "
                                   f"{DEFAULT_MAX_RECORD_BYTES:,} bytes per record"))
            continue
        outcome = classify(RawRecord(1, 0, line, len(line)), options, validators)
        if outcome[0] == ACCEPT:
            checked.append(Checked(index, line, outcome[3]))
        else:
            _, _, _, _, kind, pointer, message = outcome
            if pointer in ("/rater", "/rater/type") and "required" in (message or ""):
                message = f"{message} (in the body, or as the {RATER_HEADERS['type']} header on POST /v1/evals)"
            checked.append(Checked(index, None, _key(fmt, record), kind, pointer, message))
    return checked


def _key(fmt: RecordFormat, record: Any) -> str | None:
    return fmt.natural_key(record) if isinstance(record, dict) else None


def _json(value: Any) -> str:
    return orjson.dumps(value).decode("utf-8") if isinstance(value, (str, int, float, bool, type(None))) else "..."


def _json_type(value: Any) -> str:
    return {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(type(value), "a number")
