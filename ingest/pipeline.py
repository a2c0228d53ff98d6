"""The ingest flow, file by file: read -> parse -> detect -> validate -> load (or quarantine), one transaction
per file, and a summary of what happened. `ingest_paths` is what the CLI, the app and the API call.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import os
import re
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from ingest import line_hashes
from ingest.batches import QUARANTINE_ROW, BatchTables, StagedRows, add_quarantine_row
from ingest.classify import ClassifyOptions
from ingest.formats import FORMATS
from ingest.formats.base import RecordFormat
from ingest.left_out import LeftOut, cannot_read, changed_while_read
from ingest.load import AlreadyLoaded, EarlierRefusal, FileRow, FileStaging, KnownKey, PriorLoad, RawStore
from ingest.path_text import path_text
from ingest.sources import (
    DEFAULT_MAX_RECORD_BYTES,
    LinesChunk,
    RawRecord,
    SourceError,
    SUPPORTED_SUFFIXES,
    file_sha256,
    find_inputs,
    prefix_sha256s,
    read_units,
    reads_only_hashed,
)
from ingest.workers import Classifier, worker_count

ProgressFn = Callable[[Path, int, int], None]  # (file, bytes done, file bytes)
# The first bytes of a character cut off at a file's end, as a quarantined line's raw_text escapes them ("\xe2\x82")
_PARTIAL_CHARACTER = re.compile(r"(\\x[0-9a-f]{2}){1,3}$")


@dataclass(frozen=True)
class IngestOptions:
    strict: bool = False
    forced_format: str | None = None
    max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES
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
    n_already_loaded: int = 0  # records not inserted: the same bytes were in their format's table already
    n_unchanged: int = 0  # refused lines quarantined (or loaded) before at the same place of the same path
    n_changed: int = 0  # lines that differ from the line at the same place when this path was loaded before
    by_format: dict[str, FormatCounts] = field(default_factory=dict)
    repairs: Counter = field(default_factory=Counter)
    n_refused_again: int = 0  # refused lines not quarantined twice: the same bytes, line and reason under another name
    # Lines of this input refused again (or, for a file skipped whole, by the load that covers it) that an earlier run
    # quarantined: not this run's quarantine rows, but still refused (--fail-on-reject counts them).
    n_still_refused: int = 0
    # Lines an earlier run refused, at this path or in these bytes, that this run loaded, or found held loaded (their
    # records stored already: the file skipped whole as loaded by bytes holding the line accepted, or the line's
    # record found stored as it was read): their refusals are resolved (marts.fct_quarantined_lines.loaded_later_at),
    # no longer still refused. n_completed of them were cut off.
    n_resolved: int = 0
    n_completed: int = 0
    # Lines of this input refused again as an earlier run refused them, though a later run loaded their line from
    # the same path (or bytes) when the file held them complete or corrected: the file was since reverted to the
    # bytes refused then. Their record is in the warehouse (marts.fct_quarantined_lines.loaded_later_at), so they
    # are not still refused: --fail-on-reject does not fail on them. n_cut_off_again of them are cut off.
    n_loaded_before: int = 0
    n_cut_off_again: int = 0

    @property
    def accepted(self) -> int:
        return sum(c.accepted for c in self.by_format.values())

    @property
    def quarantined(self) -> int:
        return sum(c.quarantined for c in self.by_format.values())

    @property
    def source_path(self) -> str:
        """The path as the warehouse keeps it and the summary prints it (ingest/path_text.py)."""
        return path_text(self.path)


@dataclass
class RunSummary:
    batch_id: str
    files: list[FileOutcome]
    left_out: list[LeftOut] = field(default_factory=list)  # files of its folders and globs it did not read, and why

    @property
    def left_out_data(self) -> list[LeftOut]:
        """The files left out that look like data (--fail-on-reject fails on them), not a README beside them."""
        return [item for item in self.left_out if item.looks_like_data]

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
    def still_refused(self) -> int:
        return sum(f.n_still_refused for f in self.files)

    @property
    def resolved(self) -> int:
        return sum(f.n_resolved for f in self.files)

    @property
    def completed(self) -> int:
        return sum(f.n_completed for f in self.files)

    @property
    def loaded_before(self) -> int:
        return sum(f.n_loaded_before for f in self.files)

    @property
    def cut_off_again(self) -> int:
        return sum(f.n_cut_off_again for f in self.files)

    @property
    def accepted(self) -> int:
        return sum(f.accepted for f in self.files)


def ingest_paths(
    paths: Iterable[str | Path],
    db_path: Path,
    options: IngestOptions = IngestOptions(),
    progress: ProgressFn | None = None,
    *,
    landing: Path | None = None,
    loaded: Callable[[FileOutcome], None] | None = None,
) -> RunSummary:
    """Ingest files, folders and globs into the warehouse at `db_path`. The caller holds the writer lock.
    `landing`: the landing folder, whose files' place in it the manifest keeps (raw.ingest_files.path_in_landing).
    `loaded`: called with each file's outcome once it is in the warehouse (or not, whole), before the next file."""
    if options.forced_format is not None and options.forced_format not in FORMATS:
        raise ValueError(f"unknown format {options.forced_format!r}; known formats: {', '.join(FORMATS)}")
    if options.max_record_bytes < 1:
        raise ValueError(f"max_record_bytes is {options.max_record_bytes}: a record's size limit is 1 byte or more")
    inputs = find_inputs(str(p) for p in paths)
    files = inputs.files
    batch_id = uuid.uuid4().hex[:16]
    workers = options.workers if options.workers is not None else worker_count(sum(map(_size, files)))
    classifier = Classifier(
        ClassifyOptions(options.strict, options.forced_format, options.max_record_bytes, name_repairs=True),
        processes=workers
    )
    store = RawStore(db_path)
    try:
        outcomes, left = [], list(inputs.left_out)
        for f in files:
            outcome = _ingest_file(store, classifier, options, batch_id, f, progress, landing)
            if isinstance(outcome, LeftOut):  # it could not be read when its turn came: nothing of it is loaded
                left.append(outcome)
                continue
            outcomes.append(outcome)
            if loaded is not None:
                loaded(outcome)
    finally:
        store.close()
        classifier.close()
    return RunSummary(batch_id, outcomes, left)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:  # gone or closed since it was found: _ingest_file says so
        return 0


