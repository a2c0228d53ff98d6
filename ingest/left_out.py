"""Why a file found in a folder (or by a glob) is not read, so that an ingest says so instead of dropping it silently:
a `.json.gz`, a `.csv` or a `forms.jsonl.tmp` left out of a folder is data the user expects loaded. Clutter that no
one expects loaded (hidden files such as `.DS_Store`, anything under a hidden folder such as `.git/`, editor
backups `notes~` and `#notes#`) is ignored quietly. A file or folder that cannot be read (no permission), a symbolic
link to nothing, and a file that changed while it was read are left out too, each with why.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

# What each compression's files are opened with, to say how to get at the records inside.
_COMPRESSED = {
    ".gz": "gzip (`gunzip`)",
    ".zst": "zstd (`zstd -d`)",
    ".zstd": "zstd (`zstd -d`)",
    ".bz2": "bzip2 (`bunzip2`)",
    ".xz": "xz (`unxz`)",
    ".lz4": "lz4 (`lz4 -d`)",
    ".br": "brotli (`brotli -d`)",
    ".zip": "zip (`unzip`)",
    ".7z": "7-Zip (`7z x`)",
    ".tar": "tar (`tar -xf`)",
    ".tgz": "tar and gzip (`tar -xzf`)",
}
_TABLES = (".csv", ".tsv", ".parquet", ".xlsx", ".xls", ".arrow", ".feather", ".avro", ".orc")
_JSON_LIKE = (".jsonlines", ".json5", ".jsonc", ".geojson", ".ldjson")
_CLUTTER_NAMES = {"thumbs.db", "desktop.ini", "icon\r"}


@dataclass(frozen=True)
class LeftOut:
    """A file of a folder or glob that the ingest did not read: where, why and what to do, and whether it looks like
    data (JSON records compressed another way, a table, a copy of a readable file under another ending), which
    --fail-on-reject fails on; a README.md or a picture beside the data is said, but fails nothing."""

    path: Path
    reason: str
    looks_like_data: bool


def quietly_ignored(path: Path, root: Path | None) -> bool:
    """Whether a file no one expects loaded: hidden (its name, or a folder between `root` and it, starts with a
    dot), an editor's backup or autosave, or an operating system's folder clutter."""
    parts = path.relative_to(root).parts if root is not None and path.is_relative_to(root) else (path.name,)
    name = path.name
    return (any(part.startswith(".") for part in parts) or name.endswith("~")
            or (name.startswith("#") and name.endswith("#")) or name.lower() in _CLUTTER_NAMES)


def left_out(path: Path, supported: tuple[str, ...]) -> LeftOut:
    """Why `path`, whose name ends in none of `supported`, is not read, and what to do about it."""
    name = path.name.lower()
    reads = ", ".join(supported)
    stem, compression = _compression(name)
    if compression is not None:
        if stem.endswith(".json") and compression == ".gz":
            return LeftOut(path, "gzip-compressed JSON, which evalhouse reads only as JSON Lines (.jsonl.gz, "
                                 ".ndjson.gz): if it holds one record per line, rename it to end in .jsonl.gz; "
                                 "otherwise decompress it (`gunzip`) to .json and ingest that", True)
        what = "JSON records" if _has_json_ending(stem) else "a file"
        return LeftOut(path, f"{what} compressed with {_COMPRESSED[compression]}, which evalhouse does not read "
                             "(it reads gzip only, as .jsonl.gz): decompress it and ingest the file inside, or "
                             "compress JSON Lines with gzip as .jsonl.gz", True)
    if name.endswith(_TABLES):
        return LeftOut(path, f"a table ({name[name.rindex('.'):]}), not JSON records: export it as JSON Lines "
                             "(.jsonl, one record per line) to ingest it; README \"Formats\" names each format's "
                             "schema under schemas/, which lists the fields it needs", True)
    inner = next((s for s in supported if f"{s}." in name), None)  # forms.jsonl.tmp, results.json.1
    if inner is not None:
        ending = name[name.rindex(inner) + len(inner):]
        return LeftOut(path, f"its name ends in {ending!r} after {inner} (a copy, a backup, or a file still being "
                             f"written?): if it is a complete file evalhouse should read, rename it to end in "
                             f"{inner}", True)
    if name.endswith(_JSON_LIKE):
        return LeftOut(path, f"evalhouse reads only {reads} files: if it holds one JSON record per line, rename it to "
                             "end in .jsonl", True)
    return LeftOut(path, f"evalhouse reads only {reads} files", False)


def cannot_read(path: Path, exc: OSError, supported: tuple[str, ...]) -> LeftOut:
    """A file this user may not read (or that went away before its turn): data if its name says so."""
    return LeftOut(path, f"cannot be read ({exc.strerror or exc}): give this user read permission (`chmod a+r`), "
                         "or ingest it as a user who may read it", _named_as_data(path, supported))


def cannot_list(folder: Path, exc: OSError) -> LeftOut:
    """A folder whose files cannot be listed: what it holds is unknown, so it may hold data."""
    return LeftOut(folder, f"a folder that cannot be listed ({exc.strerror or exc}), so no file in it was read: give "
                           "this user permission to list it (`chmod a+rx`), or ingest it as a user who may", True)


def dangling(link: Path, supported: tuple[str, ...]) -> LeftOut:
    """A symbolic link to nothing (its target moved or deleted, or a share not mounted)."""
    return LeftOut(link, f"a symbolic link to {os.readlink(link)}, which does not exist: restore what it points to "
                         "(mount the share, copy the file back), or remove the link", _named_as_data(link, supported))


def not_a_file(path: Path) -> LeftOut:
    """A pipe, a socket or a device: reading one may never end."""
    return LeftOut(path, "not a regular file (a pipe, a socket or a device): write its records to a file and ingest "
                         "that", False)


def changed_while_read(path: Path) -> LeftOut:
    """A whole document (`.json`, `.yaml`, `.eval`; not JSON Lines, read as far as they were hashed) that changed
    between its checksum and its reading: what was read is not what the checksum names, so nothing of it is loaded."""
    return LeftOut(path, "it changed while it was read (still being written?), so nothing of it was loaded: ingest it "
                         "again once it is complete", True)


def _named_as_data(path: Path, supported: tuple[str, ...]) -> bool:
    """Whether a file's name says it holds data: an ending evalhouse reads, or one left_out counts as data."""
    return path.name.lower().endswith(supported) or left_out(path, supported).looks_like_data


def _compression(name: str) -> tuple[str, str | None]:
    """(the name without its compression ending, that ending), or (name, None)."""
    for suffix in _COMPRESSED:
        if name.endswith(suffix):
            return name[: -len(suffix)], suffix
    return name, None


def _has_json_ending(stem: str) -> bool:
    return stem.endswith((".json", ".jsonl", ".ndjson", *_JSON_LIKE))
