"""The raw layer in DuckDB: its tables, one transaction per file, and the lookups that keep a second run of the
same input from adding anything: a file whose bytes were loaded before is skipped whole (prior_loads), and a record
whose bytes (record_sha256) are already in its format's table is not inserted again, whatever file brings it (the
same records gzipped, with CRLF endings or reordered are the same records, not new trials).

A file's rows are streamed to Arrow files on disk while it is read (FileStaging; the worker processes write
the accepted rows themselves) and loaded at its end with one INSERT ... SELECT per table inside one transaction:
the file commits whole, and memory stays bounded however large it is (DuckDB's cache is capped by MEMORY_LIMIT;
the whole ingest peaked at 747 MB for a 1.2 GB file and 732 MB for one ten times smaller: bench/RESULTS.md).

This is the only module of the ingester that writes SQL. Table names come from the format registry, never
from user input; every value is a bound parameter or an Arrow batch.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import duckdb
import pyarrow as pa

from ingest import arrow_files
from ingest.formats import FORMATS

_RECORD_DDL = """
    record_id varchar not null,
    natural_key varchar,
    schema_version varchar,
    -- the original JSON text; DuckDB's JSON functions read it as is. zstd, not DuckDB's own choice: for the
    -- benchmark's 1,000,000 records 208 MB instead of 440 MB, written in 4.2 s instead of 5.8 s.
    record_json varchar using compression zstd not null,
    repairs varchar,
    source_path varchar not null,
    source_line bigint not null,
    byte_offset bigint,
    record_sha256 varchar not null,
    file_sha256 varchar not null,
    ingested_at timestamp not null,
    batch_id varchar not null
"""

_DDL = [
    "create schema if not exists raw",
    """create table if not exists raw.ingest_files (
        batch_id varchar not null,
        source_path varchar not null,
        file_sha256 varchar not null,
        file_bytes bigint not null,
        status varchar not null,
        message varchar,
        n_lines bigint not null,
        n_blank bigint not null,
        n_accepted bigint not null,
        n_repaired bigint not null,
        n_quarantined bigint not null,
        n_skipped bigint not null,
        accepted_by_format json,
        strict boolean not null,
        forced_format varchar,
        started_at timestamp not null,
        finished_at timestamp not null,
        duration_ms double not null,
        -- the run's --max-record-bytes: what a too_large refusal was measured against. NULL in rows written before
        -- it was recorded (the ALTER below adds it to such a warehouse)
        max_record_bytes bigint,
        -- source_path inside the landing folder the run was given ('demo/eee/x.jsonl'), NULL for a file outside it
        -- and in rows written before it was recorded: a file's place that survives moving the project or the
        -- landing folder, which the absolute source_path does not (evalhouse/operations.py reads it)
        path_in_landing varchar,
        -- the file_sha256 of each earlier load whose bytes this file's begin with (a file renamed, then appended
        -- to) and whose refused lines this load found again, refused for the same reason at the same line: those
        -- are that load's quarantine rows, not second ones (RawStore.continued_refusals). NULL when there is none
        continues_sha256 varchar[]
    )""",
    "alter table raw.ingest_files add column if not exists max_record_bytes bigint",
    "alter table raw.ingest_files add column if not exists path_in_landing varchar",
    "alter table raw.ingest_files add column if not exists continues_sha256 varchar[]",
    """create table if not exists raw.ingest_repairs (
        batch_id varchar not null,
        source_path varchar not null,
        file_sha256 varchar not null,
        format varchar not null,
        repair varchar not null,
        n_records bigint not null
    )""",
    f"""create table if not exists raw.quarantine (
        quarantine_id varchar not null,
        source_path varchar not null,
        source_line bigint,
        byte_offset bigint,
        format varchar,
        schema_version varchar,
        error_kind varchar not null,
        error_pointer varchar,
        error_message varchar not null,
        raw_text varchar,
        raw_text_truncated boolean not null,
        raw_sha256 varchar,
        file_sha256 varchar not null,
        batch_id varchar not null,
        quarantined_at timestamp not null
    )""",
    # A refusal still open whose line a later run found held loaded without loading a record from it: the file
    # skipped whole as loaded before by bytes that hold the line accepted, or the line's record found already
    # stored while the file was read (RawStore.resolve_refusals). marts.fct_quarantined_lines counts it loaded
    # later, as it counts a record loaded after the refusal from the line. At most one row per refusal.
    """create table if not exists raw.quarantine_resolutions (
        quarantine_id varchar not null,
        batch_id varchar not null,
        source_path varchar not null,
        file_sha256 varchar not null,
        source_line bigint not null,
        format varchar not null,
        resolved_at timestamp not null
    )""",
    *(f"create table if not exists raw.{name} ({_RECORD_DDL})" for name in FORMATS),
]


@dataclass(frozen=True)
class PriorLoad:
    """An earlier load of a file's bytes that completed (status loaded or empty), with its options."""

    source_path: str
    finished_at: dt.datetime
    n_quarantined: int
    strict: bool
    forced_format: str | None
    # Some of its lines were refused for a reason of this machine (zstandard not installed): reading the bytes
    # again with the same options may load them.
    retry_always: bool
    max_record_bytes: int | None  # None: a load recorded before the manifest kept the limit
    # Some of its lines were over that limit (error_kind too_large): a higher limit may load them.
    refused_too_large: bool
    batch_id: str
    # The earlier loads whose bytes this one's begin with and whose refusals it found again (continues_sha256)
    continues: tuple[str, ...] = ()