def _ingest_file(
    store: RawStore, classifier: Classifier, options: IngestOptions, batch_id: str, path: Path,
    progress: ProgressFn | None, landing: Path | None,
) -> FileOutcome | LeftOut:
    """One file loaded whole, or not at all; left out, said, when it cannot be read (found readable, it may since
    have been closed or moved away), or when a whole document changed between its checksum and its reading."""
    try:
        before = path.stat()
        sha, size = file_sha256(path)
    except OSError as exc:
        return cannot_read(path, exc, SUPPORTED_SUFFIXES)
    in_landing = path_in_landing(path, landing)
    priors = store.prior_loads(sha)
    covering = _covering_load(store, priors, path, sha, options)
    if covering is not None:
        return _skipped(store, *covering, path, sha, batch_id, options)
    started = _now()
    clock = time.perf_counter()
    staging = store.staging(f"{batch_id}-{sha[:16]}")
    load = _FileLoad(store, classifier, staging, options, batch_id, path, sha, size, progress)
    try:
        load.run()  # reads, classifies and stages the whole file; nothing is in the warehouse yet
        if not reads_only_hashed(path) and _changed(path, before, size):
            return changed_while_read(path)  # what was read is not what `sha` names
        with store.transaction():  # then the file goes in whole, or not at all
            load.skip_already_loaded(store.load_staged(staging, path_text(path), sha, load.now, batch_id))
            # A line an earlier run refused that this run accepts but finds stored already (nothing loads from it):
            # its refusal, if still open, is resolved by this run all the same.
            held = store.resolve_refusals(path_text(path), sha, batch_id, load.now, load.held_lines)
            load.earlier_loaded = store.refusals_loaded_later(load.earlier_refusal_ids())
            if load.loaded_records() or held:
                load.resolved = store.refusals_resolved(path_text(path), sha, batch_id)
            if priors and load.adds_nothing():
                # These bytes were read again to retry the lines an earlier load refused (another name or
                # options): they fail again the same way, so the manifest records nothing new either.
                retried = load.outcome()
                notes = [f"{_already_message(priors[-1], path)}; read again to retry the "
                         f"{priors[-1].n_quarantined:,} line(s) it quarantined: none loads with this name and these "
                         "options"]
                if retried.n_resolved:
                    notes.append(resolved_note(retried.n_resolved, retried.n_completed))
                if retried.n_loaded_before:
                    notes.append(loaded_before_note(retried.n_loaded_before, retried.n_cut_off_again))
                return FileOutcome(path, "already_loaded", "; ".join(notes), n_still_refused=retried.n_still_refused,
                                   n_resolved=retried.n_resolved, n_completed=retried.n_completed,
                                   n_loaded_before=retried.n_loaded_before, n_cut_off_again=retried.n_cut_off_again)
            finished = _now()
            store.append_file(load.file_row(started, finished, (time.perf_counter() - clock) * 1000, in_landing))
            store.append_repairs(load.repair_rows())
    except Exception as exc:  # noqa: BLE001 - a bug must cost one file, never the run
        message = f"nothing of this file was loaded: {type(exc).__name__}: {exc}"
        finished = _now()
        failed = FileRow(batch_id, path_text(path), sha, size, "failed", message, 0, 0, 0, 0, 0, 0, "{}",
                         options.strict, options.forced_format, started, finished,
                         (time.perf_counter() - clock) * 1000, options.max_record_bytes, in_landing)
        with store.transaction():
            store.append_file(failed)
        return FileOutcome(path, "failed", message)
    finally:
        staging.remove()
    return load.outcome()


def _changed(path: Path, before: os.stat_result, hashed: int) -> bool:
    """Whether the file may hold other bytes now than those hashed: its size or modification time moved."""
    try:
        after = path.stat()
    except OSError:
        return True
    return not (before.st_size == hashed == after.st_size and before.st_mtime_ns == after.st_mtime_ns)


