"""What readers of the published warehouse cannot tell from it: records ingested since its build, a last build
that failed or did not finish, and records lost with a deleted working copy. Kept in `<db>.status.json` beside the
published file (`warehouse/evalhouse.duckdb.status.json`).

The published file changes only when a build passes (evalhouse/publish.py), so after `evalhouse ingest` without a
build, or after a build that failed or was killed, the app and the report show the build before's figures. This
record says so:

    {"version": 2,
     "published_at": "2026-11-23T09:10:04+00:00",            the last build that passed and was published
     "last_build": {"at": ..., "passed": false,             the last build attempt that ran to its end
                    "failed": ["test.evalhouse.unique_fct_trials_trial_id", ...],
                    "messages": ["test.evalhouse.unique_fct_trials_trial_id: Got 2 results, ...", ...],
                    "see_why": "evalhouse build", "log": "target/logs/dbt.log"},
     "running": {"at": ..., "pid": 4242, "host": "box",      a build started and not ended, written before it
                 "command": "evalhouse build",               runs; its end replaces it. Found with its process
                 "published_ino": 1311},                     gone, it was killed (SIGKILL, a power cut)
     "ingest": {"at": ..., "pid": 4343, "host": "box",       an `evalhouse ingest` started and not ended, written
                "command": "evalhouse ingest /data/run9"},   before it loads; its end removes it. Each file it loads
                                                             is added to "unpublished" as it is loaded, so killed
                                                             (its process gone), what it loaded is counted there
     "unpublished": {"first_at": ..., "last_at": ..., "rebuild": false,   ingested since that publish
                     "n_files": 10000, "records": 12400000, "quarantined": 3,
                     "files": [["/data/run9999.jsonl", 1240], ...]},  the last KEPT_FILES files loaded, named
     "discarded": {"at": ..., "unpublished": {...}}}         what was unpublished when the working copy was found
                                                             deleted: gone with it, never published

The record stays small whatever an ingest loads: files beyond the last KEPT_FILES are counted (n_files, records),
not named. Version 1 records (every file named, `files` a {path: records} object, no `running` or `discarded`)
are read as the same. `ingest` came later within version 2: readers that predate it ignore it (and say what they
said before it was kept), so it needed no new version.

Only writers write it, under the writer lock (ingest, build, rebuild, the API), each time whole: a temporary file
renamed over it, so a reader reads the old record or the new one. Readers only read it; a missing or unreadable
record (a warehouse built before the record was kept) is "unknown", and says nothing. What the record cannot say
by itself is looked at when it is read (observe): whether the process of a build or an ingest it says started still
runs, and whether the working copy still holds what it says is unpublished.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import socket
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

VERSION = 2
READABLE_VERSIONS = (1, 2)  # 1: every file named; read as version 2
SHOWN_NODES = 3  # failing nodes named in the notice; the rest are counted
KEPT_MESSAGES = 20  # failure messages kept in the record, each cut to MESSAGE_CHARS
MESSAGE_CHARS = 500
KEPT_FILES = 20  # unpublished files named in the record (the last loaded); the rest are counted
SHOWN_FILES = 3  # of those, named in the notice; `evalhouse ingest` and `build` name them all in their note
# dbt's resource types, as a node's unique id starts ("test.evalhouse.not_null_fct_trials_trial_id"), and how the
# notice names them
NODE_KINDS = {"model": "model", "test": "test", "unit_test": "unit test", "seed": "seed", "snapshot": "snapshot"}


@dataclass(frozen=True)
class BuildAttempt:
    """The last `evalhouse build` (or rebuild) that ran to its end, passed or not."""

    at: dt.datetime
    passed: bool
    failed: tuple[str, ...] = ()  # the unique id of each failing node ("test.evalhouse.unique_fct_trials_trial_id")
    messages: tuple[str, ...] = ()  # what failed and why, as the build printed it (the first KEPT_MESSAGES, cut)
    see_why: str = "evalhouse build"  # the command that runs the build again and prints each failure
    log: str | None = None  # dbt's log of the build, with every statement it ran


@dataclass(frozen=True)
class BuildStart:
    """A build (or rebuild) that started and has recorded no end: under way, or killed before it could."""

    at: dt.datetime
    pid: int  # the process that records its end
    host: str  # where that process runs: a pid means nothing on another machine
    command: str  # what started it, to run it again ("evalhouse build", "evalhouse --db w.duckdb rebuild")
    published_ino: int | None = None  # the published file's inode when it started (None: there was none)
    # Looked at when the record is read (observe), never stored: True while its process runs it, False once that
    # process is gone, None when that cannot be told (it runs on another host).
    under_way: bool | None = None


@dataclass(frozen=True)
class IngestStart:
    """An `evalhouse ingest` (or a save of the app, which runs one) that started and has recorded no end: under way,
    or killed before it could. What it loaded is in `unpublished` already, file by file; the rest of its files it
    did not load, and running its command again loads them (it skips the files already loaded)."""

    at: dt.datetime
    pid: int
    host: str
    command: str  # what started it, to run it again ("evalhouse ingest /data/run9 --strict")
    under_way: bool | None = None  # as BuildStart's: looked at when the record is read, never stored


@dataclass(frozen=True)
class Unpublished:
    """What ingests loaded into the working copy since the last publish: not in the marts readers read."""

    first_at: dt.datetime
    last_at: dt.datetime
    # The last KEPT_FILES files loaded -> records loaded from each, the most recently loaded last.
    files: dict[str, int] = field(default_factory=dict)
    n_files: int = 0  # files loaded, named or not (one loaded again after it left `files` is counted again)
    records: int = 0  # records loaded from them all
    quarantined: int = 0  # lines quarantined (raw.quarantine feeds the Data quality page)
    rebuild: bool = False  # a rebuild loaded these into a fresh working copy: most were published before

    def adding(self, loads: Iterable[tuple[str, int]], at: dt.datetime) -> Unpublished:
        """With (file, records) loads added: a named file's count grows, a new file is named and counted, and the
        file loaded longest ago stops being named once more than KEPT_FILES are."""
        files, n_files, records = dict(self.files), self.n_files, self.records
        for path, n in loads:
            if path in files:
                files[path] = files.pop(path) + n  # last: the most recently loaded
            else:
                files[path] = n
                n_files += 1
                if len(files) > KEPT_FILES:
                    del files[next(iter(files))]
            records += n
        return replace(self, last_at=max(at, self.last_at), files=files, n_files=n_files, records=records)

    @property
    def unnamed(self) -> int:
        return self.n_files - len(self.files)


@dataclass(frozen=True)
class Discarded:
    """Records ingested and never published that went with the working copy when it was deleted (evalhouse deletes
    it only to rebuild, or with the warehouse): they are neither published nor on their way to be."""

    unpublished: Unpublished
    at: dt.datetime | None = None  # when a writer found the working copy gone; None: seen by a reader, no writer since


@dataclass(frozen=True)
class BuildStatus:
    published_at: dt.datetime | None = None  # None: not known (published before this record was kept)
    last_build: BuildAttempt | None = None
    unpublished: Unpublished | None = None
    running: BuildStart | None = None
    discarded: Discarded | None = None
    ingest: IngestStart | None = None

    @property
    def killed(self) -> bool:
        """A build started and its process is gone without recording its end (killed, or the machine stopped)."""
        return self.running is not None and self.running.under_way is False

    @property
    def ingest_killed(self) -> bool:
        """An ingest started and its process is gone without recording its end: it loaded part of its files."""
        return self.ingest is not None and self.ingest.under_way is False

    @property
    def up_to_date(self) -> bool:
        """Nothing ingested since the last publish or lost with the working copy, and the last build passed (none
        was killed since): readers see everything."""
        return (self.unpublished is None and self.discarded is None and not self.killed and not self.ingest_killed
                and (self.last_build is None or self.last_build.passed))


def status_path(published: Path) -> Path:
    return published.with_name(published.name + ".status.json")


# -- reading: the app and the report ------------------------------------------------------------------------------

def read_status(published: Path) -> BuildStatus | None:
    """The record beside `published`, looked at now (observe), or None when there is none or it cannot be read
    (unknown: say nothing)."""
    status = read_record(published)
    return None if status is None else observe(status, published)


def read_record(published: Path) -> BuildStatus | None:
    """The record as it is written, not looked at (a reader that keeps it calls observe each time it shows it).
    Without a publish time in it, the published file's modification time (its build's last write) stands in."""
    try:
        status = _from_json(json.loads(status_path(published).read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    if status is not None and status.published_at is None:
        try:
            mtime = published.stat().st_mtime
        except OSError:
            return status
        status = replace(status, published_at=dt.datetime.fromtimestamp(mtime, dt.timezone.utc))
    return status


def observe(status: BuildStatus, published: Path) -> BuildStatus:
    """What the record cannot say by itself, looked at now: whether the build it says started still runs (its
    process, and the writer lock), and whether the working copy still holds what it says is unpublished. Costs
    nothing when the record names neither; otherwise a stat, a signal 0 and a look at the writer lock.

    A build whose process is gone after it replaced the published file was published, and killed before it could
    record that: it reads as a build that passed then. Records said to be unpublished while no working copy exists
    and no writer is at work went with a working copy deleted by hand: they read as discarded."""
    from evalhouse.lock import writer_active
    from evalhouse.publish import working_copy

    if (status.running is None and status.ingest is None
            and (status.unpublished is None or working_copy(published).exists())):
        return status
    writer = writer_active(published)
    if status.ingest is not None:
        status = replace(status, ingest=replace(status.ingest, under_way=_under_way(status.ingest, writer)))
    running = status.running
    if running is not None:
        running = replace(running, under_way=_under_way(running, writer))
        status = replace(status, running=running)
        if running.under_way is False and _inode(published) not in (None, running.published_ino):
            at = _mtime(published) or running.at
            return BuildStatus(published_at=at, last_build=BuildAttempt(at, True, see_why=running.command))
    if writer is False and not working_copy(published).exists():
        # What a killed ingest loaded went with the working copy: it is counted as discarded with the rest.
        status = _discarding(replace(status, ingest=None if status.ingest_killed else status.ingest), None)
    return status


def stale_notice(status: BuildStatus | None, *, now: dt.datetime | None = None) -> str | None:
    """One line that says why the figures read from the published warehouse are not the latest, or None when they
    are (or when that is unknown). `now` given, times also read as ages ("2 h ago"), as the app shows them;
    without it, times alone, as a report keeps them. `status` as read_status gives it (observed)."""
    if status is None or status.up_to_date:
        return None
    parts: list[str] = []
    pending = status.unpublished
    build = status.last_build
    running = status.running
    under_way = running is not None and running.under_way is True
    ingest = status.ingest
    ingesting = ingest is not None and ingest.under_way is True
    source = f"the build of {_when(status.published_at)}" if status.published_at else "the last build that passed"
    if status.discarded is not None:
        parts.append(_discarded_text(status.discarded, now, SHOWN_FILES))
    if status.killed:
        parts.append(f"The last build, started at {_moment(running.at, now)} by `{running.command}`, did not "
                     f"finish (its process ended without recording an end: killed, or the machine stopped): these "
                     f"figures are from {source}.")
        parts += _pending_beside_a_build(pending, now)
        parts.append(f"Run `{running.command}` again.")
    elif build is not None and not build.passed:
        parts.append(f"The last build, at {_moment(build.at, now)}, failed ({_failed_nodes(build)}): these figures "
                     f"are from {source}.")
        parts += _pending_beside_a_build(pending, now)
        parts.append(f"To see why: `{build.see_why}` prints each failure"
                     + (f"; dbt's log is {build.log}." if build.log else "."))
        if under_way:
            parts.append(f"A build started at {_moment(running.at, now)} is under way.")
    elif status.ingest_killed:
        parts.append(_ingest_killed_text(ingest, now) + _KILLED_INGEST_LOADED
                     + (f"; in all, {_pending_text(pending, now)}." if pending is not None else "."))
        parts.append(f"`evalhouse build` publishes {'it' if pending is None or pending.n_files == 1 else 'them'}; "
                     f"running `{ingest.command}` again loads what it had not.")
        return " ".join(parts)
    elif pending is not None:
        if under_way:
            then = f"a build started at {_moment(running.at, now)} is under way"
        elif ingesting:
            then = (f"an ingest started at {_moment(ingest.at, now)} is under way; run `evalhouse build` once it "
                    f"ends to publish {'it' if pending.rebuild or pending.n_files == 1 else 'them'}")
        else:
            then = "run `evalhouse build`" + ("" if pending.rebuild else " to publish them")
        pending_text = _pending_text(pending, now)
        parts.append(f"{pending_text[0].upper()}{pending_text[1:]} yet: {then}.")
        return " ".join(parts) or None
    if status.ingest_killed:
        parts.append(_ingest_killed_text(ingest, now) + _KILLED_INGEST_LOADED
                     + f"; running `{ingest.command}` again loads what it had not.")
    elif ingesting and parts:
        parts.append(f"An ingest started at {_moment(ingest.at, now)} is under way.")
    return " ".join(parts) or None


def _pending_text(pending: Unpublished, now: dt.datetime | None) -> str:
    """'a rebuild ... is not in these figures' or '3 files (...) ingested ... are not in these figures'."""
    if pending.rebuild:
        return (f"a rebuild from {_plural(pending.n_files, 'file')}, loaded at {_moment(pending.last_at, now)}, is "
                f"not in these figures")
    return (f"{_loaded(pending)} ingested {_moment(pending.first_at, now, pending.last_at)} {_are(pending)} not in "
            f"these figures")


_KILLED_INGEST_LOADED = " What it loaded before it stopped is in the working copy, not published"


def _ingest_killed_text(ingest: IngestStart, now: dt.datetime | None) -> str:
    """An ingest with a start and no end: killed, or failed with an error it reported (a run that fails records no
    end either, on purpose: what it loaded before is in the working copy)."""
    return (f"An ingest started at {_moment(ingest.at, now)} by `{ingest.command}` did not finish (it stopped part "
            f"way without recording an end: it failed with an error it reported, or it was killed or interrupted, or "
            f"the machine stopped).")


def unfinished_ingest_note(ingest: IngestStart) -> str:
    """What an ingest that finds an earlier one did not finish says to whoever runs it (the record stops naming
    that one: this one replaces it)."""
    return (f"{_ingest_killed_text(ingest, _now())} What it loaded is in the working copy; if this ingest is not the "
            f"same, run `{ingest.command}` again to load what it had not.")


def discarded_note(discarded: Discarded) -> str:
    """What a writer that found the working copy deleted says to whoever ran it: the files to ingest again, named
    as far as the record names them."""
    return _discarded_text(discarded, None, KEPT_FILES)


# -- writing: the one writer, under the writer lock ---------------------------------------------------------------

def record_ingest(published: Path, loaded: Iterable[tuple[str, int, int]], *, at: dt.datetime | None = None) -> None:
    """Add what an ingest loaded into the working copy, (file, records, quarantined lines) per file, to what is not
    published yet. Files that added nothing are left out; nothing loaded, nothing written."""
    loaded = [(path, records, quarantined) for path, records, quarantined in loaded if records or quarantined]
    if not loaded:
        return
    at = at or _now()
    status = _current(published)
    before = status.unpublished or Unpublished(first_at=at, last_at=at)
    pending = before.adding(((path, records) for path, records, _ in loaded), at)
    pending = replace(pending, quarantined=before.quarantined + sum(q for _, _, q in loaded))
    _write(published, replace(status, unpublished=pending))


def record_file(published: Path, outcome: Any, *, at: dt.datetime | None = None) -> None:
    """record_ingest of one file an ingest has just loaded (its FileOutcome, ingest/pipeline.py), as `evalhouse
    ingest` records each: killed after it, the file is counted."""
    record_ingest(published, [(outcome.source_path, outcome.accepted, outcome.quarantined)], at=at)


def record_ingest_start(published: Path, command: str, *, at: dt.datetime | None = None) -> IngestStart | None:
    """An ingest is about to load, in this process: record_ingest_end, its end, removes this. Killed before it, it
    stays, and readers who find its process gone say the ingest did not finish. Returns the ingest this replaces
    that did not finish (its files loaded are counted in `unpublished`; the writer says to run it again), if any."""
    status = _current(published)
    killed = status.ingest if status.ingest_killed else None
    _write(published, replace(status, ingest=IngestStart(at or _now(), os.getpid(), socket.gethostname(), command)))
    return killed


def record_ingest_end(published: Path) -> None:
    """This process's ingest ended (loaded everything it could, or stopped by an exception it reports itself, each
    file it loaded recorded by record_file): readers are no longer told of it."""
    status = _current(published)
    if _ours(status.ingest):
        _write(published, replace(status, ingest=None))


def record_summary(published: Path, summary: Any, *, at: dt.datetime | None = None) -> None:
    """record_ingest from an ingest's RunSummary (ingest/pipeline.py)."""
    record_ingest(published, ((f.source_path, f.accepted, f.quarantined) for f in summary.files), at=at)


