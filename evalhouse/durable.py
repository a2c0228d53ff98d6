"""Making a rename or a new file survive a crash: the directory that names it synced to disk."""

from __future__ import annotations

import os
from pathlib import Path


def fsync_directory(directory: Path) -> None:
    """Sync a directory, so that the names created, replaced or removed in it are on disk."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