def _skipped(store: RawStore, covering: PriorLoad, carried: dict[int, list[str]], path: Path, sha: str,
             batch_id: str, options: IngestOptions) -> FileOutcome:
    """A file skipped whole: what the load that covers it refused is what these bytes hold refused now, those of its
    lines it quarantined and those it carried (refused as an earlier run refused them, not quarantined twice). Each
    such line is still refused unless a later run loaded it (the file completed or corrected, then reverted to these
    bytes: the line's record is in the warehouse, and marts.fct_quarantined_lines says so too). Its other lines it
    holds accepted: a refusal of one of them still open is resolved by this run (_resolved_by_skip)."""
    refused = store.refusals_of_load(covering, sha)
    lines = [[quarantine_id] for quarantine_id in refused] + list(carried.values())
    loaded = store.refusals_loaded_later([quarantine_id for ids in lines for quarantine_id in ids])
    loaded_lines = [flags for flags in ([loaded[i] for i in ids if i in loaded] for ids in lines) if flags]
    n_loaded, n_cut_off = len(loaded_lines), sum(1 for flags in loaded_lines if any(flags))
    held_refused = {line for line in refused.values() if line is not None} | set(carried)
    resolved = _resolved_by_skip(store, covering, path, sha, batch_id, options, held_refused)
    message = _already_message(covering, path)
    if resolved:
        message += "; " + resolved_note(len(resolved), sum(resolved.values()))
    if n_loaded:
        message += "; " + loaded_before_note(n_loaded, n_cut_off)
    return FileOutcome(path, "already_loaded", message, n_still_refused=len(lines) - n_loaded,
                       n_resolved=len(resolved), n_completed=sum(resolved.values()),
                       n_loaded_before=n_loaded, n_cut_off_again=n_cut_off)


def _resolved_by_skip(store: RawStore, covering: PriorLoad, path: Path, sha: str, batch_id: str,
                      options: IngestOptions, held_refused: set[int]) -> dict[int, bool]:
    """The refusals a file skipped whole resolves: those still open of a line at its path or in its bytes (a run
    after the covering load refused the line as the file then held it: cut off, or edited to bad JSON) that these
    bytes hold as a record stored in the warehouse, the line's text hashed as the ingester hashes it (under the
    covering load's options) equal to a stored record's record_sha256. The lines the covering load refused or
    carried (`held_refused`) hold what was refused. Each is recorded in raw.quarantine_resolutions in one
    transaction: {line: whether one was cut off}. A path and bytes with nothing refused cost one count, and only
    the lines of open refusals are read (ingest/line_hashes.py); nothing resolved, nothing written."""
    open_refusals = store.open_refusals(path_text(path), sha, held_refused)
    if not open_refusals:
        return {}
    limit = covering.max_record_bytes if covering.max_record_bytes is not None else options.max_record_bytes
    held = store.lines_held_loaded(line_hashes.refused_line_sha256s(path, open_refusals, limit, covering.strict))
    if not held:
        return {}
    with store.transaction():
        return store.resolve_refusals(path_text(path), sha, batch_id, _now(), held)


def path_in_landing(path: Path, landing: Path | None) -> str | None:
    """The file's place inside the landing folder ('demo/eee/x.jsonl'), None when it is outside (or none is given).
    Both are resolved, as expand_paths resolves the inputs, so a symlinked landing folder still contains its files."""
    if landing is None:
        return None
    resolved, root = path.resolve(), landing.resolve()
    return path_text(resolved.relative_to(root).as_posix()) if resolved.is_relative_to(root) else None


def _covering_load(store: RawStore, priors: list[PriorLoad], path: Path, sha: str,
                   options: IngestOptions) -> tuple[PriorLoad, dict[int, list[str]]] | None:
    """An earlier load of these bytes that reading them again cannot improve on, if any, with the lines it carried
    (_carried_refusals): one that refused nothing (it quarantined nothing and carried nothing: its records are all
    in, under whatever name), or the same path with the same options, whose refusals did not depend on this machine,
    and whose lines over the record size limit (if any) were refused under a limit no lower than this run's.
    Otherwise the file is read again so that its refused lines are retried, as their reasons advise (restore an
    lm-eval samples file's name, drop --strict or a wrong --format, install zstandard, raise --max-record-bytes); its
    records already loaded are not added twice (RawStore.load_staged) and its lines already quarantined at that path
    are not quarantined twice. A load that carried refusals is one that refused lines, though its own quarantine rows
    are none: a file grown by appending to it carries its refused lines into every later load."""
    for prior in priors:
        if _read_the_same(prior, path, options):
            earlier = store.refusals_before_load(prior, sha)
            if any(r.retry_here for r in earlier) or (any(r.too_large for r in earlier) and _limit_raised(
                    dataclasses.replace(prior, refused_too_large=True), options)):
                continue
            return prior, _carried_refusals(earlier, path, prior, options)
        # Under another name or other options, a refusal it may have carried is reason enough to read the file
        # again: the lines it did not record need not be compared.
        if prior.n_quarantined == 0 and not store.refusals_before_load(prior, sha):
            return prior, {}
    return None


def _read_the_same(prior: PriorLoad, path: Path, options: IngestOptions) -> bool:
    """Whether reading the bytes again would refuse what this earlier load refused: the same path with the same
    options, no refusal of a reason of this machine, and no line refused as too large under a lower limit."""
    return (prior.source_path == path_text(path) and prior.strict == options.strict
            and prior.forced_format == options.forced_format and not prior.retry_always
            and not _limit_raised(prior, options))


def _limit_raised(prior: PriorLoad, options: IngestOptions) -> bool:
    """Whether this run's size limit may load a line the earlier load refused as too large (a load recorded
    before the manifest kept its limit: it may)."""
    if not prior.refused_too_large:
        return False
    return prior.max_record_bytes is None or options.max_record_bytes > prior.max_record_bytes


