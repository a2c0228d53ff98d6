"""Turn what a user passes to `evalhouse ingest` (files, folders, globs) into input files, and each input file
into a stream of raw records (bytes plus where they came from), reading with bounded memory.
"""

from __future__ import annotations

import glob
import gzip
import hashlib
import io
import os
import re
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Callable, NamedTuple

from ingest import readers_harness, readers_inspect  # Inspect AI and lm-eval output
from ingest import readers_yaml
from ingest.byte_order_mark import UTF8_BOM, carry_bom
from ingest.left_out import LeftOut, cannot_list, cannot_read, dangling, left_out, not_a_file, quietly_ignored

# A line formats cannot use is still kept whole up to this size; beyond it only a preview is kept in the
# quarantine (the file itself stays the system of record, and the row says where the line is).
DEFAULT_MAX_RECORD_BYTES = 16 * 1024 * 1024
PREVIEW_BYTES = 64 * 1024
_READ_CHUNK = 1024 * 1024


class InputError(Exception):
    """A path the user gave cannot be read as input; the message says which and why."""


class SourceError(Exception):
    """A whole file (or the rest of it) cannot be read, e.g. a `.gz` that is not gzip. When it stops inside a line,
    `line`, `offset` and `data` say which and what of it was read (a gzip stream cut off: the text decompressed)."""

    def __init__(self, kind: str, message: str, *, line: int | None = None, offset: int | None = None,
                 data: bytes = b"") -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.line, self.offset, self.data = line, offset, data


class RawRecord(NamedTuple):
    """One record's bytes as found in a file: a JSONL line, or one element of a `.json` array. (A named tuple:
    one is made per record, and a tuple is made several times faster than a frozen dataclass.)"""

    line: int  # 1-based line number; for a `.json` document, the element's position in the array (from 1)
    offset: int  # byte offset of the record in the (decompressed) stream
    data: bytes  # the record without its line ending; only a preview when `oversized`
    size: int  # the record's full size in bytes
    oversized: bool = False
    unterminated: bool = False  # the last line of a file that ends without a newline


class ConvertedRecord(NamedTuple):
    """A record whose text evalhouse rendered as JSON from another notation (a YAML suite): a column of that text
    is no place in the file, so a refusal of it says where by its JSON pointer (ingest/parse.py) and, for a value
    JSON cannot hold, by the line of the file that wrote it. RawRecord's fields, then that line."""

    line: int  # the suite's position in the file (from 1)
    offset: int  # the byte where the suite starts in the file
    data: bytes
    size: int
    oversized: bool = False
    unterminated: bool = False
    # The file's line (from 1) of the record's first value that JSON has no number for (a YAML `.nan` or `.inf`):
    # the one that a refusal of the rendering names by its pointer, the rendering keeping the file's order.
    nonfinite_line: int | None = None
    converted = True


@dataclass(frozen=True, slots=True)
class LinesChunk:
    """About a megabyte of whole JSON lines, as read: the process that validates them splits them, so reading a
    large file costs its reader a count of newlines, not a Python object per line."""

    first_line: int  # the 1-based line number of the chunk's first line
    offset: int  # the (decompressed) stream offset of its first byte
    data: bytes  # complete lines; only the file's last may lack its newline


def is_supported(path: Path) -> bool:
    return _reader_for(path) is not None


@dataclass(frozen=True)
class Inputs:
    """What the paths given to an ingest name: the files it reads, resolved, in a stable order, each once; and the
    files of its folders and globs that it does not read, each with why (clutter such as `.DS_Store` aside)."""

    files: list[Path]
    left_out: list[LeftOut]