def start_rebuild(published: Path, *, at: dt.datetime | None = None) -> None:
    """A rebuild replaces the working copy by a fresh one: what it loads next is unpublished as a rebuild, and
    what earlier ingests loaded is gone from the working copy (loaded again by the rebuild if its files remain)."""
    at = at or _now()
    status = _current(published)
    _write(published, replace(status, unpublished=Unpublished(first_at=at, last_at=at, rebuild=True)))


def record_start(published: Path, command: str, *, at: dt.datetime | None = None) -> None:
    """A build (or rebuild) is about to run, in this process: record_build, its end, replaces this. Killed before
    it (SIGKILL, a power cut), it stays, and readers who find its process gone say the build did not finish."""
    status = _current(published)
    start = BuildStart(at or _now(), os.getpid(), socket.gethostname(), command, _inode(published))
    _write(published, replace(status, running=start))


def record_not_run(published: Path) -> None:
    """This process's build stopped before dbt ran (another process held the working copy): nothing was attempted,
    so nothing is recorded in its place."""
    status = _current(published)
    if _ours(status.running):
        _write(published, replace(status, running=None))


def record_stopped(published: Path, reason: str, *, see_why: str = "evalhouse build",
                   at: dt.datetime | None = None) -> None:
    """This process's build stopped by an exception before recording its end (record_build did, for a failure to
    publish): a failed attempt, saying why."""
    if _ours(_current(published).running):
        record_build(published, passed=False, failures=(f"the build stopped before its end: {reason}",),
                     see_why=see_why, at=at)