def _carried_refusals(earlier: list[EarlierRefusal], path: Path, prior: PriorLoad,
                      options: IngestOptions) -> dict[int, list[str]]:
    """The lines an earlier load of these bytes at this path carried, {line: quarantine_ids of its refusals}: those
    of the refusals before it (RawStore.refusals_before_load) that the file's line at their place matches, as
    _FileLoad._stage matched it: a refusal of these very bytes, or one whose raw_sha256 is the line's sha256 now.
    Only those lines are read (ingest/line_hashes.py), and only when there are such refusals of other bytes."""
    to_compare = {r.source_line for r in earlier if not r.same_bytes and r.line_sha256 is not None}
    limit = prior.max_record_bytes if prior.max_record_bytes is not None else options.max_record_bytes
    now = line_hashes.refused_line_sha256s(path, to_compare, limit, prior.strict) if to_compare else {}
    carried: dict[int, list[str]] = defaultdict(list)
    for refusal in earlier:
        line = refusal.source_line
        if refusal.same_bytes or (refusal.line_sha256 is not None and now.get(line) == refusal.line_sha256):
            carried[line].append(refusal.quarantine_id)
    return dict(carried)


def _refusal_label(format_name: str | None, kind: str) -> str:
    """The format a refused line is counted under: "unknown" is a record of no known format; a line that did not
    parse, or a file-level row, has none."""
    return format_name or ("unknown" if kind == "unknown_format" else "unparsed")


def _already_message(prior: PriorLoad, path: Path) -> str:
    same = "" if prior.source_path == path_text(path) else f" as {prior.source_path}"
    return f"same content already loaded{same} at {prior.finished_at:%Y-%m-%d %H:%M}"