def find_inputs(args: Iterable[str], *, each_names_input: bool = True) -> Inputs:
    """Files, folders (searched recursively, symbolic links to folders followed) and glob patterns. With
    `each_names_input`, every path must name at least one file evalhouse reads, or InputError says which does not and
    why, before anything is read: a folder that is empty or holds only files of other types is a mistake to be told
    (an `.ndjson` export loaded as nothing), not a run that loads nothing and succeeds. A file named directly that
    evalhouse does not read (or may not read) is an InputError whatever `each_names_input` says."""
    found: list[Path] = []
    skipped: dict[Path, LeftOut] = {}
    for arg in args:
        path = Path(arg).expanduser()
        if path.is_file():
            if not is_supported(path):
                raise InputError(f"{arg}: unsupported file type; {left_out(path, SUPPORTED_SUFFIXES).reason}")
            unreadable = _unreadable(path)
            if unreadable is not None:
                raise InputError(f"{arg}: {unreadable.reason}")
            found.append(path)
            continue
        if path.is_dir():
            files, unread = _search_folder(path)
            what = "the folder"
        elif glob.has_magic(arg):
            files, unread = [], []
            for match in sorted(Path(m) for m in glob.glob(arg, recursive=True)):
                if match.is_dir():
                    more, more_unread = _search_folder(match)
                    files += more
                    unread += more_unread
                else:
                    _sort_entry(match, None, files, unread)
            what = "the pattern"
        elif path.is_symlink():
            raise InputError(f"{arg}: {dangling(path, SUPPORTED_SUFFIXES).reason}")
        else:
            raise InputError(f"{arg}: no such file or folder")
        if not files and (each_names_input or what == "the pattern"):
            raise InputError(_names_no_input(arg, what, unread))
        found += files
        for item in unread:
            skipped.setdefault(_resolved(item.path), item)
    unique: dict[Path, None] = {}
    for p in found:
        unique.setdefault(p.resolve(), None)
    return Inputs(list(unique), [item for key, item in skipped.items() if key not in unique])


def _resolved(path: Path) -> Path:
    """The path with its links followed, or as it is when they go round in a loop (a link to itself)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path.absolute()


def expand_paths(args: Iterable[str], *, each_names_input: bool = True) -> list[Path]:
    """The files find_inputs finds, without the ones it leaves out."""
    return find_inputs(args, each_names_input=each_names_input).files


def _search_folder(folder: Path) -> tuple[list[Path], list[LeftOut]]:
    """A folder's files evalhouse reads, and those it does not read but should say so (not hidden files, not
    editor backups), each list sorted. A symbolic link to a folder is searched as a folder (a dataset linked into
    the landing folder is expected to load); a folder reached twice (a link back up the tree) is searched once. A
    folder that cannot be listed is left out, said."""
    files: list[Path] = []
    unread: list[LeftOut] = []
    searched: set[tuple[int, int]] = set()
    pending = [folder]
    while pending:
        directory = pending.pop()
        try:
            status = directory.stat()
            if (status.st_dev, status.st_ino) in searched:
                continue
            searched.add((status.st_dev, status.st_ino))
            with os.scandir(directory) as listing:
                entries = [directory / entry.name for entry in listing]
        except OSError as exc:
            if not quietly_ignored(directory, folder):
                unread.append(cannot_list(directory, exc))
            continue
        for entry in entries:
            try:
                if entry.is_dir():
                    pending.append(entry)
                else:
                    _sort_entry(entry, folder, files, unread)
            except OSError as exc:  # a folder listed but not searchable (mode r--): its entries cannot be looked at
                if not quietly_ignored(entry, folder):
                    unread.append(cannot_read(entry, exc, SUPPORTED_SUFFIXES))
    return sorted(files), sorted(unread, key=lambda item: item.path)


def _sort_entry(path: Path, root: Path | None, files: list[Path], unread: list[LeftOut]) -> None:
    """Put a path of a folder or glob that is not a folder among the files to read, or those left out with why, or
    neither (clutter)."""
    if not path.exists():  # a symbolic link to nothing, or a file deleted since it was listed
        if path.is_symlink() and not quietly_ignored(path, root):  # a hidden one: an editor's lock (`.#notes.jsonl`)
            unread.append(dangling(path, SUPPORTED_SUFFIXES))
        return
    if not path.is_file():
        if not quietly_ignored(path, root):
            unread.append(not_a_file(path))
        return
    if is_supported(path):
        unreadable = _unreadable(path)
        if unreadable is None:
            files.append(path)
        else:
            unread.append(unreadable)
    elif not quietly_ignored(path, root):
        unread.append(left_out(path, SUPPORTED_SUFFIXES))


def _unreadable(path: Path) -> LeftOut | None:
    """Why this user cannot read the file, found by opening it (permissions, ACLs and mounts all have their say),
    or None when it can."""
    try:
        with path.open("rb"):
            return None
    except OSError as exc:
        return cannot_read(path, exc, SUPPORTED_SUFFIXES)


def _names_no_input(arg: str, what: str, unread: list[LeftOut]) -> str:
    """Why a folder or pattern gives nothing to read, and what to do, naming the first files it left out."""
    reads = ", ".join(SUPPORTED_SUFFIXES)
    if not unread:
        nothing = "matches no file" if what == "the pattern" else "holds no file (hidden files aside)"
        return f"{arg}: {what} {nothing}; evalhouse reads {reads}: check the path"
    shown = "; ".join(f"{item.path.name}: {item.reason}" for item in unread[:3])
    more = f"; and {len(unread) - 3} more" if len(unread) > 3 else ""
    return (f"{arg}: {what} {'matches' if what == 'the pattern' else 'holds'} no {reads} file, so nothing was "
            f"read; it leaves out {len(unread)} file(s): {shown}{more}")


def file_sha256(path: Path) -> tuple[str, int]:
    """The checksum of the file's bytes as stored (compressed for `.gz`) and its size."""
    digest = hashlib.sha256()
    size = 0
    with path.open("rb") as handle:
        while chunk := handle.read(_READ_CHUNK):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


