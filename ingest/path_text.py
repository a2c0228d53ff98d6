"""A file's path as the text the warehouse keeps and the summary prints. A name that is not UTF-8 (a Latin-1 name
from a Windows share or a zip) is kept with each byte that is not UTF-8 written as `\\xNN` (`x\\xe9y.jsonl`): DuckDB
and a terminal take only UTF-8, and the same file gives the same text on every run, so a second run finds it loaded.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

_ESCAPED_BYTE = re.compile(rb"\\x([0-9a-f]{2})")


def path_text(path: Path | str) -> str:
    """The path as UTF-8 text: as it is when its bytes are UTF-8 (nearly always), else with `\\xNN` for each byte
    that is not."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def path_from_text(text: str) -> Path:
    """The file that `text` (as path_text wrote it) names: `text` itself when that exists, else the path whose
    bytes its `\\xNN` escapes stand for (a name that was not UTF-8)."""
    path = Path(text)
    if "\\x" not in text or path.exists():
        return path
    return Path(os.fsdecode(_ESCAPED_BYTE.sub(lambda m: bytes([int(m[1], 16)]), text.encode("utf-8"))))