class _FileLoad:
    """The state of one file's load: its staged tables, counts, and what was quarantined."""

    def __init__(self, store: RawStore, classifier: Classifier, staging: FileStaging, options: IngestOptions,
                 batch_id: str, path: Path, file_sha: str, file_bytes: int, progress: ProgressFn | None) -> None:
        self.store, self.classifier, self.staging, self.options = store, classifier, staging, options
        self.batch_id, self.path, self.source_path = batch_id, path, path_text(path)
        self.file_sha, self.file_bytes, self.progress = file_sha, file_bytes, progress
        self.seen = store.lines_seen(self.source_path)
        self.seen_any = self.seen.loaded | self.seen.refused if self.seen is not None else set()
        self.seen_lines = {line for line, _ in self.seen_any}
        # keys accepted earlier in this file, with each version of the record under them
        self.file_keys: dict[str, dict[str, list[KnownKey]]] = defaultdict(dict)
        self.counts: dict[str, FormatCounts] = defaultdict(FormatCounts)
        self.repairs: Counter = Counter()  # (format, repair) -> records
        self.n_lines = self.n_blank = self.n_unchanged = self.n_changed = self.n_refused_unchanged = 0
        self.changed_lines: Counter = Counter()  # line -> rows of it counted in n_changed
        self.resolved: dict[int, bool] = {}  # lines an earlier run refused, loaded now -> whether one was cut off
        # the lines an earlier run refused at this path or in these bytes (none, the usual case), and those of them
        # this run accepts (a record, loaded now or stored before: RawStore.resolve_refusals) -> the record's format
        self.refused_lines = store.refused_lines(self.source_path, file_sha)
        self.held_lines: dict[int, str] = {}
        # a last line cut off, quarantined by this run, that begins the record this path's line held when loaded
        # before: line -> (batch_id, ingested_at) of that record, said in the file's message
        self.cut_off_begins: dict[int, tuple[str, dt.datetime]] = {}
        # lines refused again as an earlier run refused them (at this path, or these bytes under another name):
        # the quarantine_ids of those refusals, one entry per line; and those of them a later run loaded
        self.refused_unchanged_ids: list[list[str]] = []
        self.earlier_loaded: dict[str, bool] = {}
        self.already: dict[str, AlreadyLoaded] = {}
        self.keyed_already: dict[str, list[KnownKey]] = defaultdict(list)  # format -> where each skipped id was
        self.refused_before: AlreadyLoaded | None = None
        # the checksums of this file's first bytes, by size, and the earlier loads it was found to continue
        self.prefix_shas: dict[int, str] = {}
        self.continues: set[str] = set()
        self.may_continue: bool | None = None  # whether a smaller load elsewhere refused lines (looked up once)
        self.status, self.message = "loaded", None
        self.now = _now()

    # -- the loop ---------------------------------------------------------------------------------------
    def run(self) -> None:
        last_line = 0
        try:
            for tables in self.classifier.tables(self._units(), self.file_sha, self.staging.directory):
                last_line = max(last_line, tables.last_line)
                self.n_lines += tables.n_records
                self.n_blank += tables.n_blank
                self._stage(tables)
                if self.progress is not None:
                    self.progress(self.path, 0, self.file_bytes)
        except SourceError as exc:
            line = exc.line if exc.line is not None else last_line + 1 if last_line else None
            # the text read of the line it stopped in (a gzip stream cut off inside it), kept as the row's raw_text
            cut = RawRecord(line, exc.offset, exc.data, len(exc.data), unterminated=True) if exc.data else None
            rows = _empty_rows()
            add_quarantine_row(rows, self.file_sha, cut, None, None, exc.kind, None, exc.message, None, line=line)
            self._stage_quarantine(pa.Table.from_pydict(rows, schema=QUARANTINE_ROW))
            # The rest of the file that could not be read is one row of its accounting, as a refused line is: so
            # n_accepted + n_quarantined + n_skipped = n_lines (raw.ingest_files, README "What bad input gets").
            self.n_lines += 1
            self.status = "unreadable" if not last_line else "loaded"
            self.message = exc.message
        if self.n_lines == 0 and self.status == "loaded":
            self.status, self.message = "empty", "the file holds no records"
        if self.progress is not None:
            self.progress(self.path, self.file_bytes, self.file_bytes)

    def _units(self) -> Iterator[LinesChunk | RawRecord]:
        # Only the bytes hashed, so each row's file_sha256 names bytes that hold it. A leading BOM: ingest/batches.py
        yield from read_units(self.path, self.options.max_record_bytes, self.file_bytes)

    def _stage(self, tables: BatchTables) -> None:
        rejected = tables.rejected
        keep_rejected = self._new_lines(rejected, "raw_sha256", refused_too=True)
        if not all(keep_rejected):
            for kept, line, sha in zip(keep_rejected, rejected.column("source_line").to_pylist(),
                                       rejected.column("raw_sha256").to_pylist()):
                if not kept and (line, sha) in self.seen.refused:
                    self.n_refused_unchanged += 1
                    self.refused_unchanged_ids.append(self.seen.refusal_ids.get((line, sha), []))
            rejected = rejected.filter(pa.array(keep_rejected))
        rejected = self._continued_refusals(rejected)
        extra = _empty_rows()
        held: dict[int, str] = {}
        for format_name, accepted in tables.accepted.items():
            fmt = FORMATS[format_name]
            index = accepted.index
            if self.refused_lines:
                held.update((line, format_name) for line in index.column("source_line").to_pylist()
                            if line in self.refused_lines)
            if fmt.loaded_once:  # a record loaded before is left out at load (RawStore.load_staged)
                self._count_changed(index, "record_sha256")
                keep = [True] * index.num_rows
            else:  # a record of its file: only those not loaded before from this path at this place
                keep = self._new_lines(index, "record_sha256")
            versions = self._resolve_keys(fmt, accepted, keep, extra) if fmt.natural_key_name is not None else {}
            if all(keep) and not versions:  # the usual case: the worker's file is loaded as it is
                self.staging.add_file(format_name, accepted.path, accepted.num_rows)
            else:
                mask = pa.array(keep)
                rows = accepted.read()
                if versions:
                    ids = rows.column("record_id").to_pylist()
                    for position, record_id in versions.items():
                        ids[position] = record_id
                    rows = rows.set_column(rows.schema.get_field_index("record_id"), "record_id",
                                           pa.array(ids, pa.string()))
                self.staging.append(format_name, rows.filter(mask))
                index = index.filter(mask)
            self.counts[format_name].accepted += index.num_rows
            self._count_repairs(format_name, index)
        if held:  # accepted, so held loaded, but a record refused as a conflict (an id reused)
            conflicts = set(extra["source_line"])
            self.held_lines.update((line, name) for line, name in held.items() if line not in conflicts)
        self._find_cut_off_begun(rejected)
        self._stage_quarantine(rejected)
        self._stage_quarantine(pa.Table.from_pydict(extra, schema=QUARANTINE_ROW))

    def _continued_refusals(self, rejected: pa.Table) -> pa.Table:
        """The rows refused, each with the quarantine_id of the same refusal made before under another name when this
        file begins with the bytes of a load that held it (a file renamed, then appended to): the same bytes at the
        same line, refused for the same reason, are then that refusal, and the load counts them refused again
        (RawStore.load_staged), not as new rows. A file that merely holds the same bad line at the same place is
        another file: its refusal is its own row. One look at the manifest per file, then one lookup per batch with
        refused lines only where a smaller load elsewhere refused lines; the file's first bytes are hashed again
        only when an earlier refusal matches."""
        if rejected.num_rows == 0:
            return rejected
        if self.may_continue is None:
            self.may_continue = self.store.refused_in_smaller_loads(self.source_path, self.file_sha, self.file_bytes)
        if not self.may_continue:
            return rejected
        refused = [(line, sha, kind) for line, sha, kind in zip(
            rejected.column("source_line").to_pylist(), rejected.column("raw_sha256").to_pylist(),
            rejected.column("error_kind").to_pylist()) if line is not None and sha is not None]
        earlier = self.store.same_refusals_elsewhere(self.source_path, self.file_sha, refused)
        if not earlier:
            return rejected
        loads = self.store.loads_of({r.source_path for r in earlier}, {r.file_sha256 for r in earlier},
                                    self.file_bytes)
        missing = {size for _, size, _ in loads if size not in self.prefix_shas}
        if missing:
            self.prefix_shas.update({size: "" for size in missing})
            self.prefix_shas.update(prefix_sha256s(self.path, missing))
        begun_by = [(sha, path) for sha, size, path in loads if self.prefix_shas.get(size) == sha]
        same: dict[tuple[int, str, str], str] = {}
        for refusal in earlier:
            held_by = [sha for sha, path in begun_by if refusal.file_sha256 == sha or refusal.source_path == path]
            if held_by:
                same.setdefault((refusal.source_line, refusal.line_sha256, refusal.error_kind), refusal.quarantine_id)
                self.continues.update(held_by)
        if not same:
            return rejected
        ids = [same.get((line, sha, kind), quarantine_id) for quarantine_id, line, sha, kind in zip(
            rejected.column("quarantine_id").to_pylist(), rejected.column("source_line").to_pylist(),
            rejected.column("raw_sha256").to_pylist(), rejected.column("error_kind").to_pylist())]
        return rejected.set_column(rejected.schema.get_field_index("quarantine_id"), "quarantine_id",
                                   pa.array(ids, pa.string()))

    def _find_cut_off_begun(self, rejected: pa.Table) -> None:
        """Of the refused rows this run quarantines, a last line cut off (truncated) that begins a record loaded
        before from the same line of this path (the file was cut off after it loaded whole: a copy reverted, or read
        while being rewritten). It is quarantined like any cut-off line; the file's message adds that the record it
        begins is in the warehouse whole, so nothing of it is missing. Only truncated rows cost a lookup."""
        if self.seen is None or not self.seen.loaded or rejected.num_rows == 0:
            return
        cut = rejected.filter(pc.equal(rejected.column("error_kind"), "truncated"))
        for line, text in zip(cut.column("source_line").to_pylist(), cut.column("raw_text").to_pylist()):
            if line is None or not text or not any(seen_line == line for seen_line, _ in self.seen.loaded):
                continue
            # A line cut inside a character of several bytes keeps its first bytes, escaped ("\xe2\x82"): the
            # record's text begins with what precedes them.
            begun = self.store.record_begun(self.source_path, line, _PARTIAL_CHARACTER.sub("", text))
            if begun is not None:
                self.cut_off_begins[line] = begun

    def earlier_refusal_ids(self) -> list[str]:
        """The refusals of the lines refused again (at this path, or these bytes under another name)."""
        ids = [quarantine_id for line_ids in self.refused_unchanged_ids for quarantine_id in line_ids]
        return ids + (self.refused_before.ids if self.refused_before is not None else [])

    def _n_earlier_loaded(self) -> tuple[int, int]:
        """Of the lines refused again, those whose line a later run loaded (their records are in the warehouse),
        and how many of those were cut off."""
        loaded = [[self.earlier_loaded[i] for i in line_ids if i in self.earlier_loaded]
                  for line_ids in self.refused_unchanged_ids]
        if self.refused_before is not None:
            loaded += [[self.earlier_loaded[i]] for i in self.refused_before.ids if i in self.earlier_loaded]
        loaded = [flags for flags in loaded if flags]
        return len(loaded), sum(1 for flags in loaded if any(flags))

    def _stage_quarantine(self, rejected: pa.Table) -> None:
        if rejected.num_rows == 0:
            return
        labels = (_refusal_label(f, kind)
                  for f, kind in zip(rejected.column("format").to_pylist(), rejected.column("error_kind").to_pylist()))
        for format_name, n in Counter(labels).items():
            self.counts[format_name].quarantined += n
        self.staging.append("quarantine", rejected)

    def _new_lines(self, table: pa.Table, sha_column: str, refused_too: bool = False) -> list[bool]:
        """Which rows to keep: for a path loaded before, not those loaded then at the same place with the same
        content (and, for refused rows, `refused_too`, not those quarantined then either), so a file read again
        (appended to, rewritten, or retried) does not repeat its rows. A record refused then and accepted now is
        what a retry is for: it loads."""
        if self.seen is None or table.num_rows == 0:
            return [True] * table.num_rows
        self._count_changed(table, sha_column)
        seen = self.seen_any if refused_too else self.seen.loaded
        keep = [(line, sha) not in seen
                for line, sha in zip(table.column("source_line").to_pylist(), table.column(sha_column).to_pylist())]
        self.n_unchanged += keep.count(False)
        return keep

    def _count_changed(self, table: pa.Table, sha_column: str) -> None:
        """Lines edited in place: what this path held at that line before differs from what it holds now."""
        if not self.seen_lines or table.num_rows == 0:
            return
        lines, shas = table.column("source_line").to_pylist(), table.column(sha_column).to_pylist()
        changed = [line for line, sha in zip(lines, shas)
                   if line in self.seen_lines and (line, sha) not in self.seen_any]
        self.n_changed += len(changed)
        self.changed_lines.update(changed)

    def _resolve_keys(self, fmt: RecordFormat, accepted: StagedRows, keep: list[bool],
                      extra: dict[str, list]) -> dict[int, str]:
        """Skip a keyed record already loaded with the same content; quarantine one whose id was reused (both
        turn its `keep` off), unless it differs from the record under its id in the format's versioned_fields
        alone: a new version, loaded. Returns {position: record_id} of the new versions."""
        index = accepted.index
        keys = index.column("natural_key").to_pylist()
        shas = index.column("record_sha256").to_pylist()
        lines = index.column("source_line").to_pylist()
        known = self.store.known_keys(fmt.name, sorted({k for k, kept in zip(keys, keep) if k and kept}))
        in_file = self.file_keys[fmt.name]
        versions: dict[int, str] = {}
        for position, (key, sha, line) in enumerate(zip(keys, shas, lines)):
            if not keep[position]:
                continue
            text = accepted.texts[position].as_py() if key and fmt.versioned_fields else None
            priors = [*known.get(key, ()), *in_file.get(key, ())] if key else []
            if not priors:
                if key:
                    in_file[key] = [KnownKey(sha, self.source_path, line, text)]
                continue
            same = next((prior for prior in priors if prior.record_sha256 == sha), None)
            if same is not None:
                keep[position] = False
                self.counts[fmt.name].skipped += 1
                self.keyed_already[fmt.name].append(same)
                continue
            if fmt.versioned_fields and _same_but(priors[0].record_json, text, fmt.versioned_fields):
                versions[position] = f"{key}#{sha[:12]}"
                in_file.setdefault(key, []).append(KnownKey(sha, self.source_path, line, text))
                continue
            keep[position] = False
            prior = priors[0]
            record = accepted.texts[position].as_py()
            raw = RawRecord(line, index.column("byte_offset")[position].as_py(), record.encode("utf-8"), len(record))
            add_quarantine_row(
                extra, self.file_sha, raw, fmt.name, index.column("schema_version")[position].as_py(), "conflict",
                f"/{fmt.natural_key_name}",
                f"{fmt.natural_key_name} {key!r} was already loaded from {prior.source_path} line "
                f"{prior.source_line} with different content; give the new record its own "
                f"{fmt.natural_key_name} (records are never updated in place)" + (
                    f"; a new version of it may change only {', '.join(fmt.versioned_fields)}"
                    if fmt.versioned_fields else ""),
                sha,
            )
        return versions

    def _count_repairs(self, format_name: str, accepted: pa.Table) -> None:
        repairs = accepted.column("repairs")
        if repairs.null_count == len(repairs):
            return
        self.counts[format_name].repaired += len(repairs) - repairs.null_count
        for entry in pc.value_counts(repairs).to_pylist():
            if entry["values"] is not None:
                for repair in json.loads(entry["values"]):
                    self.repairs[(format_name, repair)] += entry["counts"]

    def skip_already_loaded(self, already: dict[str, AlreadyLoaded]) -> None:
        """Count the rows the load left out, being in their table already, as skipped: records, and refusals of
        the same bytes at the same line for the same reason (a file read again under another name)."""
        self.already = {name: a for name, a in already.items() if name != "quarantine"}
        self.refused_before = already.get("quarantine")
        if self.refused_before is not None:
            for (format_name, kind), n in self.refused_before.refusals.items():
                counts = self.counts[_refusal_label(format_name, kind)]
                counts.quarantined -= n
                counts.skipped += n
        for format_name, skipped in self.already.items():
            counts = self.counts[format_name]
            counts.accepted -= skipped.n_records
            counts.repaired -= skipped.n_repaired
            counts.skipped += skipped.n_records
            for repair, n in skipped.repairs.items():
                self.repairs[(format_name, repair)] -= n
                if self.repairs[(format_name, repair)] <= 0:
                    del self.repairs[(format_name, repair)]

    def adds_nothing(self) -> bool:
        return not any(c.accepted or c.quarantined for c in self.counts.values())

    def loaded_records(self) -> bool:
        return any(c.accepted for c in self.counts.values())

    def _n_changed(self) -> int:
        """Lines edited in place that load beside an earlier record: not a line whose earlier text was only refused,
        now loaded (completed or corrected), which is counted as resolved instead, nor a last line cut off that
        begins the record it held, which loads nothing (it is quarantined, and the message says whose record it is)."""
        loaded_lines = {line for line, _ in self.seen.loaded} if self.seen is not None else set()
        not_beside = [line for line in self.resolved if line not in loaded_lines] + list(self.cut_off_begins)
        return self.n_changed - sum(self.changed_lines[line] for line in not_beside)

    # -- results ----------------------------------------------------------------------------------------
    def _message(self) -> str | None:
        """The file's own message (a truncated last line...), then what was left out or changed."""
        notes = [self.message] if self.message else []
        n_already = self._n_already_loaded()
        if n_already:
            notes.append(f"{n_already:,} record(s) already loaded (first from {self._first_loaded_from()}), not "
                         "added again")
        if self.refused_before is not None:
            first = self.refused_before.first_path
            where = "this file" if first == self.source_path else first
            notes.append(f"{self.refused_before.n_records:,} line(s) refused again as before (first in {where}: the "
                         "same bytes, line and reason), not quarantined twice")
        if self.n_unchanged:
            notes.append(f"{self.n_unchanged:,} line(s) already quarantined or loaded at the same place, not added "
                         "again")
        if self.resolved:
            notes.append(resolved_note(len(self.resolved), sum(self.resolved.values())))
        for line, (batch, at) in sorted(self.cut_off_begins.items()):
            notes.append(f"line {line:,}, cut off (the file ends inside it) and quarantined as truncated, begins the "
                         f"record loaded from that line of this path by run {batch} at {at:%Y-%m-%d %H:%M}: that "
                         "record is in the warehouse whole, nothing of it is missing")
        n_earlier, n_earlier_cut = self._n_earlier_loaded()
        if n_earlier:
            notes.append(loaded_before_note(n_earlier, n_earlier_cut))
        n_changed = self._n_changed()
        if n_changed:
            notes.append(
                f"{n_changed:,} line(s) differ from what this path held at the same place before: they load as "
                "new records beside the earlier ones, which stay (raw rows are never replaced; two Every Eval Ever "
                "instance records of one sample are two trials). If the edit corrects a record, `evalhouse "
                "rebuild` keeps only the file's current lines")
        return "; ".join(notes) or None

    def _n_already_loaded(self) -> int:
        """Records not added: their bytes in their table already, or their id with the same content."""
        return sum(a.n_records for a in self.already.values()) + sum(map(len, self.keyed_already.values()))

    def _first_loaded_from(self) -> str:
        """Where most of the records not added were first loaded from (with the line, when that is one record's)."""
        sources: Counter = Counter({a.first_path: a.n_records for a in self.already.values()})
        lines: dict[str, list[int]] = defaultdict(list)
        for priors in self.keyed_already.values():
            for prior in priors:
                sources[prior.source_path] += 1
                lines[prior.source_path].append(prior.source_line)
        first = max(sorted(sources), key=sources.__getitem__)
        line = lines[first][0] if sources[first] == 1 and lines[first] else None
        if first == self.source_path:
            return "this file" if line is None else f"line {line} of this file"
        return first if line is None else f"{first}:{line}"

    def file_row(self, started: dt.datetime, finished: dt.datetime, duration_ms: float,
                 in_landing: str | None = None) -> FileRow:
        totals = FormatCounts()
        for counts in self.counts.values():
            totals.add(counts)
        accepted = {name: c.accepted for name, c in sorted(self.counts.items()) if c.accepted}
        return FileRow(
            self.batch_id, self.source_path, self.file_sha, self.file_bytes, self.status, self._message(),
            self.n_lines, self.n_blank, totals.accepted, totals.repaired, totals.quarantined,
            totals.skipped + self.n_unchanged, json.dumps(accepted), self.options.strict,
            self.options.forced_format, started, finished, duration_ms, self.options.max_record_bytes, in_landing,
            sorted(self.continues) or None,
        )

    def repair_rows(self) -> list[tuple[str, str, str, str, str, int]]:
        return [(self.batch_id, self.source_path, self.file_sha, fmt, repair, n)
                for (fmt, repair), n in sorted(self.repairs.items())]

    def outcome(self) -> FileOutcome:
        by_format = {}
        for name, counts in self.counts.items():
            counts.files = 1
            by_format[name] = counts
        refused_again = self.refused_before.n_records if self.refused_before is not None else 0
        n_earlier, n_earlier_cut = self._n_earlier_loaded()
        return FileOutcome(self.path, self.status, self._message(), self.n_lines, self._n_already_loaded(),
                           self.n_unchanged, self._n_changed(), by_format, Counter(self.repairs), refused_again,
                           refused_again + self.n_refused_unchanged - n_earlier, len(self.resolved),
                           sum(self.resolved.values()), n_earlier, n_earlier_cut)