def prefix_sha256s(path: Path, sizes: Iterable[int]) -> dict[int, str]:
    """The checksum of the file's first n bytes, for each n of `sizes` (as file_sha256 takes it over a whole file), in
    one read as far as the largest: whether the file begins with the bytes of an earlier load."""
    wanted = sorted(set(sizes))
    digest, done, shas = hashlib.sha256(), 0, {}
    with path.open("rb") as handle:
        for size in wanted:
            while done < size and (chunk := handle.read(min(_READ_CHUNK, size - done))):
                digest.update(chunk)
                done += len(chunk)
            if done < size:  # the file is shorter now
                break
            shas[size] = digest.copy().hexdigest()
    return shas


def read_records(path: Path, max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES) -> Iterator[RawRecord]:
    """Yield the records of one file. Raises SourceError when the rest of the file cannot be read."""
    reader = _reader_for(path)
    if reader is None:
        raise InputError(f"{path}: unsupported file type; evalhouse reads {', '.join(SUPPORTED_SUFFIXES)}")
    yield from reader(path, max_record_bytes)


def read_units(path: Path, max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES, size: int | None = None
               ) -> Iterator[LinesChunk | RawRecord]:
    """A file as units of work: chunks of whole lines for plain JSON Lines (gzipped or not), records otherwise.
    A line longer than the limit comes as an oversized record, skipped to its end without being held. With `size`
    (the bytes its checksum was taken over), JSON Lines, lm-eval samples files among them, are read no further
    (reads_only_hashed): lines appended since are for the next run."""
    if reads_only_hashed(path):
        if path.name.lower().endswith(".gz"):
            yield from _gzip_chunks(path, max_record_bytes, size)
        elif _plain_jsonl(path):
            with _open_prefix(path, size) as handle:
                yield from _line_chunks(handle, max_record_bytes)
        else:  # an lm-eval samples file: each line in its envelope, a record at a time
            from ingest import readers_lm_eval

            yield from readers_lm_eval.read_samples(path, max_record_bytes, size)
        return
    yield from read_records(path, max_record_bytes)


def reads_only_hashed(path: Path) -> bool:
    """Whether read_units reads this file's first `size` bytes only: JSON Lines (gzipped or not, lm-eval samples
    files included), the files a harness appends to while they are ingested. The others, documents, are read whole:
    a caller compares the file after reading with what it hashed."""
    return path.name.lower().endswith((".jsonl.gz", ".ndjson.gz", ".ndjson", ".jsonl"))


