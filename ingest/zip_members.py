"""Read the members of a zip archive (an Inspect AI `.eval` log) one at a time, with bounded memory, whatever their
compression: stored, deflate, bzip2 and lzma through the standard library, and zstd (method 93, which newer
Inspect AI versions write and Python 3.11's zipfile cannot read) through the `zstandard` package when it is
installed. A member that cannot be read raises MemberUnreadable with a reason a person can act on; the other
members of the archive are not affected.
"""

from __future__ import annotations

import lzma
import struct
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

ZIP_ZSTANDARD = 93  # APPNOTE 4.4.5; Python 3.14's zipfile.ZIP_ZSTANDARD
_STDLIB_METHODS = {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA}
_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")  # as zipfile's structFileHeader
_LOCAL_SIGNATURE = b"PK\x03\x04"
_CHUNK = 1024 * 1024
ZSTANDARD_PIN = "zstandard==0.25.0"


class MemberUnreadable(Exception):
    """One member cannot be read; `kind` is a stable code, `message` says why and what to do."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


@dataclass(frozen=True)
class MemberData:
    data: bytes  # the whole member, or only its first `preview` bytes when oversized
    size: int  # the member's uncompressed size
    oversized: bool


def sorted_members(archive: zipfile.ZipFile) -> list[zipfile.ZipInfo]:
    """The archive's file members sorted by name: a member's 1-based place in this list is its stable position
    (the same whatever order the writer added members in)."""
    return sorted((info for info in archive.infolist() if not info.is_dir()), key=lambda info: info.filename)


def read_member(archive: zipfile.ZipFile, path: Path, info: zipfile.ZipInfo, limit: int, preview: int) -> MemberData:
    """The member's bytes, or a preview of them when it is larger than `limit`. Raises MemberUnreadable."""
    if info.flag_bits & 0x1:
        raise MemberUnreadable("encrypted_member", f"{info.filename} is encrypted; evalhouse reads unencrypted logs only")
    oversized = info.file_size > limit
    wanted = preview if oversized else limit + 1
    if info.compress_type in _STDLIB_METHODS:
        data = _read_stdlib(archive, info, wanted)
    elif info.compress_type == ZIP_ZSTANDARD:
        data = _read_zstd(path, info, wanted, whole=not oversized)
    else:
        raise MemberUnreadable(
            "unsupported_compression",
            f"{info.filename} uses zip compression method {info.compress_type}, which evalhouse cannot read "
            "(it reads stored, deflate, bzip2, lzma and zstd); re-save the log with `inspect log convert`",
        )
    if not oversized and len(data) > limit:  # the directory understated the size: treat it as oversized
        return MemberData(data[:preview], len(data), True)
    return MemberData(data, info.file_size if oversized else len(data), oversized)


def _read_stdlib(archive: zipfile.ZipFile, info: zipfile.ZipInfo, wanted: int) -> bytes:
    try:
        with archive.open(info) as member:
            # Reading to the end (a whole member) is where zipfile checks the CRC-32.
            return member.read(wanted)
    except NotImplementedError as exc:  # a Python built without bz2 or lzma
        raise MemberUnreadable(
            "unsupported_compression", f"{info.filename} cannot be decompressed by this Python ({exc})"
        ) from exc
    except (zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError, OSError, ValueError) as exc:
        raise MemberUnreadable(
            "corrupt_member", f"{info.filename} is damaged and cannot be decompressed ({exc}); the other members "
            "were read. Re-copy the log from where Inspect wrote it",
        ) from exc


def _read_zstd(path: Path, info: zipfile.ZipInfo, wanted: int, *, whole: bool) -> bytes:
    try:
        import zstandard
    except ImportError as exc:
        raise MemberUnreadable(
            "zstd_unavailable",
            f"{info.filename} is compressed with zstd (zip method 93, written by newer Inspect AI versions), "
            f"which Python's zipfile cannot read: install the zstandard package ({ZSTANDARD_PIN}) and ingest the "
            "file again, or convert the log with `inspect log convert --to json`",
        ) from exc
    try:
        with path.open("rb") as handle:
            window = _Window(handle, _data_start(handle, info), info.compress_size)
            reader = zstandard.ZstdDecompressor().stream_reader(window, read_across_frames=True)
            parts, got = [], 0
            while got < wanted and (chunk := reader.read(min(_CHUNK, wanted - got))):
                parts.append(chunk)
                got += len(chunk)
    except (zstandard.ZstdError, OSError, struct.error) as exc:
        raise MemberUnreadable(
            "corrupt_member", f"{info.filename} is damaged and cannot be decompressed (zstd: {exc}); the other "
            "members were read. Re-copy the log from where Inspect wrote it",
        ) from exc
    data = b"".join(parts)
    if whole and (len(data) != info.file_size or zlib.crc32(data) != info.CRC):
        raise MemberUnreadable(
            "corrupt_member", f"{info.filename} is damaged: its decompressed bytes do not match the archive's size "
            "and CRC-32. Re-copy the log from where Inspect wrote it",
        )
    return data


def _data_start(handle: BinaryIO, info: zipfile.ZipInfo) -> int:
    """Where a member's compressed bytes begin: after its local header, name and extra field."""
    handle.seek(info.header_offset)
    header = handle.read(_LOCAL_HEADER.size)
    fields = _LOCAL_HEADER.unpack(header)
    if fields[0] != _LOCAL_SIGNATURE:
        raise OSError(f"no local header at byte {info.header_offset}")
    name_length, extra_length = fields[-2], fields[-1]
    return info.header_offset + _LOCAL_HEADER.size + name_length + extra_length


class _Window:
    """A read-only view of `length` bytes of a file from `start`: one member's compressed bytes."""

    def __init__(self, handle: BinaryIO, start: int, length: int) -> None:
        self.handle, self.position, self.remaining = handle, start, length

    def read(self, size: int = -1) -> bytes:
        if self.remaining <= 0:
            return b""
        size = self.remaining if size is None or size < 0 else min(size, self.remaining)
        self.handle.seek(self.position)
        data = self.handle.read(size)
        self.position += len(data)
        self.remaining -= len(data)
        return data
