"""Strict JSON parsing of one record: an object, or a failure that says exactly what is wrong with the text.

Stricter than most parsers in two ways the warehouse relies on: `NaN`/`Infinity` are rejected (they are not
JSON, and would turn into NaN in a mart), and duplicate keys are rejected (a parser silently keeping the last
one would load a value nobody can see in the file).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import orjson

from ingest.pointer import to_pointer
from ingest.byte_order_mark import UTF8_BOM
from ingest.sources import RawRecord

MAX_DEPTH = 1024  # orjson's own nesting limit


@dataclass(frozen=True, slots=True)
class ParseFailure:
    """Why a record's text is not one JSON object. `kind` is a stable code; `message` is for people."""

    kind: str
    message: str
    pointer: str | None = None


# What to do about a line whose text is not JSON, said after what is wrong with it.
_FIX_AND_INGEST = "fix the record's text there and ingest the file again (the records already loaded are skipped)"

# What defeats the fast duplicate-key check below: whitespace between a key's closing quote and its colon, and a
# quote or colon inside a string written as a \u escape (\u0022, \u003a: .NET's JSON writer escapes quotes so),
# which re-serialising turns into a `\":` the text did not have, hiding one dropped key. Two patterns, the second
# searched only where the text has a \u00 escape at all: one pattern with both alternatives took 10 us per
# benchmark record instead of 2.5.
_SPACED_COLON = re.compile(rb'"[ \t\r\n]+:')
_ESCAPED_QUOTE_OR_COLON = re.compile(rb'\\u00(?:22|3[aA])')
# The text's strings and structural characters, enough to tell where in the record a byte is (_pointer_at).
_STRUCTURE = re.compile(rb'"(?:[^"\\]|\\.)*"|[{}\[\],]', re.DOTALL)
_NON_FINITE = (b"NaN", b"Infinity", b"-Infinity", b"+Infinity")


def parse_record(raw: RawRecord, max_record_bytes: int) -> dict[str, Any] | ParseFailure:
    if raw.oversized:
        return ParseFailure(
            "too_large",
            f"the record is {_size(raw.size)}, over the {_size(max_record_bytes)} limit; "
            "it was not read (raise the limit with --max-record-bytes if it is genuine)",
        )
    data = raw.data
    if raw.line == 1 and data.startswith(UTF8_BOM):  # only under --strict: otherwise ingest/batches.py removed it
        return ParseFailure(
            "byte_order_mark",
            "the file starts with a UTF-8 byte-order mark, which is not part of JSON; --strict makes no "
            "compatibility repairs, so this first record is refused. Save the file as UTF-8 without a BOM, or "
            "ingest it without --strict (the mark is then removed and counted as the repair utf8_bom_removed)",
        )
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        return _explain_decode_error(data, exc, raw.unterminated, getattr(raw, "converted", False),
                                     getattr(raw, "nonfinite_line", None))
    if not isinstance(value, dict):
        found = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(type(value), "a number")
        return ParseFailure("not_an_object", f"expected a JSON object (one record), found {found}: each line (each "
                            "element of a .json array) must be one record, an object {...}; write each record as "
                            "an object on a line of its own and ingest the file again", "")
    duplicate = find_duplicate_key(data, value)
    if duplicate is not None:
        return duplicate
    return value


def find_duplicate_key(data: bytes, value: dict[str, Any]) -> ParseFailure | None:
    r"""Detect a key that appears twice in one object.

    Fast path: re-serialising the parsed value keeps every `":` of the text (a quote inside a string is `\"`
    both times) except the ones of keys the parser dropped, so equal counts prove there is no duplicate, provided
    no key is followed by whitespace before its colon and no quote or colon is written as a \u escape (either can
    make a `":` the text lacks). Anything else takes the exact slow path.
    """
    try:
        canonical = orjson.dumps(value)
    except orjson.JSONEncodeError:  # nested deeper than orjson serialises (254 levels)
        canonical = None
    if canonical is not None and data.count(b'":') == canonical.count(b'":') and not _SPACED_COLON.search(data) \
            and not (b"\\u00" in data and _ESCAPED_QUOTE_OR_COLON.search(data)):
        return None
    return _exact_duplicate_check(data)


