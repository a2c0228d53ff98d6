"""Split one large JSON object (an Inspect AI `.json` log) into its top-level members without loading it: each
member's key and value bytes, except one array-valued member (the log's `samples`) whose elements are given one
by one, as they are read. Memory holds one member or one element at a time; an element or member larger than
the limit is scanned to its end and only a preview of it is kept.

Only the structural characters are looked at (quotes with their escapes, brackets, commas, colons): values are
not parsed here, so malformed text is passed on as it is and the JSON parser reports it, with its position.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

from ingest.byte_order_mark import UTF8_BOM

_CHUNK = 1024 * 1024
_OUTSIDE = re.compile(rb'["{}\[\],:]')
_INSIDE = re.compile(rb'["\\]')
_NESTED = re.compile(rb'["{}\[\]]')  # deeper in, commas and colons separate nothing this splitter cares about
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)  # a whole string, escapes included
_QUOTE, _BACKSLASH, _COLON, _COMMA = ord('"'), ord("\\"), ord(":"), ord(",")
_OPENERS, _CLOSERS = (ord("{"), ord("[")), (ord("}"), ord("]"))
_WHITESPACE = b" \t\r\n"


@dataclass(frozen=True, slots=True)
class Member:
    """A top-level member other than the streamed one: `key_json` is the key as written, quotes included."""

    key: str
    key_json: bytes
    value: bytes  # the value's text, or its preview when oversized
    offset: int  # byte offset of the value in the file
    size: int
    oversized: bool


@dataclass(frozen=True, slots=True)
class Element:
    """One element of the streamed array."""

    index: int  # 1-based position in the array
    offset: int
    data: bytes  # the element's text, or its preview when oversized
    size: int
    oversized: bool
    unterminated: bool  # the file ended inside this element


class ObjectStream:
    """Iterate `events()` once; afterwards `complete` says whether the object's closing brace was reached,
    `is_object` whether the document was an object at all, and `bom` whether the file started with a UTF-8
    byte-order mark (read past here: the caller hands it on, ingest/byte_order_mark.py)."""

    def __init__(self, handle: BinaryIO, stream_key: str, max_bytes: int, preview_bytes: int) -> None:
        self.handle, self.stream_key = handle, stream_key
        self.max, self.preview_bytes = max_bytes, preview_bytes
        self.buf = bytearray()
        self.base = 0  # file offset of buf[0]
        self.complete = False
        self.is_object = True
        self.bom = False

    def _more(self) -> bool:
        chunk = self.handle.read(_CHUNK)
        if not chunk:
            return False
        self.buf += chunk
        return True

    def _drop(self, upto: int) -> None:
        del self.buf[:upto]
        self.base += upto

    def events(self) -> Iterator[Member | Element]:
        if not self._open():
            return
        pos, depth, in_string = 0, 1, False
        state = "key"  # key -> colon -> value (or stream, then after_stream) -> key ...
        key_start = key_json = None
        span_start = 0  # where the current value or element starts in buf
        span_offset = 0  # and in the file
        preview: bytes | None = None  # set once the current span is known to be oversized
        index = 0

        def span_bytes(end: int) -> tuple[bytes, int, int, bool]:
            """(text or preview, offset, size, oversized) of the current span ending at buf[end]."""
            if preview is not None:
                tail = self.buf[max(span_start, 0):end]
                trailing = len(tail) - len(tail.rstrip(_WHITESPACE))
                return preview, span_offset, self.base + end - trailing - span_offset, True
            raw = bytes(self.buf[span_start:end])
            text = raw.lstrip(_WHITESPACE)
            skipped = len(raw) - len(text)
            text = text.rstrip(_WHITESPACE)
            return text, span_offset + skipped, len(text), False

        while True:
            if in_string:
                pattern = _INSIDE
            elif depth >= 3 or (depth == 2 and state != "stream"):
                pattern = _NESTED
            else:
                pattern = _OUTSIDE
            match = pattern.search(self.buf, pos)
            if match is None:
                spanning = state in ("value", "stream") and (state == "value" or depth >= 2)
                if spanning and preview is None and len(self.buf) - span_start > self.max:
                    lead = len(self.buf) - span_start - len(self.buf[span_start:].lstrip(_WHITESPACE))
                    span_start, span_offset = span_start + lead, span_offset + lead
                    preview = bytes(self.buf[span_start:span_start + self.preview_bytes])
                if spanning and preview is not None:  # keep nothing of an oversized span but its preview
                    self._drop(len(self.buf))
                    pos = span_start = 0
                else:
                    pos = len(self.buf)
                if not self._more():
                    break
                continue
            char, pos = self.buf[match.start()], match.end()
            if in_string:
                if char == _BACKSLASH:
                    if pos >= len(self.buf) and not self._more():
                        break
                    pos += 1
                else:
                    in_string = False
                    if state == "key" and depth == 1 and key_start is not None:
                        key_json = bytes(self.buf[key_start:pos])
                        state = "colon"
                continue
            if char == _QUOTE:
                whole = _STRING.match(self.buf, match.start())
                if whole is not None:  # the whole string is in the buffer: skip it in one step
                    pos = whole.end()
                    if state == "key" and depth == 1:
                        key_start, key_json, state = match.start(), bytes(whole.group()), "colon"
                    continue
                in_string = True
                if state == "key" and depth == 1:
                    key_start = match.start()
                continue
            if depth == 1 and char == _COLON and state == "colon":
                key = _decode_key(key_json)
                span_start, span_offset, preview = pos, self.base + pos, None
                state = "value"
                if key == self.stream_key and self._next_is_array(pos):
                    state = "stream"
                continue
            if char in _OPENERS:
                depth += 1
                if state == "stream" and depth == 2:  # the streamed array opens: its first element follows
                    span_start, span_offset, preview = pos, self.base + pos, None
                continue
            if char == _COMMA and state == "stream" and depth == 2:
                index += 1
                text, offset, size, oversized = span_bytes(match.start())
                yield Element(index, offset, text, size, oversized, False)
                self._drop(pos)
                pos = span_start = 0
                span_offset, preview = self.base, None
                continue
            if char in _CLOSERS:
                depth -= 1
                if state == "stream" and depth == 1:  # the streamed array closes
                    text, offset, size, oversized = span_bytes(match.start())
                    if oversized or text:
                        index += 1
                        yield Element(index, offset, text, size, oversized, False)
                    self._drop(pos)
                    pos, state, preview = 0, "after_stream", None
                    continue
                if depth == 0:  # the object closes
                    if state == "value":
                        yield self._member(key_json, *span_bytes(match.start()))
                    self.complete = True
                    return
                continue
            if char == _COMMA and depth == 1:
                if state == "value":
                    yield self._member(key_json, *span_bytes(match.start()))
                self._drop(pos)
                pos, state, key_start, preview = 0, "key", None, None
        # The file ended before the object did: what was being read of the streamed array is given, marked.
        if state == "stream" and depth >= 2:
            text, offset, size, oversized = span_bytes(len(self.buf))
            if oversized or text:
                yield Element(index + 1, offset, text, size, oversized, True)

    def _open(self) -> bool:
        """Read up to the object's opening brace; False when the document is not an object."""
        while len(self.buf) < 4 and self._more():
            pass
        self.bom = self.buf.startswith(UTF8_BOM)
        start = len(UTF8_BOM) if self.bom else 0
        while True:
            stripped = self.buf[start:].lstrip(_WHITESPACE)
            if stripped or not self._more():
                break
        if not stripped.startswith(b"{"):
            self.is_object = False
            return False
        self._drop(len(self.buf) - len(stripped) + 1)
        return True

    def _next_is_array(self, pos: int) -> bool:
        while True:
            rest = self.buf[pos:].lstrip(_WHITESPACE)
            if rest or not self._more():
                return rest.startswith(b"[")

    @staticmethod
    def _member(key_json: bytes | None, text: bytes, offset: int, size: int, oversized: bool) -> Member:
        return Member(_decode_key(key_json), key_json or b'""', text, offset, size, oversized)


def _decode_key(key_json: bytes | None) -> str:
    if not key_json:
        return ""
    try:
        return json.loads(key_json)
    except ValueError:
        return key_json.decode("utf-8", "backslashreplace").strip('"')