@dataclass
class AlreadyLoaded:
    """A file's rows of one table that were not inserted, being in the table already: records with the same
    record_sha256 (the same record_id for a format read with its own file, as Inspect AI's are), or refusals with
    the same quarantine_id (the same bytes refused at the same line for the same reason, under another name)."""

    n_records: int = 0
    n_repaired: int = 0  # records among them that needed a compatibility repair
    repairs: Counter = field(default_factory=Counter)  # repair -> records among them that needed it
    first_path: str | None = None  # the file most of them were first loaded from
    refusals: Counter = field(default_factory=Counter)  # quarantine only: (format, error_kind) -> lines
    ids: list[str] = field(default_factory=list)  # quarantine only: the quarantine_id of each


@dataclass(frozen=True)
class LinesSeen:
    """What a path held when it was loaded before: (line, sha256) of its records loaded and of its lines refused,
    and the quarantine_id of each refusal of a (line, sha256)."""

    loaded: set[tuple[int, str]]
    refused: set[tuple[int, str]]
    refusal_ids: dict[tuple[int, str], list[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class EarlierRefusal:
    """A refusal an earlier run made that a later load of a file's bytes may have carried: read the line again as
    refused and not quarantined it twice (the same bytes at the same line of its path: LinesSeen.refused; or the same
    bytes, line and reason under another name: AlreadyLoaded). That load's own quarantine rows do not hold it."""

    quarantine_id: str
    source_line: int
    line_sha256: str | None  # the refused line's sha256, as LinesSeen compares it
    same_bytes: bool  # a refusal of that load's very bytes: the line holds what was refused
    too_large: bool  # refused as over the record size limit
    retry_here: bool  # refused for a reason of this machine (RETRY_HERE_PROBLEMS)


class EarlierSameRefusal(NamedTuple):
    """A refusal of another path and other bytes of the same line (its number and sha256) for the same reason
    (error_kind) as one a load makes: the same refusal when the file begins with the bytes of a load that held it."""

    quarantine_id: str
    source_line: int
    line_sha256: str
    error_kind: str
    source_path: str
    file_sha256: str


@dataclass(frozen=True)
class KnownKey:
    record_sha256: str
    source_path: str
    source_line: int
    record_json: str | None = None  # for a format with versioned_fields: what a new version is compared with


@dataclass(frozen=True)
class FileRow:
    """One row of raw.ingest_files: what happened to one file in one run."""

    batch_id: str
    source_path: str
    file_sha256: str
    file_bytes: int
    status: str  # loaded | empty | failed
    message: str | None
    n_lines: int
    n_blank: int
    n_accepted: int
    n_repaired: int
    n_quarantined: int
    n_skipped: int
    accepted_by_format: str  # JSON object {format: n}
    strict: bool
    forced_format: str | None
    started_at: dt.datetime
    finished_at: dt.datetime
    duration_ms: float
    max_record_bytes: int
    path_in_landing: str | None = None
    continues_sha256: list[str] | None = None


# Quarantine reasons that depend on this machine, not on the file or the options: the same bytes, read again
# with the same options after the machine changed (the zstandard package installed), may load. They are the
# `problem` of an Inspect archive member that could not be read (ingest/zip_members.py), kept in the row's text.
RETRY_HERE_PROBLEMS = ("zstd_unavailable", "unsupported_compression")

# The sha256 a refused line is compared by (LinesSeen): a first line refused for its byte-order mark without the
# mark, as the record it is once the mark is removed (ingest/classify.py); a row quarantined before, whose raw_sha256
# covers the mark, is hashed again here without it.
_REFUSED_LINE_SHA = (
    "case when error_kind = 'byte_order_mark' and starts_with(raw_text, chr(65279)) "
    "and raw_sha256 = sha256(raw_text) then sha256(raw_text[2:]) else raw_sha256 end"
)

# DuckDB may cache up to this much; beyond it, it spills to disk, so ingest memory stays flat with file size.
# 256 MB keeps the whole ingest (this process and its workers) under 1 GB on a 1.2 GB file (bench/RESULTS.md);
# 512 MB measured 1,011 MB there and was no faster.
MEMORY_LIMIT = os.environ.get("EVALHOUSE_INGEST_MEMORY_LIMIT", "256MB")


class FileStaging:
    """One file's rows on their way in: each table's rows appended to its own Arrow file on disk
    (ingest/arrow_files.py)."""

    def __init__(self, directory: Path) -> None:
        shutil.rmtree(directory, ignore_errors=True)
        directory.mkdir(parents=True)
        self.directory = directory
        self.writers: dict[str, arrow_files.Writer] = {}
        self.paths: dict[str, list[Path]] = {}
        self.rows: Counter = Counter()

    def append(self, table_name: str, batch: pa.Table) -> None:
        if batch.num_rows == 0:
            return
        writer = self.writers.get(table_name)
        if writer is None:
            path = self.directory / f"appended-{len(self.writers)}{arrow_files.SUFFIX}"
            writer = self.writers[table_name] = arrow_files.open_writer(path, batch.schema)
            self.paths.setdefault(table_name, []).append(path)
        writer.write_table(batch)
        self.rows[table_name] += batch.num_rows

    def add_file(self, table_name: str, path: Path, n_rows: int) -> None:
        """Rows already written to an Arrow file in this directory (by a worker) join the table's rows."""
        if n_rows:
            self.paths.setdefault(table_name, []).append(path)
            self.rows[table_name] += n_rows

    def close(self) -> None:
        for writer in self.writers.values():
            writer.close()
        self.writers = {}

    def remove(self) -> None:
        self.close()
        shutil.rmtree(self.directory, ignore_errors=True)


def _every_record_table(columns: str, where: str) -> str:
    """A select of `columns` from every format's raw table where `where` holds, as one union (the record tables share
    their columns: _RECORD_DDL)."""
    return " union all ".join(f"select {columns} from raw.{name} where {where}" for name in FORMATS)


def _records_of_refusals(columns: str) -> str:
    """The record tables' rows (`columns`) that may have loaded a refusal's line later: at a line of one of the
    refusals (a CTE `refusals` of raw.quarantine rows), from its path or of its bytes."""
    return _every_record_table(
        columns,
        "source_line in (select source_line from refusals) and (source_path in (select source_path from refusals) "
        "or file_sha256 in (select file_sha256 from refusals))")


# Whether a refusal (a row of the CTE `refusals`, with a line) is no longer still refused: a record loaded after it
# from the same line of the same bytes or of the same path (`records`: _records_of_refusals), or a run found its line
# held loaded (raw.quarantine_resolutions). The rule of marts.fct_quarantined_lines.loaded_later_at, in Python's
# lookups; `{batch}` leaves out what one run did (as '' it leaves out nothing).
_LOADED_LATER = (
    "(exists (select 1 from records where records.source_line = refusals.source_line{records_batch} "
    "  and (records.file_sha256 = refusals.file_sha256 or records.source_path = refusals.source_path) "
    "  and records.ingested_at > refusals.quarantined_at) "
    " or exists (select 1 from raw.quarantine_resolutions as resolutions "
    "  where resolutions.quarantine_id = refusals.quarantine_id{resolutions_batch}))"
)


def _loaded_later(but_batch: bool = False) -> str:
    """_LOADED_LATER, leaving out the records and resolutions of the run $batch when `but_batch`."""
    return _LOADED_LATER.format(records_batch=" and records.batch_id <> $batch" if but_batch else "",
                                resolutions_batch=" and resolutions.batch_id <> $batch" if but_batch else "")


class RawStore:
    """A write connection to the warehouse file, holding the raw layer's tables."""

    def __init__(self, db_path: Path) -> None:
        db_path.parent.mkdir(parents=True, exist_ok=True)
        self.staging_root = db_path.with_name(f".{db_path.name}.ingest")
        shutil.rmtree(self.staging_root, ignore_errors=True)  # left by a run that was killed: never loaded
        self.con = duckdb.connect(str(db_path))
        self.con.execute(f"set memory_limit = '{MEMORY_LIMIT}'")
        # A raw table's order carries nothing (every row has its file and line); letting DuckDB insert in any
        # order makes a file's load about a third faster and uses less memory.
        self.con.execute("set preserve_insertion_order = false")
        for statement in _DDL:
            self.con.execute(statement)

    def staging(self, name: str) -> FileStaging:
        return FileStaging(self.staging_root / name)

    def load_staged(self, staging: FileStaging, source_path: str, file_sha256: str, ingested_at: dt.datetime,
                    batch_id: str) -> dict[str, AlreadyLoaded]:
        """Insert a file's staged rows (inside the caller's transaction), adding what every row of it shares, all
        but the records already in their table; returns those, by format."""
        staging.close()
        skipped: dict[str, AlreadyLoaded] = {}
        for table_name, paths in staging.paths.items():
            if table_name == "quarantine":
                # A file read again under another name (to retry what it refused) refuses some lines again: the same
                # bytes, line and reason give the same quarantine_id, which is refused once.
                already = self._already_refused(paths)
                key = "quarantine_id"
                insert = (
                    "insert into raw.quarantine (quarantine_id, source_path, source_line, byte_offset, format, "
                    "schema_version, error_kind, error_pointer, error_message, raw_text, raw_text_truncated, "
                    "raw_sha256, file_sha256, batch_id, quarantined_at) "
                    "select quarantine_id, ?, source_line, byte_offset, format, schema_version, error_kind, "
                    "error_pointer, error_message, raw_text, raw_text_truncated, raw_sha256, ?, ?, ? "
                    "from staged_rows"
                )
                params = [source_path, file_sha256, batch_id, ingested_at]
            else:
                # A record is loaded once, whatever file brings it (its record_sha256); a format read with its own
                # file (Inspect AI) once per file and place (its record_id, from the file's bytes and the place).
                key = "record_sha256" if FORMATS[_table(table_name)].loaded_once else "record_id"
                already = self._already_loaded(table_name, paths, key)
                insert = (
                    f"insert into raw.{_table(table_name)} (record_id, natural_key, schema_version, record_json, "
                    "repairs, source_path, source_line, byte_offset, record_sha256, file_sha256, ingested_at, "
                    "batch_id) select record_id, natural_key, schema_version, record_json, repairs, ?, "
                    "source_line, byte_offset, record_sha256, ?, ?, ? from staged_rows"
                )
                params = [source_path, file_sha256, ingested_at, batch_id]
            if already is not None:
                skipped[table_name] = already
                insert += f" where {key} not in (select {key} from already_loaded)"
            self.con.register("staged_rows", arrow_files.stream_rows(paths))
            try:
                self.con.execute(insert, params)
            finally:
                self.con.unregister("staged_rows")
        self.con.execute("drop table if exists already_loaded")
        return skipped

    def _already_refused(self, paths: Sequence[Path]) -> AlreadyLoaded | None:
        """The staged refusals already in raw.quarantine (one semi-join over their ids), kept in the temporary
        table already_loaded; None when there are none, the usual case."""
        self.con.register("staged_keys", arrow_files.stream_rows(paths, ["quarantine_id", "format", "error_kind"]))
        try:
            self.con.execute(
                "create or replace temp table already_loaded as select quarantine_id, format, error_kind "
                "from staged_keys where quarantine_id in (select quarantine_id from raw.quarantine)"
            )
        finally:
            self.con.unregister("staged_keys")
        already = AlreadyLoaded()
        for format_name, kind, n in self.con.execute(
                "select format, error_kind, count(*) from already_loaded group by all").fetchall():
            already.n_records += n
            already.refusals[(format_name, kind)] += n
        if not already.n_records:
            return None
        already.ids = [row[0] for row in self.con.execute("select quarantine_id from already_loaded").fetchall()]
        already.first_path = self.con.execute(
            "select source_path from raw.quarantine where quarantine_id in (select quarantine_id from already_loaded) "
            "group by source_path order by count(*) desc, min(quarantined_at), source_path limit 1"
        ).fetchall()[0][0]
        return already

    def _already_loaded(self, table_name: str, paths: Sequence[Path], key: str) -> AlreadyLoaded | None:
        """The staged records already in the table by `key` (record_sha256 or record_id: one semi-join over the
        staged keys), kept in the temporary table already_loaded; None when there are none, the usual case."""
        table = _table(table_name)
        if key not in ("record_sha256", "record_id"):
            raise ValueError(f"unknown record key {key!r}")
        self.con.register("staged_keys", arrow_files.stream_rows(paths, [key, "repairs"]))
        try:
            self.con.execute(
                f"create or replace temp table already_loaded as select {key}, repairs from staged_keys "
                f"where {key} in (select {key} from raw.{table})"
            )
        finally:
            self.con.unregister("staged_keys")
        already = AlreadyLoaded()
        for repairs, n in self.con.execute("select repairs, count(*) from already_loaded group by all").fetchall():
            already.n_records += n
            already.n_repaired += n if repairs else 0
            for repair in json.loads(repairs) if repairs else ():
                already.repairs[repair] += n
        if not already.n_records:
            return None
        already.first_path = self.con.execute(
            f"select source_path from raw.{table} where {key} in (select {key} from already_loaded) "
            "group by source_path order by count(*) desc, min(ingested_at), source_path limit 1"
        ).fetchall()[0][0]
        return already

    def close(self) -> None:
        self.con.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Everything of one file commits together or not at all (a kill mid-file leaves none of it)."""
        self.con.begin()
        try:
            yield
        except BaseException:
            self.con.rollback()
            raise
        self.con.commit()

    def prior_loads(self, file_sha256: str) -> list[PriorLoad]:
        """The completed earlier loads of these bytes, oldest first."""
        rows = self.con.execute(
            "select source_path, finished_at, n_quarantined, strict, forced_format, "
            "  coalesce(bool_or(quarantine.error_pointer = '/inspect_unreadable_member/problem'"
            "    and regexp_matches(quarantine.raw_text, ?)), false), "
            "  max_record_bytes, coalesce(bool_or(quarantine.error_kind = 'too_large'), false), "
            "  batch_id, coalesce(continues_sha256, []) "
            "from raw.ingest_files left join raw.quarantine using (file_sha256, batch_id, source_path) "
            "where file_sha256 = ? and status in ('loaded', 'empty') "
            "group by all order by finished_at",
            [f'"problem": "({"|".join(RETRY_HERE_PROBLEMS)})"', file_sha256],
        ).fetchall()
        return [PriorLoad(*row[:-1], tuple(row[-1])) for row in rows]

    def lines_seen(self, source_path: str) -> LinesSeen | None:
        """For a path loaded before with other content (an appended landing file), the (line, sha256) pairs
        already stored, so unchanged lines are not added twice. None when the path is new."""
        known = self.con.execute(
            "select count(*) from raw.ingest_files where source_path = ?", [source_path]
        ).fetchone()[0]
        if not known:
            return None
        loaded = _every_record_table("source_line, record_sha256", "source_path = $path")
        refused = (
            f"select source_line, {_REFUSED_LINE_SHA}, quarantine_id "
            "from raw.quarantine where source_path = ? and source_line is not null"
        )
        refusal_ids: dict[tuple[int, str], list[str]] = defaultdict(list)
        for line, sha, quarantine_id in self.con.execute(refused, [source_path]).fetchall():
            refusal_ids[(line, sha)].append(quarantine_id)
        return LinesSeen(
            set(self.con.execute(loaded, {"path": source_path}).fetchall()), set(refusal_ids), dict(refusal_ids)
        )

    def record_begun(self, source_path: str, source_line: int, text: str) -> tuple[str, dt.datetime] | None:
        """The last record loaded from this line of this path whose text begins with `text` (a last line cut off):
        (batch_id, ingested_at), or None. Said beside the refusal of that line, so a user reading it knows the
        record itself is in the warehouse whole."""
        records = _every_record_table(
            "batch_id, ingested_at", "source_path = $path and source_line = $line and starts_with(record_json, $text)")
        row = self.con.execute(f"{records} order by ingested_at desc limit 1",
                               {"path": source_path, "line": source_line, "text": text}).fetchone()
        return (row[0], row[1]) if row is not None else None

    def refusals_of_load(self, prior: PriorLoad, file_sha256: str) -> dict[str, int | None]:
        """The lines an earlier load of these bytes refused (and quarantined): {quarantine_id: source_line}, None for
        a refusal of the whole file."""
        return dict(self.con.execute(
            "select quarantine_id, source_line from raw.quarantine where batch_id = ? and source_path = ? "
            "and file_sha256 = ?", [prior.batch_id, prior.source_path, file_sha256]).fetchall())

    def refusals_before_load(self, prior: PriorLoad, file_sha256: str) -> list[EarlierRefusal]:
        """The refusals an earlier load of these bytes may have carried: made before it by another run, at its path
        or of these bytes, of a line it neither quarantined itself nor loaded a record from (records a load finds
        already stored leave no row, so a few of these it read as accepted: the caller compares the lines). [] after
        one count over raw.quarantine when there are none, the usual case, so a skip stays a lookup."""
        # A load that continued earlier loads (a file renamed and appended to) carried their refusals too: those
        # made at their paths or of their bytes (RawStore.continued_refusals).
        where = ("(source_path = $path or file_sha256 = $sha or file_sha256 in (select unnest($continues::varchar[])) "
                 "or source_path in (select source_path from raw.ingest_files "
                 "  where file_sha256 in (select unnest($continues::varchar[])))) "
                 "and batch_id <> $batch and quarantined_at < $finished and source_line is not null")
        params = {"path": prior.source_path, "sha": file_sha256, "batch": prior.batch_id,
                  "finished": prior.finished_at, "continues": list(prior.continues)}
        if not self.con.execute(f"select count(*) from raw.quarantine where {where}", params).fetchone()[0]:
            return []
        own_records = _every_record_table("source_line", "batch_id = $batch and source_path = $path")
        rows = self.con.execute(
            "with own_lines as (select source_line from raw.quarantine where batch_id = $batch "
            f"  and source_path = $path and file_sha256 = $sha union all {own_records}) "
            f"select quarantine_id, source_line, {_REFUSED_LINE_SHA}, file_sha256 = $sha, error_kind = 'too_large', "
            "  coalesce(error_pointer = '/inspect_unreadable_member/problem' and regexp_matches(raw_text, $retry), "
            "    false) "
            f"from raw.quarantine where {where} "
            "  and source_line not in (select source_line from own_lines where source_line is not null) "
            "order by source_line, quarantined_at, quarantine_id",
            {**params, "retry": f'"problem": "({"|".join(RETRY_HERE_PROBLEMS)})"'},
        ).fetchall()
        return [EarlierRefusal(*row) for row in rows]

    def refusals_loaded_later(self, quarantine_ids: Sequence[str]) -> dict[str, bool]:
        """Of these refusals, those whose line a later run loaded: {quarantine_id: whether it was cut off
        (truncated)}. The rule of marts.fct_quarantined_lines.loaded_later_at: a record loaded after the refusal
        from the same line of the same bytes or of the same path, or a run that found the line held loaded
        (raw.quarantine_resolutions). Such a line is in the warehouse even when the file on disk holds it as refused
        again (reverted to the bytes refused then)."""
        if not quarantine_ids:
            return {}
        records = _records_of_refusals("source_path, source_line, file_sha256, ingested_at")
        rows = self.con.execute(
            "with refusals as (select quarantine_id, source_path, source_line, file_sha256, quarantined_at, "
            "  error_kind from raw.quarantine where quarantine_id in (select unnest($ids::varchar[])) "
            "  and source_line is not null), "
            f"records as ({records}) "
            f"select quarantine_id, bool_or(error_kind = 'truncated') from refusals where {_loaded_later()} "
            "group by quarantine_id",
            {"ids": list(quarantine_ids)},
        ).fetchall()
        return dict(rows)

    def refusals_resolved(self, source_path: str, file_sha256: str, batch_id: str) -> dict[int, bool]:
        """The lines of this file that an earlier run refused, still refused until this batch, and that this batch
        loaded or found held loaded (inside the caller's transaction, after load_staged and resolve_refusals): {line:
        whether a refusal was of the line cut off (truncated)}. The rule of marts.fct_quarantined_lines: a refusal
        is resolved by a record loaded after it from the same line of the same bytes (the file renamed back, other
        options) or of the same path (the file completed or corrected in place), or by a run that found its line
        held loaded (raw.quarantine_resolutions: its record already stored)."""
        if not self.con.execute(
            "select count(*) from raw.quarantine where (source_path = ? or file_sha256 = ?) "
            "and source_line is not null and batch_id <> ?", [source_path, file_sha256, batch_id],
        ).fetchone()[0]:
            return {}  # the usual case: nothing of this path or these bytes was refused
        records = _every_record_table(
            "source_path, source_line, file_sha256, ingested_at, batch_id",
            "source_path in (select source_path from refusals) or file_sha256 in (select file_sha256 from refusals)")
        rows = self.con.execute(
            "with refusals as (select quarantine_id, source_path, source_line, file_sha256, quarantined_at, "
            "  error_kind from raw.quarantine where (source_path = $path or file_sha256 = $sha) "
            "  and source_line is not null and batch_id <> $batch), "
            f"records as ({records}), "
            f"still_refused as (select * from refusals where not {_loaded_later(but_batch=True)}) "
            "select source_line, bool_or(error_kind = 'truncated') from still_refused "
            "where source_line in (select source_line from records where batch_id = $batch and source_path = $path) "
            "  or quarantine_id in (select quarantine_id from raw.quarantine_resolutions where batch_id = $batch) "
            "group by source_line",
            {"path": source_path, "sha": file_sha256, "batch": batch_id},
        ).fetchall()
        return dict(rows)

    def refused_in_smaller_loads(self, source_path: str, file_sha256: str, smaller_than: int) -> bool:
        """Whether a completed load of another path and other bytes, smaller than `smaller_than` bytes, refused lines:
        only such a load's refusals can be the same as a file's that begins with its bytes (same_refusals_elsewhere).
        One look at the manifest per file: false for the first files of a warehouse, and for most others."""
        return self.con.execute(
            "select exists (select 1 from raw.ingest_files where status in ('loaded', 'empty') and n_quarantined > 0 "
            "and file_bytes < $size and source_path <> $path and file_sha256 <> $sha)",
            {"size": smaller_than, "path": source_path, "sha": file_sha256},
        ).fetchone()[0]

    def same_refusals_elsewhere(self, source_path: str, file_sha256: str,
                                refused: Sequence[tuple[int, str, str]]) -> list[EarlierSameRefusal]:
        """The refusals of other paths and other bytes of these (line, sha256 of the line, error_kind), oldest first:
        the same refusals when the file begins with the bytes of a load at their path or of their bytes (the caller
        checks: loads_of). [] when there are none."""
        if not refused:
            return []
        lines, shas, kinds = (list(column) for column in zip(*refused))
        rows = self.con.execute(
            "with staged as (select unnest($lines::bigint[]) as line, unnest($shas::varchar[]) as sha, "
            "  unnest($kinds::varchar[]) as kind), "
            "earlier as (select quarantine_id, source_line, source_path, file_sha256, quarantined_at, error_kind, "
            f"  {_REFUSED_LINE_SHA} as line_sha from raw.quarantine "
            "  where source_line in (select line from staged) and source_path <> $path and file_sha256 <> $sha) "
            "select earlier.quarantine_id, earlier.source_line, earlier.line_sha, earlier.error_kind, "
            "  earlier.source_path, earlier.file_sha256 from earlier inner join staged "
            "  on staged.line = earlier.source_line and staged.sha = earlier.line_sha "
            "  and staged.kind = earlier.error_kind "
            "order by earlier.quarantined_at, earlier.quarantine_id",
            {"lines": lines, "shas": shas, "kinds": kinds, "path": source_path, "sha": file_sha256},
        ).fetchall()
        return [EarlierSameRefusal(*row) for row in rows]

    def loads_of(self, paths: Collection[str], shas: Collection[str], smaller_than: int) -> list[tuple[str, int, str]]:
        """The completed loads at these paths or of these bytes of fewer bytes than `smaller_than`: (file_sha256,
        file_bytes, source_path), each once."""
        return self.con.execute(
            "select distinct file_sha256, file_bytes, source_path from raw.ingest_files "
            "where (source_path in (select unnest($paths::varchar[])) "
            "  or file_sha256 in (select unnest($shas::varchar[]))) "
            "and status in ('loaded', 'empty') and file_bytes < $size order by file_bytes, file_sha256, source_path",
            {"paths": sorted(paths), "shas": sorted(shas), "size": smaller_than},
        ).fetchall()

    def refused_lines(self, source_path: str, file_sha256: str) -> set[int]:
        """The lines an earlier run refused at this path or in these bytes, resolved or not: a load of the file
        notes which of them it accepts (resolve_refusals). Empty, the usual case, after one look at raw.quarantine."""
        return {row[0] for row in self.con.execute(
            "select distinct source_line from raw.quarantine where (source_path = ? or file_sha256 = ?) "
            "and source_line is not null", [source_path, file_sha256]).fetchall()}

    def open_refusals(self, source_path: str, file_sha256: str, leave_out: Collection[int]) -> dict[int, list[str]]:
        """The refusals of lines at this path or of these bytes that are still open (neither loaded later nor
        resolved: _LOADED_LATER), but those of the lines in `leave_out`: {line: quarantine_ids}. {} after one count
        over raw.quarantine when nothing of this path or these bytes was refused, the usual case, so a skip stays a
        lookup."""
        where = "(source_path = $path or file_sha256 = $sha) and source_line is not null"
        params = {"path": source_path, "sha": file_sha256}
        if not self.con.execute(f"select count(*) from raw.quarantine where {where}", params).fetchone()[0]:
            return {}
        records = _records_of_refusals("source_path, source_line, file_sha256, ingested_at")
        rows = self.con.execute(
            "with refusals as (select quarantine_id, source_path, source_line, file_sha256, quarantined_at "
            f"  from raw.quarantine where {where} and source_line not in (select unnest($leave_out::bigint[]))), "
            f"records as ({records}) "
            f"select source_line, quarantine_id from refusals where not {_loaded_later()} "
            "order by source_line, quarantine_id",
            {**params, "leave_out": sorted(leave_out)},
        ).fetchall()
        open_by_line: dict[int, list[str]] = defaultdict(list)
        for line, quarantine_id in rows:
            open_by_line[line].append(quarantine_id)
        return dict(open_by_line)

    def lines_held_loaded(self, line_sha256s: dict[int, str]) -> dict[int, str]:
        """Of these lines ({line: sha256 of its text, as ingest/line_hashes.py hashes it}), those whose text is a
        record stored in the warehouse (its record_sha256): {line: the format it was first stored as}."""
        if not line_sha256s:
            return {}
        stored = " union all ".join(
            f"select record_sha256, '{name}' as format, ingested_at from raw.{name} "
            "where record_sha256 in (select unnest($shas::varchar[]))" for name in FORMATS)  # names of the registry
        first = dict(self.con.execute(
            f"select record_sha256, arg_min(format, (ingested_at, format)) from ({stored}) group by record_sha256",
            {"shas": sorted(set(line_sha256s.values()))}).fetchall())
        return {line: first[sha] for line, sha in line_sha256s.items() if sha in first}

    def resolve_refusals(self, source_path: str, file_sha256: str, batch_id: str, resolved_at: dt.datetime,
                         held: dict[int, str]) -> dict[int, bool]:
        """Record that this run found these lines of the file (this path, these bytes) held loaded, {line: the
        format of its record}: their records stored already, so none is loaded from them. Each refusal of such a
        line at this path or of these bytes, made by an earlier run and still open (_LOADED_LATER: a record this run
        loaded from the line resolves it already), gets its row in raw.quarantine_resolutions, inside the caller's
        transaction. Returns {line: whether a refusal resolved was of the line cut off (truncated)}; {} when none,
        writing nothing."""
        if not held:
            return {}
        lines = sorted(held)
        params = {"path": source_path, "sha": file_sha256, "batch": batch_id, "at": resolved_at,
                  "lines": lines, "formats": [held[line] for line in lines]}
        records = _records_of_refusals("source_path, source_line, file_sha256, ingested_at")
        resolved = [row[0] for row in self.con.execute(
            "insert into raw.quarantine_resolutions (quarantine_id, batch_id, source_path, file_sha256, source_line, "
            "  format, resolved_at) "
            "select quarantine_id, $batch, $path, $sha, source_line, format, $at from ("
            "  with held as (select unnest($lines::bigint[]) as source_line, unnest($formats::varchar[]) as format), "
            "  refusals as (select quarantine_id, source_path, source_line, file_sha256, quarantined_at "
            "    from raw.quarantine where (source_path = $path or file_sha256 = $sha) and batch_id <> $batch "
            "    and source_line in (select source_line from held)), "
            f"  records as ({records}) "
            "  select refusals.quarantine_id, refusals.source_line, held.format from refusals "
            "  inner join held on held.source_line = refusals.source_line "
            f"  where not {_loaded_later()}) "
            "returning quarantine_id", params).fetchall()]
        if not resolved:
            return {}
        return dict(self.con.execute(
            "select source_line, bool_or(error_kind = 'truncated') from raw.quarantine "
            "where quarantine_id in (select unnest(?::varchar[])) group by source_line", [resolved]).fetchall())

    def known_keys(self, format_name: str, keys: Sequence[str]) -> dict[str, list[KnownKey]]:
        """Every stored record under each key (several when a format keeps versions), in load order."""
        if not keys:
            return {}
        table = _table(format_name)
        text = "record_json" if FORMATS[table].versioned_fields else "null"
        rows = self.con.execute(
            f"select natural_key, record_sha256, source_path, source_line, {text} from raw.{table} "
            "where natural_key in (select unnest(?::varchar[])) order by ingested_at, source_path, source_line",
            [list(keys)],
        ).fetchall()
        known: dict[str, list[KnownKey]] = defaultdict(list)
        for key, sha, path, line, record_json in rows:
            known[key].append(KnownKey(sha, path, line, record_json))
        return known

    def append_repairs(self, rows: Iterable[tuple[str, str, str, str, str, int]]) -> None:
        rows = list(rows)
        if rows:
            self.con.executemany("insert into raw.ingest_repairs values (?, ?, ?, ?, ?, ?)", rows)

    def append_file(self, row: FileRow) -> None:
        # By name: a warehouse written before a column was added has it last, wherever FileRow declares it.
        columns = ", ".join(row.__dict__)  # FileRow's field names, not input
        values = list(row.__dict__.values())
        self.con.execute(
            f"insert into raw.ingest_files ({columns}) values ({', '.join('?' * len(values))})", values
        )


def _table(format_name: str) -> str:
    if format_name not in FORMATS:  # table names are never taken from outside the registry
        raise ValueError(f"unknown format {format_name!r}")
    return format_name
