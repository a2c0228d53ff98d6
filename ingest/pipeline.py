"""The ingest flow, file by file: read -> parse -> detect -> validate -> load (or quarantine), one transaction
per file, and a summary of what happened. `ingest_paths` is what the CLI, the app and the API call.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ingest.classify import ACCEPT, BLANK, ClassifyOptions, Outcome
from ingest.formats import FORMATS
from ingest.formats.base import RecordFormat
from ingest.load import FileRow, KnownKey, RawStore
from ingest.sources import (
    DEFAULT_MAX_RECORD_BYTES,
    PREVIEW_BYTES,
    UTF8_BOM,
    RawRecord,
    SourceError,
    expand_paths,
    file_sha256,
    read_records,
)
from ingest.workers import Classifier, worker_count

ProgressFn = Callable[[Path, int, int], None]  # (file, bytes done, file bytes)


@dataclass(frozen=True)
class IngestOptions:
    strict: bool = False
    forced_format: str | None = None
    max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES
    batch_rows: int = 5000
    workers: int | None = None  # classification processes: None decides by input size, 0 means in-process


@dataclass
class FormatCounts:
    files: int = 0
    accepted: int = 0
    repaired: int = 0
    quarantined: int = 0
    skipped: int = 0

    def add(self, other: FormatCounts) -> None:
        for name in ("files", "accepted", "repaired", "quarantined", "skipped"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class FileOutcome:
    path: Path
    status: str  # loaded | empty | unreadable | failed | already_loaded
    message: str | None = None
    n_lines: int = 0
    n_unchanged: int = 0  # lines of a changed file that were loaded before, unchanged
    by_format: dict[str, FormatCounts] = field(default_factory=dict)
    repairs: Counter = field(default_factory=Counter)

    @property
    def accepted(self) -> int:
        return sum(c.accepted for c in self.by_format.values())

    @property
    def quarantined(self) -> int:
        return sum(c.quarantined for c in self.by_format.values())


@dataclass
class RunSummary:
    batch_id: str
    files: list[FileOutcome]

    def by_format(self) -> dict[str, FormatCounts]:
        totals: dict[str, FormatCounts] = defaultdict(FormatCounts)
        for outcome in self.files:
            for name, counts in outcome.by_format.items():
                totals[name].add(counts)
        return dict(sorted(totals.items()))

    @property
    def quarantined(self) -> int:
        return sum(f.quarantined for f in self.files)

    @property
    def accepted(self) -> int:
        return sum(f.accepted for f in self.files)


def ingest_paths(
    paths: Iterable[str | Path],
    db_path: Path,
    options: IngestOptions = IngestOptions(),
    progress: ProgressFn | None = None,
) -> RunSummary:
    """Ingest files, folders and globs into the warehouse at `db_path`. The caller holds the writer lock."""
    if options.forced_format is not None and options.forced_format not in FORMATS:
        raise ValueError(f"unknown format {options.forced_format!r}; known formats: {', '.join(FORMATS)}")
    files = expand_paths(str(p) for p in paths)
    batch_id = uuid.uuid4().hex[:16]
    workers = options.workers if options.workers is not None else worker_count(sum(f.stat().st_size for f in files))
    classifier = Classifier(
        ClassifyOptions(options.strict, options.forced_format, options.max_record_bytes), processes=workers
    )
    store = RawStore(db_path)
    try:
        outcomes = [_ingest_file(store, classifier, options, batch_id, f, progress) for f in files]
    finally:
        store.close()
        classifier.close()
    return RunSummary(batch_id, outcomes)


def _ingest_file(
    store: RawStore, classifier: Classifier, options: IngestOptions, batch_id: str, path: Path,
    progress: ProgressFn | None,
) -> FileOutcome:
    sha, size = file_sha256(path)
    prior = store.prior_load(sha)
    if prior is not None:
        same = "" if prior.source_path == str(path) else f" as {prior.source_path}"
        return FileOutcome(path, "already_loaded", f"same content already loaded{same} at {prior.finished_at:%Y-%m-%d %H:%M}")
    started = _now()
    clock = time.perf_counter()
    load = _FileLoad(store, classifier, options, batch_id, path, sha, size, progress)
    try:
        with store.transaction():
            load.run()
            finished = _now()
            store.append_file(load.file_row(started, finished, (time.perf_counter() - clock) * 1000))
            store.append_repairs(load.repair_rows())
    except Exception as exc:  # noqa: BLE001 - a bug must cost one file, never the run
        message = f"nothing of this file was loaded: {type(exc).__name__}: {exc}"
        finished = _now()
        failed = FileRow(batch_id, str(path), sha, size, "failed", message, 0, 0, 0, 0, 0, 0, "{}",
                         options.strict, options.forced_format, started, finished,
                         (time.perf_counter() - clock) * 1000)
        with store.transaction():
            store.append_file(failed)
        return FileOutcome(path, "failed", message)
    return load.outcome()


@dataclass(slots=True)
class _Pending:
    fmt: RecordFormat
    record_id: str
    key: str | None
    version: str | None
    text: str
    repairs: tuple[str, ...]
    line: int
    offset: int
    sha: str


class _FileLoad:
    """The state of one file's load: pending rows, counts, and what was quarantined."""

    def __init__(self, store: RawStore, classifier: Classifier, options: IngestOptions, batch_id: str,
                 path: Path, file_sha: str, file_bytes: int, progress: ProgressFn | None) -> None:
        self.store, self.classifier, self.options = store, classifier, options
        self.batch_id, self.path, self.source_path = batch_id, path, str(path)
        self.file_sha, self.file_bytes, self.progress = file_sha, file_bytes, progress
        self.seen = store.lines_seen(self.source_path)
        self.pending: list[_Pending] = []
        self.quarantine: dict[str, list] = defaultdict(list)
        self.counts: dict[str, FormatCounts] = defaultdict(FormatCounts)
        self.repairs: Counter = Counter()  # (format, repair) -> records
        self.n_lines = self.n_blank = self.n_unchanged = 0
        self.status, self.message = "loaded", None
        self.now = _now()

    # -- the loop ---------------------------------------------------------------------------------------
    def run(self) -> None:
        last_line = 0
        try:
            for raw, outcome in self.classifier.outcomes(self._records()):
                last_line = raw.line
                self._apply(raw, outcome)
                if len(self.pending) >= self.options.batch_rows:
                    self._flush()
                if self.progress is not None and raw.line % 2000 == 0:
                    self.progress(self.path, raw.offset, self.file_bytes)
        except SourceError as exc:
            line = last_line + 1 if last_line else None
            self._quarantine(None, None, exc.kind, None, exc.message, b"", line=line, offset=None)
            self.status = "unreadable" if not last_line else "loaded"
            self.message = exc.message
        self._flush()
        if self.n_lines == 0 and self.status == "loaded":
            self.status, self.message = "empty", "the file holds no records"
        if self.progress is not None:
            self.progress(self.path, self.file_bytes, self.file_bytes)

    def _records(self) -> Iterator[RawRecord]:
        for raw in read_records(self.path, self.options.max_record_bytes):
            if raw.line == 1 and raw.data.startswith(UTF8_BOM):
                self.repairs[("file", "utf8_bom_removed")] += 1
                raw = RawRecord(raw.line, raw.offset + 3, raw.data[3:], raw.size - 3, raw.oversized, raw.unterminated)
            yield raw

    def _apply(self, raw: RawRecord, outcome: Outcome) -> None:
        if outcome[0] == BLANK:
            self.n_blank += 1
            return
        self.n_lines += 1
        sha = outcome[1]
        if self.seen is not None and (raw.line, sha) in self.seen:
            self.n_unchanged += 1
            return
        if outcome[0] == ACCEPT:
            _, _, format_name, key, version, repairs = outcome
            record_id = key if key is not None else _line_id(self.file_sha, raw.line)
            self.pending.append(_Pending(FORMATS[format_name], record_id, key, version, raw.data.decode("utf-8"),
                                         repairs, raw.line, raw.offset, sha))
        else:
            _, _, format_name, version, kind, pointer, message = outcome
            self._quarantine(FORMATS.get(format_name) if format_name else None, version, kind, pointer, message,
                             raw.data, line=raw.line, offset=raw.offset, sha=sha, truncated=raw.oversized)

    # -- writing ----------------------------------------------------------------------------------------
    def _flush(self) -> None:
        by_format: dict[str, list[_Pending]] = defaultdict(list)
        for p in self.pending:
            by_format[p.fmt.name].append(p)
        self.pending = []
        for name, rows in by_format.items():
            accepted = self._resolve_keys(FORMATS[name], rows)
            if accepted:
                self.store.append_records(name, self._record_columns(accepted))
                counts = self.counts[name]
                counts.accepted += len(accepted)
                for p in accepted:
                    if p.repairs:
                        counts.repaired += 1
                        for repair in p.repairs:
                            self.repairs[(name, repair)] += 1
        if self.quarantine:
            self.store.append_quarantine(dict(self.quarantine))
            self.quarantine = defaultdict(list)

    def _resolve_keys(self, fmt: RecordFormat, rows: list[_Pending]) -> list[_Pending]:
        """Skip a keyed record already loaded with the same content; quarantine one whose id was reused."""
        if fmt.natural_key_name is None:
            return rows
        known = self.store.known_keys(fmt.name, sorted({p.key for p in rows if p.key}))
        accepted = []
        for p in rows:
            prior = known.get(p.key) if p.key else None
            if prior is None:
                accepted.append(p)
                if p.key:
                    known[p.key] = KnownKey(p.sha, self.source_path, p.line)
            elif prior.record_sha256 == p.sha:
                self.counts[fmt.name].skipped += 1
            else:
                self._quarantine(
                    fmt, p.version, "conflict", f"/{fmt.natural_key_name}",
                    f"{fmt.natural_key_name} {p.key!r} was already loaded from {prior.source_path} line "
                    f"{prior.source_line} with different content; give the new record its own "
                    f"{fmt.natural_key_name} (records are never updated in place)",
                    p.text.encode("utf-8"), line=p.line, offset=p.offset, sha=p.sha,
                )
        return accepted

    def _record_columns(self, rows: list[_Pending]) -> dict[str, list]:
        return {
            "record_id": [p.record_id for p in rows],
            "natural_key": [p.key for p in rows],
            "schema_version": [p.version for p in rows],
            "record_json": [p.text for p in rows],
            "repairs": [json.dumps(list(p.repairs)) if p.repairs else None for p in rows],
            "source_path": [self.source_path] * len(rows),
            "source_line": [p.line for p in rows],
            "byte_offset": [p.offset for p in rows],
            "record_sha256": [p.sha for p in rows],
            "file_sha256": [self.file_sha] * len(rows),
            "ingested_at": [self.now] * len(rows),
            "batch_id": [self.batch_id] * len(rows),
        }

    def _quarantine(self, fmt: RecordFormat | None, version: str | None, kind: str, pointer: str | None,
                    message: str, data: bytes, *, line: int | None, offset: int | None, sha: str | None = None,
                    truncated: bool = False) -> None:
        name = fmt.name if fmt else None
        self.counts[name or "unknown"].quarantined += 1
        q = self.quarantine
        q["quarantine_id"].append(_line_id(self.file_sha, line if line is not None else 0, kind))
        q["source_path"].append(self.source_path)
        q["source_line"].append(line)
        q["byte_offset"].append(offset)
        q["format"].append(name)
        q["schema_version"].append(version)
        q["error_kind"].append(kind)
        q["error_pointer"].append(pointer)
        q["error_message"].append(message)
        q["raw_text"].append(data[:PREVIEW_BYTES].decode("utf-8", "backslashreplace") if truncated
                             else data.decode("utf-8", "backslashreplace"))
        q["raw_text_truncated"].append(truncated)
        q["raw_sha256"].append(sha)
        q["file_sha256"].append(self.file_sha)
        q["batch_id"].append(self.batch_id)
        q["quarantined_at"].append(self.now)

    # -- results ----------------------------------------------------------------------------------------
    def file_row(self, started: dt.datetime, finished: dt.datetime, duration_ms: float) -> FileRow:
        totals = FormatCounts()
        for counts in self.counts.values():
            totals.add(counts)
        accepted = {name: c.accepted for name, c in sorted(self.counts.items()) if c.accepted}
        return FileRow(
            self.batch_id, self.source_path, self.file_sha, self.file_bytes, self.status, self.message,
            self.n_lines, self.n_blank, totals.accepted, totals.repaired, totals.quarantined, totals.skipped + self.n_unchanged,
            json.dumps(accepted), self.options.strict, self.options.forced_format, started, finished, duration_ms,
        )

    def repair_rows(self) -> list[tuple[str, str, str, str, str, int]]:
        return [(self.batch_id, self.source_path, self.file_sha, fmt, repair, n)
                for (fmt, repair), n in sorted(self.repairs.items())]

    def outcome(self) -> FileOutcome:
        by_format = {}
        for name, counts in self.counts.items():
            counts.files = 1
            by_format[name] = counts
        return FileOutcome(self.path, self.status, self.message, self.n_lines, self.n_unchanged, by_format,
                           Counter(self.repairs))


def _line_id(file_sha: str, line: int, salt: str = "") -> str:
    """A record id that is the same on every run and machine: the file's content and the record's place."""
    return hashlib.sha256(f"{file_sha}:{line}:{salt}".encode()).hexdigest()[:32]


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)