def _open_prefix(path: Path, size: int | None) -> BinaryIO:
    """The file opened for reading, ending after `size` bytes (None: at its end)."""
    if size is None:
        return path.open("rb")
    return io.BufferedReader(_Prefix(path.open("rb", buffering=0), size), buffer_size=_READ_CHUNK)


class _Prefix(io.RawIOBase):
    """The first bytes of a file, so a file appended to while it is read is read as far as its checksum went."""

    def __init__(self, raw: io.RawIOBase, size: int) -> None:
        super().__init__()
        self._raw, self._left = raw, size

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self._left <= 0:
            return 0
        with memoryview(buffer) as view:
            n = self._raw.readinto(view[:self._left]) or 0
        self._left -= n
        return n

    def close(self) -> None:
        self._raw.close()
        super().close()


def _plain_jsonl(path: Path) -> bool:
    """JSON Lines read as lines: not a file a harness reader owns (lm-eval samples files, by name)."""
    from ingest import readers_lm_eval

    return not readers_lm_eval.is_samples_file(path)


def _gzip_chunks(path: Path, max_record_bytes: int, size: int | None = None) -> Iterator[LinesChunk | RawRecord]:
    _check_gzip_magic(path)
    compressed = _open_prefix(path, size)
    handle = gzip.GzipFile(fileobj=compressed, mode="rb")
    try:
        _check_not_gzip_twice(path, handle)
        yield from _line_chunks(handle, max_record_bytes, partial_reads=True, gzip_name=path.name)
    except _GZIP_ERRORS as exc:  # past the line reads (while skipping an over-long line): no line text to keep
        raise _gzip_damage(path.name, exc) from exc
    finally:
        handle.close()
        compressed.close()


_GZIP_ERRORS = (gzip.BadGzipFile, EOFError, zlib.error, OSError)


def _check_not_gzip_twice(path: Path, handle: gzip.GzipFile) -> None:
    """A `.gz` whose decompressed bytes are gzip again (compressed twice) is refused whole, saying so: read as
    lines it would be rows of binary, each refused as not UTF-8."""
    try:
        head = handle.peek(2)[:2]
    except _GZIP_ERRORS:
        return  # the line reads say what is wrong with the stream
    if head == b"\x1f\x8b":
        raise SourceError("not_gzip", f"{path.name} is compressed twice: its gzip data holds another gzip stream, "
                                      "not JSON Lines. Decompress it once (gunzip it and name the result .jsonl.gz) "
                                      "and ingest it again")


def _gzip_damage(name: str, exc: BaseException, line: int | None = None, offset: int | None = None,
                 data: bytes = b"") -> SourceError:
    """Why a gzip stream cannot be read further, where, and what to do; `data`: what was read of the line it
    stops in (kept in the quarantine row)."""
    if isinstance(exc, EOFError):
        what = "the gzip data ends before its end marker: the file was cut short (an interrupted copy or write?)"
    else:
        what = f"the gzip data is damaged ({exc})"
    where = (f"line {line:,} is cut off there (the text decompressed of it is kept) and nothing after it can be read"
             if data else "nothing after that point can be read")
    return SourceError("corrupt_gzip", f"{name}: {what}; {where}; the lines before it are loaded. Copy the file "
                                       "again from its source, or compress its text again, and ingest it again",
                       line=line if data else None, offset=offset if data else None, data=data)


def _trailing_bytes(name: str) -> SourceError:
    return SourceError("corrupt_gzip", f"{name} has bytes after the end of its gzip data that are not gzip (something "
                                       "appended to the file, or padding from a copy): every line of the gzip data "
                                       "was read and is loaded; remove those bytes (or compress the text again) to "
                                       "clear this row")