def _exact_duplicate_check(data: bytes) -> ParseFailure | None:
    try:
        tree = json.loads(data, object_pairs_hook=_Pairs)
    except RecursionError:
        return ParseFailure("too_deep", "the record is nested too deeply to check for duplicate keys")
    except ValueError:  # already parsed once: cannot happen, but never crash the run on it
        return None
    return _first_duplicate(tree, [])


class _Pairs(list):
    """An object kept as its list of (key, value) pairs, duplicates included."""


def _first_duplicate(node: Any, path: list[str | int]) -> ParseFailure | None:
    stack: list[tuple[Any, list[str | int]]] = [(node, path)]
    while stack:
        current, where = stack.pop()
        if isinstance(current, _Pairs):
            seen: set[str] = set()
            for key, child in current:
                if key in seen:
                    return ParseFailure(
                        "duplicate_key",
                        f"the key {key!r} appears more than once in the same object; a JSON parser would "
                        "silently keep only the last value, so the record is refused: keep the one value meant "
                        "(or rename the other key) and ingest the file again",
                        to_pointer([*where, key]),
                    )
                seen.add(key)
                stack.append((child, [*where, key]))
        elif isinstance(current, list):
            stack.extend((child, [*where, i]) for i, child in enumerate(current))
    return None


def _explain_decode_error(data: bytes, exc: orjson.JSONDecodeError, unterminated: bool,
                          converted: bool = False, nonfinite_line: int | None = None) -> ParseFailure:
    """Why the text is not JSON, where, and what to do. `converted`: the text is evalhouse's JSON rendering of
    another notation (a YAML suite), whose columns are no place in the file: the JSON pointer says where, and
    `nonfinite_line`, the file's line of its first value JSON has no number for."""
    # orjson counts characters, and the checks below look at bytes: "é" before the place moved it one byte early.
    pos = exc.pos if data.isascii() else len(data.decode("utf-8", "surrogateescape")[:exc.pos].encode(
        "utf-8", "surrogateescape"))
    reason = str(exc).split(":", 1)[0]
    # A JSON Lines record is one line, where the character's column is the place, as an editor counts it; a whole
    # document (a `.json` file, an Inspect log's member) has lines of its own, and its editor shows a line and a
    # column within it.
    column = f"column {exc.pos + 1}" if b"\n" not in data else f"line {exc.lineno}, column {exc.colno}"
    if converted:
        column = "the value the JSON pointer names (a YAML `.nan` or `.inf` there)"
        if nonfinite_line is not None:
            column = f"line {nonfinite_line} of the YAML file (a `.nan` or `.inf` there, at the JSON pointer)"
    if not data.strip():
        return ParseFailure("invalid_json", "the record is empty")
    if _looks_utf16(data):
        return ParseFailure("invalid_utf8", "the file is UTF-16 (a NUL byte beside each character, or its mark at the "
                            "start), not UTF-8: save it as UTF-8 and ingest it again")
    if "UTF-8" in str(exc) and "BOM" not in str(exc):
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as bad:
            if unterminated and bad.end == len(data) and bad.reason == "unexpected end of data":
                return _cut_off()  # the file ends inside a character of several bytes: cut off, not mis-encoded
            byte = data[bad.start:bad.start + 1].hex()
            return ParseFailure(
                "invalid_utf8", f"invalid UTF-8: byte 0x{byte} at byte {bad.start + 1}; save the file as UTF-8"
            )
    if "BOM" in str(exc):
        return ParseFailure(
            "invalid_json", "a UTF-8 byte-order mark in the middle of the file; only the file's start may have one "
            "(files joined together, each with its own mark?): remove it and ingest the file again"
        )
    if "depth" in str(exc):
        return ParseFailure("too_deep", f"the record is nested deeper than {MAX_DEPTH} levels, which no eval "
                            "record is: check how the file was written, and write the record flatter")
    if "infinity when parsed" in str(exc):
        return ParseFailure(
            "non_finite_number",
            f"the number at {column} is too large for a double (it would be Infinity); write it as a string and "
            "ingest the file again",
            _pointer_at(data, pos),
        )
    for token in _NON_FINITE:
        if data.startswith(token, pos) or data.startswith(token, max(pos - 1, 0)):
            return ParseFailure(
                "non_finite_number",
                f"{token.decode()} at {column} is not a JSON number; write null (or a string) instead and ingest "
                "the file again",
                _pointer_at(data, pos),
            )
    if "end of data" in reason:
        if unterminated:
            return _cut_off()
        return ParseFailure("invalid_json", f"the line ends before the JSON value does ({column}): a record split "
                            "over several lines? JSON Lines holds each record whole on one line; "
                            f"{_FIX_AND_INGEST}")
    value = data[:pos].rstrip()
    if "after document" in reason and b"\r" in data[len(value):pos] and b"\n" not in data:
        return ParseFailure("invalid_json", f"a second JSON value starts on {column}, after a lone CR (carriage "
                            "return) line ending: the file ends its lines with CR alone (classic Mac OS), so it reads "
                            "as one line; convert its line endings to LF (or CRLF) and ingest it again")
    if "after document" in reason and value.endswith((b"}", b"]")) and b"\n" in data[len(value):pos] \
            and data[pos:pos + 1] in (b"{", b"["):
        # One value per line in a document file: JSON Lines saved as `.json` (pandas' to_json(lines=True), the
        # Hugging Face datasets' to_json), which is read as one document and fails where the second line starts.
        return ParseFailure("invalid_json", f"a second JSON value starts on {column}: the file holds one value per "
                            "line (JSON Lines) but its name ends in .json, which is read as one document (an object, "
                            "or an array of them); rename it to .jsonl and ingest it again")
    snippet = data[max(pos - 20, 0):pos + 20].decode("utf-8", "backslashreplace")
    return ParseFailure("invalid_json", f"invalid JSON at {column}: {reason} (near {snippet!r}); {_FIX_AND_INGEST}")


