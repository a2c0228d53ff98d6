"""Harness logs write Python's bare `NaN` (and `Infinity`), which is not JSON: Inspect AI for an unscored value or an
undefined metric, lm-evaluation-harness for a metric it could not compute. The harness readers turn each such
token into `null` before a record is parsed, so the record loads and the value is NULL downstream (never NaN,
never 0). Text inside strings is left alone; every other byte is kept as it is.
"""

from __future__ import annotations

import re

# A JSON string (skipped as a whole, escapes included) or a bare non-finite token outside strings.
_STRING_OR_NONFINITE = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|-?Infinity|NaN')


def nonfinite_to_null(data: bytes) -> tuple[bytes, int]:
    """(the text with every bare NaN / Infinity / -Infinity written as null, how many were replaced)."""
    if b"NaN" not in data and b"Infinity" not in data:
        return data, 0
    replaced = 0

    def swap(match: re.Match[bytes]) -> bytes:
        nonlocal replaced
        token = match.group()
        if token.startswith(b'"'):
            return token
        replaced += 1
        return b"null"

    return _STRING_OR_NONFINITE.sub(swap, data), replaced