def _line_chunks(handle: BinaryIO, max_record_bytes: int, *, partial_reads: bool = False,
                 gzip_name: str | None = None) -> Iterator[LinesChunk | RawRecord]:
    """Chunks of whole lines. With `gzip_name` (a gzip stream), a read that fails raises SourceError with the
    text decompressed of the line it stopped in; bytes after the end of the gzip data that are not gzip end
    the file's lines (its last line included) with a SourceError that says so."""
    read = handle.read1 if partial_reads else handle.read
    offset, line_no, pending = 0, 1, b""
    while True:
        try:
            chunk = read(_READ_CHUNK)
        except _GZIP_ERRORS as exc:
            if gzip_name is None:
                raise
            if isinstance(exc, gzip.BadGzipFile) and str(exc).startswith("Not a gzipped file"):
                # A member ended whole; what follows it is no gzip member: the lines read are the file's.
                if pending:
                    yield LinesChunk(line_no, offset, pending)
                raise _trailing_bytes(gzip_name) from exc
            raise _gzip_damage(gzip_name, exc, line_no, offset, pending) from exc
        if not chunk:
            break
        data = pending + chunk if pending else chunk
        end = data.rfind(b"\n")
        if end < 0:
            pending = data
        else:
            whole, pending = data[:end + 1], data[end + 1:]
            yield LinesChunk(line_no, offset, whole)
            line_no += whole.count(b"\n")
            offset += len(whole)
        if len(pending) > max_record_bytes:
            record, pending, consumed = _skip_long_line(handle, line_no, offset, pending)
            yield record
            line_no += 1
            offset += consumed
    if pending:
        yield LinesChunk(line_no, offset, pending)


def _reader_for(path: Path) -> Reader | None:
    name = path.name.lower()
    return next((reader for suffix, reader in READERS if name.endswith(suffix)), None)


def _read_jsonl(path: Path, max_record_bytes: int, size: int | None = None) -> Iterator[RawRecord]:
    """JSON Lines a record per line; with `size`, of the file's first `size` bytes only (_open_prefix)."""
    with _open_prefix(path, size) as handle:
        yield from _read_lines(handle, max_record_bytes)


def _read_json(path: Path, max_record_bytes: int) -> Iterator[RawRecord]:
    with path.open("rb") as handle:
        yield from _read_document(handle, max_record_bytes)


def _check_gzip_magic(path: Path) -> None:
    with path.open("rb") as raw:
        magic = raw.read(2)
        if magic and magic != b"\x1f\x8b":  # a 0-byte file is empty, as a 0-byte .jsonl is
            start = (magic + raw.read(14)).decode("utf-8", "backslashreplace")
            hint = " (it looks like plain JSON: rename it to .jsonl)" if start.lstrip().startswith(("{", "[")) else ""
            raise SourceError("not_gzip", f"{path.name} is not a gzip file: it starts with {start!r}{hint}")


def _read_gzip_lines(path: Path, max_record_bytes: int) -> Iterator[RawRecord]:
    _check_gzip_magic(path)
    handle = gzip.open(path, "rb")
    try:
        _check_not_gzip_twice(path, handle)
        yield from _read_lines(handle, max_record_bytes, partial_reads=True)
    except _GZIP_ERRORS as exc:
        raise _gzip_damage(path.name, exc) from exc
    finally:
        handle.close()


def _read_lines(handle: BinaryIO, max_record_bytes: int, *, partial_reads: bool = False) -> Iterator[RawRecord]:
    """JSON Lines, read in large chunks and split in C; a line longer than the limit is skipped to its end
    without being held (only its preview is kept). With `partial_reads` (a decompressing stream), each read
    returns what is ready, so a damaged stream keeps every line before the damage."""
    read = handle.read1 if partial_reads else handle.read
    offset = 0  # stream offset of `pending`
    line_no = 0
    pending = b""
    while True:
        chunk = read(_READ_CHUNK)
        if not chunk:
            break
        data = pending + chunk if pending else chunk
        lines = data.split(b"\n")
        pending = lines.pop()
        for line in lines:
            line_no += 1
            if len(line) > max_record_bytes:
                yield RawRecord(line_no, offset, line[:PREVIEW_BYTES], len(line), oversized=True)
            else:
                yield _line_record(line_no, offset, line, terminated=True)
            offset += len(line) + 1
        if len(pending) > max_record_bytes:
            line_no += 1
            record, pending, consumed = _skip_long_line(handle, line_no, offset, pending)
            yield record
            offset += consumed
    if pending:
        line_no += 1
        if len(pending) > max_record_bytes:
            yield RawRecord(line_no, offset, pending[:PREVIEW_BYTES], len(pending), oversized=True, unterminated=True)
        else:
            yield _line_record(line_no, offset, pending, terminated=False)