def _looks_utf16(data: bytes) -> bool:
    """Text in UTF-16: its byte-order mark at the start, or a NUL byte beside most characters of its beginning
    (ASCII in UTF-16; a line after the first starts with the NUL of its newline's pair)."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return True
    head = data[:200]
    return len(head) >= 4 and head.count(b"\x00") * 3 >= len(head)


def _pointer_at(data: bytes, pos: int) -> str | None:
    """The JSON pointer of the value at byte `pos` of a record's text (`{"a": NaN}`, 6: `/a`), from the text before
    it, which the parser read as JSON; None when that text does not say (a key not yet complete)."""
    path: list[list] = []  # per open object ["key", key or None while a key is awaited]; per array ["index", i]
    try:
        for match in _STRUCTURE.finditer(data, 0, pos):
            token = match.group()
            if token in (b"{", b"["):
                path.append(["key", None] if token == b"{" else ["index", 0])
            elif token in (b"}", b"]"):
                path.pop()
            elif token == b",":
                path[-1][1] = path[-1][1] + 1 if path[-1][0] == "index" else None
            elif path and path[-1][0] == "key" and path[-1][1] is None:
                path[-1][1] = json.loads(token)  # a string where a key is awaited is the key
    except (IndexError, TypeError, ValueError):
        return None
    if any(part is None for _, part in path):
        return None
    return to_pointer(part for _, part in path)


def _cut_off() -> ParseFailure:
    """The last line of a file that ends inside it."""
    return ParseFailure(
        "truncated",
        "the file ends in the middle of this record (an interrupted write?); the record is incomplete: "
        "write the file again in full and ingest it again (the records already loaded are skipped)",
    )


def _size(n: int) -> str:
    return f"{n / 1024 / 1024:.1f} MB" if n >= 1024 * 1024 else f"{n / 1024:.1f} KB"