def record_build(published: Path, *, passed: bool, failures: Iterable[str] = (), see_why: str = "evalhouse build",
                 log: Path | str | None = None, at: dt.datetime | None = None) -> None:
    """The end of a build. `passed`: it was published, so everything ingested before it is in the published
    file. Otherwise `failures` are the build's ("test.evalhouse.x: message", as BuildResult keeps them)."""
    at = at or _now()
    status = _current(published)
    if passed:
        _write(published, BuildStatus(published_at=at, last_build=BuildAttempt(at, True, see_why=see_why)))
        return
    failures = list(failures)
    failed = tuple(dict.fromkeys(node for node in (_node_of(f) for f in failures) if node))
    messages = tuple(_cut(f) for f in failures[:KEPT_MESSAGES])
    attempt = BuildAttempt(at, False, failed, messages, see_why, str(log) if log is not None else None)
    _write(published, replace(status, last_build=attempt, running=None))


def record_working_copy_gone(published: Path, *, at: dt.datetime | None = None) -> Discarded | None:
    """A writer found no working copy (publish.prepare_working_copy makes a new one from the published file): what
    the record called unpublished went with the old one. Recorded as discarded, which readers are told until a
    build passes; returned, for the writer to say too. None when nothing unpublished was lost."""
    status = _current(published)
    if status.unpublished is None:
        return None
    status = _discarding(status, at or _now())
    _write(published, status)
    return status.discarded