def _skip_long_line(handle: BinaryIO, line_no: int, offset: int, start: bytes) -> tuple[RawRecord, bytes, int]:
    """Read past the end of an over-long line: (its record, the bytes after it, bytes consumed)."""
    preview, size = start[:PREVIEW_BYTES], len(start)
    while True:
        chunk = handle.read(_READ_CHUNK)
        if not chunk:
            return RawRecord(line_no, offset, preview, size, oversized=True, unterminated=True), b"", size
        end = chunk.find(b"\n")
        if end < 0:
            size += len(chunk)
            continue
        size += end
        return RawRecord(line_no, offset, preview, size, oversized=True), chunk[end + 1:], size + 1


def _line_record(line_no: int, offset: int, data: bytes, *, terminated: bool) -> RawRecord:
    if data.endswith(b"\r"):
        data = data[:-1]
    return RawRecord(line_no, offset, data, len(data), unterminated=not terminated)


def _read_document(handle: BinaryIO, max_record_bytes: int) -> Iterator[RawRecord]:
    """A `.json` file: one record (an object) or an array of records, streamed element by element."""
    head = handle.read(_READ_CHUNK)
    body = head[len(UTF8_BOM):] if head.startswith(UTF8_BOM) else head
    first = body.lstrip()[:1]
    if first == b"[":
        yield from _ArraySplitter(handle, head, max_record_bytes, bom=body is not head).records()
        return
    # A single document (or something that is not JSON: the parser will say so).
    data = bytearray(head)
    while len(data) <= max_record_bytes and (more := handle.read(_READ_CHUNK)):
        data.extend(more)
    if len(data) > max_record_bytes:
        size = len(data)
        while more := handle.read(_READ_CHUNK):
            size += len(more)
        yield RawRecord(1, 0, bytes(data[:PREVIEW_BYTES]), size, oversized=True)
        return
    if not bytes(data).strip():
        return
    # The document is the whole file: if it ends before its value does, the file was cut off (`truncated`).
    yield RawRecord(1, 0, bytes(data).strip(), len(data), unterminated=True)