def resolved_note(n_resolved: int, n_completed: int) -> str:
    """What a run says of the lines an earlier run refused that it loaded: "1 line cut off before is now complete
    and loaded", "2 lines refused before now load", and that those refusals are resolved."""
    parts = []
    if n_completed:
        parts.append(f"{n_completed:,} line{'s' if n_completed > 1 else ''} cut off before "
                     f"{'are' if n_completed > 1 else 'is'} now complete and loaded")
    if n_resolved - n_completed:
        n = n_resolved - n_completed
        parts.append(f"{n:,} line{'s' if n > 1 else ''} refused before {'now load' if n > 1 else 'now loads'}")
    its = "their" if n_resolved > 1 else "its"
    return (" and ".join(parts) + f": {its} earlier refusal{'s are' if n_resolved > 1 else ' is'} resolved, no longer "
            "still refused (raw.quarantine keeps the refusal, marked loaded later)")


def loaded_before_note(n_loaded: int, n_cut_off: int) -> str:
    """What a run says of the lines of a file that do not load as it holds them now though their records are in the
    warehouse: "1 line cut off as the file holds it now is in the warehouse whole: ..."."""
    parts = []
    if n_cut_off:
        parts.append(f"{n_cut_off:,} line{'s' if n_cut_off > 1 else ''} cut off")
    if n_loaded - n_cut_off:
        n = n_loaded - n_cut_off
        parts.append(f"{n:,} line{'s' if n > 1 else ''} refused")
    one = n_loaded == 1
    it = "it" if one else "them"
    return (" and ".join(parts) + f" as the file holds {it} now {'is' if one else 'are'} in the warehouse whole (a run "
            f"loaded {'its record' if one else 'their records'} from the same line of this path, or of these bytes, "
            f"when the file held {it} complete or corrected): not still refused; write the file in full again if it "
            f"is to hold {it}")


def _empty_rows() -> dict[str, list]:
    return {name: [] for name in QUARANTINE_ROW.names}


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def _same_but(prior_json: str | None, record_json: str | None, fields: tuple[str, ...]) -> bool:
    """Whether two records hold the same content outside `fields` (parsed: key order and spacing may differ)."""
    if prior_json is None or record_json is None:
        return False
    prior, record = json.loads(prior_json), json.loads(record_json)
    if not isinstance(prior, dict) or not isinstance(record, dict):
        return False
    return ({k: v for k, v in prior.items() if k not in fields}
            == {k: v for k, v in record.items() if k not in fields})