def forget(published: Path) -> None:
    """Remove the record (with the warehouse it describes)."""
    status_path(published).unlink(missing_ok=True)


# -- the record as JSON ---------------------------------------------------------------------------------------------

def _current(published: Path) -> BuildStatus:
    """The record as it is, looked at, for a writer to change: an unreadable one starts again from nothing known.
    A writer holds the writer lock, so a build the record says is running in another process is not: killed."""
    try:
        status = _from_json(json.loads(status_path(published).read_text(encoding="utf-8"))) or BuildStatus()
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return BuildStatus()
    return observe(status, published)


def _discarding(status: BuildStatus, at: dt.datetime | None) -> BuildStatus:
    lost = status.unpublished
    if lost is None:
        return status
    if status.discarded is not None:
        lost = _merged(status.discarded.unpublished, lost)
    return replace(status, unpublished=None, discarded=Discarded(lost, at))


def _merged(first: Unpublished, then: Unpublished) -> Unpublished:
    both = first.adding(then.files.items(), then.last_at)
    return replace(both, first_at=min(first.first_at, then.first_at), n_files=both.n_files + then.unnamed,
                   records=both.records + then.records - sum(then.files.values()),
                   quarantined=first.quarantined + then.quarantined, rebuild=first.rebuild and then.rebuild)