class _ArraySplitter:
    """Splits a top-level JSON array into its elements' bytes without parsing them, chunk by chunk.

    Only the structural characters matter: quotes (with backslash escapes) and brackets at depth 1.
    Malformed text is passed through as an element so the parser reports it with its position. An element
    larger than the limit is scanned to its end without being held: only its preview is kept.
    """

    _STRUCTURAL = re.compile(rb'["\[\]{},]')
    _IN_STRING = re.compile(rb'["\\]')

    def __init__(self, handle: BinaryIO, head: bytes, max_record_bytes: int, *, bom: bool = False) -> None:
        self.handle = handle
        self.bom = bom  # the file starts with a UTF-8 byte-order mark: it goes with the first element
        self.buf = head
        self.base = 0  # stream offset of buf[0]
        self.max = max_record_bytes

    def _more(self) -> bool:
        chunk = self.handle.read(_READ_CHUNK)
        if not chunk:
            return False
        self.buf += chunk
        return True

    def _drop(self, upto: int) -> None:
        self.base += upto
        self.buf = self.buf[upto:]

    def records(self) -> Iterator[RawRecord]:
        pos = self.buf.index(b"[") + 1
        depth, index, string = 1, 0, False
        elem_start = pos  # index in buf where the current element starts
        elem_offset = self.base + pos  # its offset in the stream
        preview: bytes | None = None  # set once the element is known to be oversized

        def element(end: int) -> RawRecord:
            nonlocal index
            index += 1
            size = self.base + end - elem_offset
            if preview is not None:
                return RawRecord(index, elem_offset, preview, size, oversized=True)
            raw = bytes(self.buf[elem_start:end])
            data = raw.lstrip()
            skipped = len(raw) - len(data)
            data = data.rstrip()
            record = RawRecord(index, elem_offset + skipped, data, len(data))
            return carry_bom(record) if index == 1 and self.bom else record

        while True:
            m = (self._IN_STRING if string else self._STRUCTURAL).search(self.buf, pos)
            if m is None:
                if preview is None and len(self.buf) - elem_start > self.max:
                    preview = bytes(self.buf[elem_start:elem_start + PREVIEW_BYTES])
                if preview is not None:  # nothing of an oversized element is kept but its preview
                    self._drop(len(self.buf))
                    pos = elem_start = 0
                else:
                    pos = len(self.buf)
                if not self._more():
                    if preview is not None or self.buf[elem_start:].strip():
                        record = element(len(self.buf))
                        yield RawRecord(record.line, record.offset, record.data, record.size,
                                        record.oversized, unterminated=True)
                    if depth == 1 and not string:
                        # Cut between elements (a writer killed after its last comma or element): every element
                        # read may be whole, so without this nothing would say the rest of the array is missing.
                        # A cut inside an element is that element's own `truncated` row.
                        raise SourceError("truncated", _unclosed_array(index))
                    return
                continue
            ch, pos = m.group(), m.end()
            if string:
                if ch == b"\\":
                    if pos >= len(self.buf) and not self._more():
                        continue
                    pos += 1
                else:
                    string = False
            elif ch == b'"':
                string = True
            elif ch in (b"{", b"["):
                depth += 1
            elif ch in (b"}", b"]"):
                depth -= 1
                if depth == 0:  # the end of the top-level array
                    if preview is not None or self.buf[elem_start:m.start()].strip():
                        yield element(m.start())
                    trailing = self.buf[pos:].strip()
                    while not trailing and self._more():
                        trailing = self.buf[pos:].strip()
                    if trailing:
                        index += 1
                        yield RawRecord(index, self.base + pos, bytes(trailing[:PREVIEW_BYTES]), len(trailing))
                    return
            elif ch == b"," and depth == 1:
                yield element(m.start())
                self._drop(pos)
                pos = elem_start = 0
                elem_offset = self.base
                preview = None


def _unclosed_array(n_elements: int) -> str:
    after = f"after element {n_elements}" if n_elements else "before its first element"
    return (
        f"the array is not closed {after}: the file was cut short (an interrupted write?), so any elements "
        "that followed are missing; the elements before the cut are loaded. Write the file again in full "
        "(a complete array ends with `]`) and ingest it again: the elements already loaded are skipped"
    )


Reader = Callable[[Path, int], Iterator[RawRecord]]

# How each kind of file becomes records, by file-name suffix (the first match wins: longer suffixes first).
# A new container format adds its reader module and one line here.
READERS: list[tuple[str, Reader]] = [
    (".jsonl.gz", _read_gzip_lines),
    (".jsonl", readers_harness.jsonl_reader(_read_jsonl)),  # lm-eval samples files by name, else JSON Lines
    (".ndjson.gz", _read_gzip_lines),  # newline-delimited JSON is JSON Lines under another name
    (".ndjson", _read_jsonl),
    (".json", readers_harness.json_reader(_read_json)),  # Inspect AI logs, lm-eval results files, else records
    (readers_inspect.EVAL_SUFFIX, readers_inspect.read_eval_log),  # Inspect AI .eval archives
    *((suffix, readers_yaml.read_yaml) for suffix in readers_yaml.YAML_SUFFIXES),  # ADP evaluation suites
]
SUPPORTED_SUFFIXES = tuple(suffix for suffix, _ in READERS)
