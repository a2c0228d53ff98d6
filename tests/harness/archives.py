"""Build Inspect AI `.eval` archives for tests, byte by byte: members stored, deflated or zstd-compressed (zip
method 93), from the fixtures or made up. Python 3.11's zipfile cannot write zstd members and the tests must not
need the `zstandard` package to make one, so zstd frames are written here as raw blocks (RFC 8878: a frame
whose blocks hold their bytes uncompressed is a valid zstd frame every decoder reads)."""

from __future__ import annotations

import struct
import zipfile
import zlib
from pathlib import Path

STORED, DEFLATED, ZSTD = 0, 8, 93
_RAW_BLOCK_MAX = 128 * 1024


def zstd_frame(data: bytes) -> bytes:
    """A zstd frame holding `data` in raw blocks, with its content size and no checksum."""
    header = b"\x28\xb5\x2f\xfd" + bytes([0xA0]) + struct.pack("<I", len(data))  # single segment, 4-byte size
    blocks = bytearray()
    chunks = [data[i:i + _RAW_BLOCK_MAX] for i in range(0, len(data), _RAW_BLOCK_MAX)] or [b""]
    for n, chunk in enumerate(chunks):
        last = 1 if n == len(chunks) - 1 else 0
        blocks += ((len(chunk) << 3) | last).to_bytes(3, "little") + chunk  # block type 0: raw
    return header + bytes(blocks)


def write_archive(path: Path, members: list[tuple[str, bytes, int]]) -> Path:
    """A zip file with `members` as (name, data, method), in that order."""
    out, central = bytearray(), bytearray()
    for name, data, method in members:
        if method == STORED:
            payload = data
        elif method == DEFLATED:
            compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
            payload = compressor.compress(data) + compressor.flush()
        elif method == ZSTD:
            payload = zstd_frame(data)
        else:
            raise ValueError(f"method {method}")
        crc, encoded, offset = zlib.crc32(data), name.encode(), len(out)
        out += struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, method, 0, 0x21, crc, len(payload), len(data),
                           len(encoded), 0) + encoded + payload
        central += struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, method, 0, 0x21, crc, len(payload),
                               len(data), len(encoded), 0, 0, 0, 0, 0, offset) + encoded
    directory_offset = len(out)
    out += central
    out += struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, len(members), len(members), len(central),
                       directory_offset, 0)
    path.write_bytes(bytes(out))
    return path


def members_of(path: Path) -> list[tuple[str, bytes]]:
    """The (name, data) of every member of a fixture archive, in archive order."""
    with zipfile.ZipFile(path) as archive:
        return [(info.filename, archive.read(info)) for info in archive.infolist()]


def rewrite(path: Path, out: Path, method: int = DEFLATED, **replacements: tuple[bytes, bytes]) -> Path:
    """A copy of archive `path` with every member written with `method`; `replacements` maps a member name (with
    '/' written '__' and '.' written '_') to an (old, new) text replacement in it."""
    changed = []
    for name, data in members_of(path):
        key = name.replace("/", "__").replace(".", "_")
        if key in replacements:
            old, new = replacements[key]
            assert old in data, f"{old!r} is not in {name}"
            data = data.replace(old, new)
        changed.append((name, data, method))
    return write_archive(out, changed)