def _write(published: Path, status: BuildStatus) -> None:
    path = status_path(published)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    partial.write_text(json.dumps(_to_json(status), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(partial, path)


def _to_json(status: BuildStatus) -> dict[str, Any]:
    build, running, discarded = status.last_build, status.running, status.discarded
    return {
        "version": VERSION,
        "published_at": _iso(status.published_at),
        "last_build": None if build is None else {
            "at": _iso(build.at), "passed": build.passed, "failed": list(build.failed),
            "messages": list(build.messages), "see_why": build.see_why, "log": build.log,
        },
        "running": None if running is None else {
            "at": _iso(running.at), "pid": running.pid, "host": running.host, "command": running.command,
            "published_ino": running.published_ino,
        },
        "ingest": None if status.ingest is None else {
            "at": _iso(status.ingest.at), "pid": status.ingest.pid, "host": status.ingest.host,
            "command": status.ingest.command,
        },
        "unpublished": _pending_to_json(status.unpublished),
        "discarded": None if discarded is None else {
            "at": _iso(discarded.at), "unpublished": _pending_to_json(discarded.unpublished),
        },
    }


def _pending_to_json(pending: Unpublished | None) -> dict[str, Any] | None:
    return None if pending is None else {
        "first_at": _iso(pending.first_at), "last_at": _iso(pending.last_at),
        "files": [[path, n] for path, n in pending.files.items()], "n_files": pending.n_files,
        "records": pending.records, "quarantined": pending.quarantined, "rebuild": pending.rebuild,
    }


def _from_json(data: dict[str, Any]) -> BuildStatus | None:
    if data.get("version") not in READABLE_VERSIONS:
        return None  # written by another version of evalhouse: unknown
    build, running, discarded = data.get("last_build"), data.get("running"), data.get("discarded")
    ingest = data.get("ingest")
    return BuildStatus(
        published_at=_time(data.get("published_at")),
        last_build=None if build is None else BuildAttempt(
            _time(build["at"]), bool(build["passed"]), tuple(build.get("failed") or ()),
            tuple(build.get("messages") or ()), build.get("see_why") or "evalhouse build", build.get("log")),
        unpublished=_pending_from_json(data.get("unpublished")),
        running=None if running is None else BuildStart(
            _time(running["at"]), int(running["pid"]), str(running["host"]), str(running["command"]),
            None if running.get("published_ino") is None else int(running["published_ino"])),
        discarded=None if discarded is None else Discarded(
            _pending_from_json(discarded["unpublished"]), _time(discarded.get("at"))),
        ingest=None if ingest is None else IngestStart(
            _time(ingest["at"]), int(ingest["pid"]), str(ingest["host"]), str(ingest["command"])),
    )


def _pending_from_json(pending: dict[str, Any] | None) -> Unpublished | None:
    """Version 2's pending records, or version 1's (every file named in a {path: records} object)."""
    if pending is None:
        return None
    files = pending.get("files") or {}
    pairs = [(str(path), int(n)) for path, n in (files.items() if isinstance(files, dict) else files)]
    n_files = pending.get("n_files")
    records = pending.get("records")
    return Unpublished(
        _time(pending["first_at"]), _time(pending["last_at"]), dict(pairs[-KEPT_FILES:]),
        len(pairs) if n_files is None else int(n_files), sum(n for _, n in pairs) if records is None else int(records),
        int(pending.get("quarantined") or 0), bool(pending.get("rebuild")))


def _iso(moment: dt.datetime | None) -> str | None:
    return None if moment is None else moment.astimezone(dt.timezone.utc).isoformat(timespec="seconds")


def _time(text: str | None) -> dt.datetime | None:
    if text is None:
        return None
    moment = dt.datetime.fromisoformat(text)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=dt.timezone.utc)


def _now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


# -- what the record cannot say by itself -------------------------------------------------------------------------

def _under_way(running: BuildStart | IngestStart, writer: bool | None) -> bool | None:
    """Whether the build's process still runs it: alive, and (where that can be told) the writer lock held, so a
    pid the system has given to another process since does not pass for the build."""
    if running.host != socket.gethostname():
        return None
    if not _alive(running.pid):
        return False
    return writer is not False


def _ours(running: BuildStart | IngestStart | None) -> bool:
    return running is not None and running.pid == os.getpid() and running.host == socket.gethostname()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: it runs, as another user
        return True
    return True


def _inode(path: Path) -> int | None:
    try:
        return path.stat().st_ino
    except OSError:
        return None


def _mtime(path: Path) -> dt.datetime | None:
    try:
        return dt.datetime.fromtimestamp(path.stat().st_mtime, dt.timezone.utc)
    except OSError:
        return None


# -- wording ----------------------------------------------------------------------------------------------------------

def _pending_beside_a_build(pending: Unpublished | None, now: dt.datetime | None) -> list[str]:
    """What was ingested before a build that failed or did not finish, and is not in the figures either."""
    if pending is None:
        return []
    if pending.rebuild:
        return [f"It was a rebuild from {_plural(pending.n_files, 'file')}."]
    return [f"{_loaded(pending)} ingested since {_moment(pending.first_at, now)} {_are(pending)} not in them."]


def _discarded_text(discarded: Discarded, now: dt.datetime | None, shown: int) -> str:
    lost = discarded.unpublished
    found = f" (noticed at {_moment(discarded.at, now)})" if discarded.at is not None else ""
    if lost.rebuild:
        return (f"The working copy was deleted{found} before a build published the rebuild from "
                f"{_plural(lost.n_files, 'file')} loaded into it at {_moment(lost.last_at, now)}: run "
                f"`evalhouse rebuild` again.")
    names = list(lost.files)[::-1][:shown]  # the last loaded first
    more = lost.n_files - len(names)
    named = ", ".join(names) + (f" and {_plural(more, 'more file')}" if more else "")
    them = "it" if lost.n_files == 1 else "them"
    return (f"The working copy was deleted{found} with {_loaded(lost)} ingested "
            f"{_moment(lost.first_at, now, lost.last_at)} that no build had published: they are not in these "
            f"figures, and `evalhouse build` cannot bring them back. Ingest {them} again to load {them}: {named}.")


def _node_of(failure: str) -> str | None:
    """The failing node's unique id, or None for a failure of the whole build ("dbt could not run: ...")."""
    head, sep, _ = failure.partition(": ")
    kind = head.split(".", 1)[0]
    return head if sep and kind in NODE_KINDS and head.count(".") >= 2 and " " not in head else None


def _node_name(unique_id: str) -> str:
    """'unique_fct_trials_trial_id' for 'test.evalhouse.unique_fct_trials_trial_id' (and without the hash dbt
    appends to a long test's id: '...record_id__batch_id.f5fb5e2d92'); a unit test keeps its model's name
    ('fct_x.test_name')."""
    parts = unique_id.split(".")
    return ".".join(parts[2:4]) if parts[0] == "unit_test" else parts[2]


def _failed_nodes(build: BuildAttempt) -> str:
    if not build.failed:
        first = build.messages[0] if build.messages else "no node named"
        return _cut(first, 200)
    kinds: dict[str, int] = {}
    for node in build.failed:
        kind = NODE_KINDS[node.split(".", 1)[0]]
        kinds[kind] = kinds.get(kind, 0) + 1
    counted = ", ".join(_plural(n, kind) for kind, n in kinds.items())
    names = ", ".join(f"`{_node_name(node)}`" for node in build.failed[:SHOWN_NODES])
    more = f" and {len(build.failed) - SHOWN_NODES} more" if len(build.failed) > SHOWN_NODES else ""
    return f"{counted}: {names}{more}"


def _loaded(pending: Unpublished) -> str:
    text = f"{_plural(pending.n_files, 'file')} ({_plural(pending.records, 'record')}"
    if pending.quarantined:
        text += f", {_plural(pending.quarantined, 'line')} quarantined"
    return text + ")"


def _are(pending: Unpublished) -> str:
    return "is" if pending.n_files == 1 else "are"


def _moment(at: dt.datetime, now: dt.datetime | None, until: dt.datetime | None = None) -> str:
    """'14:02 UTC on Mon 23 Nov (2 h ago)'; with `until` a span, 'from ... to ...', when it is a different minute."""
    text = _when(at)
    if until is not None and _when(until) != text:
        text = f"from {text} to {_when(until)}"
    elif until is not None:
        text = f"at {text}"
    if now is not None:
        text += f" ({_age(now - (until or at))})"
    return text


def _when(at: dt.datetime) -> str:
    return f"{at.astimezone(dt.timezone.utc):%a %d %b %Y %H:%M} UTC"


def _age(delta: dt.timedelta) -> str:
    minutes = int(delta.total_seconds() // 60)
    if minutes < 1:
        return "just now"
    if minutes < 60:
        return f"{minutes} min ago"
    if minutes < 48 * 60:
        return f"{minutes // 60} h ago"
    return f"{minutes // (24 * 60)} days ago"


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _cut(text: str, limit: int = MESSAGE_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"
