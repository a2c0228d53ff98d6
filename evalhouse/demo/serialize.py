"""Byte-stable JSON for the demo files: same records in, same bytes out, on any machine.

Key order is the order the builders insert keys (Python dicts keep it); non-ASCII is written as UTF-8, as
the real producers do, so the ingester sees raw é, 中文 and emoji rather than escapes.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path


def json_line(record: object) -> str:
    """One JSONL line (no newline), with the default separators the Python writers use."""
    return json.dumps(record, ensure_ascii=False, allow_nan=False)


def json_document(record: object) -> str:
    """A pretty-printed JSON document, indented like the published Every Eval Ever aggregates."""
    return json.dumps(record, ensure_ascii=False, allow_nan=False, indent=4) + "\n"


def jsonl_bytes(lines: list[str]) -> bytes:
    return "".join(line + "\n" for line in lines).encode("utf-8")


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_bytes(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
