"""What readers of the published warehouse cannot tell from it: records ingested since its build, and a last build
that failed. Kept in `<db>.status.json` beside the published file (`warehouse/evalhouse.duckdb.status.json`).

The published file changes only when a build passes (evalhouse/publish.py), so after `evalhouse ingest` without a
build, or after a build that failed, the app and the report show the build before's figures. This record says so:

    {"version": 1,
     "published_at": "2026-11-23T09:10:04+00:00",            the last build that passed and was published
     "last_build": {"at": ..., "passed": false,             the last build attempt
                    "failed": ["test.evalhouse.unique_fct_trials_trial_id", ...],
                    "messages": ["test.evalhouse.unique_fct_trials_trial_id: Got 2 results, ...", ...],
                    "see_why": "evalhouse build", "log": "target/logs/dbt.log"},
     "unpublished": {"first_at": ..., "last_at": ..., "rebuild": false,   ingested since that publish
                     "files": {"/data/run1.jsonl": 12400}, "quarantined": 3}}

Only writers write it, under the writer lock (ingest, build, rebuild, the API), each time whole: a temporary file
renamed over it, so a reader reads the old record or the new one. Readers only read it; a missing or unreadable
record (a warehouse built before the record was kept) is "unknown", and says nothing.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

VERSION = 1
SHOWN_NODES = 3  # failing nodes named in the notice; the rest are counted
KEPT_MESSAGES = 20  # failure messages kept in the record, each cut to MESSAGE_CHARS
MESSAGE_CHARS = 500
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
class Unpublished:
    """What ingests loaded into the working copy since the last publish: not in the marts readers read."""

    first_at: dt.datetime
    last_at: dt.datetime
    files: dict[str, int] = field(default_factory=dict)  # file -> records loaded from it
    quarantined: int = 0  # lines quarantined (raw.quarantine feeds the Data quality page)
    rebuild: bool = False  # a rebuild loaded these into a fresh working copy: most were published before

    @property
    def records(self) -> int:
        return sum(self.files.values())


@dataclass(frozen=True)
class BuildStatus:
    published_at: dt.datetime | None = None  # None: not known (published before this record was kept)
    last_build: BuildAttempt | None = None
    unpublished: Unpublished | None = None

    @property
    def up_to_date(self) -> bool:
        """Nothing ingested since the last publish, and the last build passed: readers see everything."""
        return self.unpublished is None and (self.last_build is None or self.last_build.passed)


def status_path(published: Path) -> Path:
    return published.with_name(published.name + ".status.json")


# -- reading: the app and the report ------------------------------------------------------------------------------

def read_status(published: Path) -> BuildStatus | None:
    """The record beside `published`, or None when there is none or it cannot be read (unknown: say nothing).
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


def stale_notice(status: BuildStatus | None, *, now: dt.datetime | None = None) -> str | None:
    """One line that says why the figures read from the published warehouse are not the latest, or None when they
    are (or when that is unknown). `now` given, times also read as ages ("2 h ago"), as the app shows them;
    without it, times alone, as a report keeps them."""
    if status is None or status.up_to_date:
        return None
    parts: list[str] = []
    pending = status.unpublished
    build = status.last_build
    if build is not None and not build.passed:
        source = f"the build of {_when(status.published_at)}" if status.published_at else "the last build that passed"
        parts.append(f"The last build, at {_moment(build.at, now)}, failed ({_failed_nodes(build)}): these figures "
                     f"are from {source}.")
        if pending is not None and not pending.rebuild:
            parts.append(f"{_loaded(pending)} ingested since {_moment(pending.first_at, now)} {_are(pending)} not "
                         "in them.")
        elif pending is not None:
            parts.append(f"It was a rebuild from {_plural(len(pending.files), 'file')}.")
        parts.append(f"To see why: `{build.see_why}` prints each failure"
                     + (f"; dbt's log is {build.log}." if build.log else "."))
    elif pending is not None:
        if pending.rebuild:
            parts.append(f"A rebuild from {_plural(len(pending.files), 'file')}, loaded at "
                         f"{_moment(pending.last_at, now)}, is not in these figures yet: run `evalhouse build`.")
        else:
            parts.append(f"{_loaded(pending)} ingested {_moment(pending.first_at, now, pending.last_at)} "
                         f"{_are(pending)} not in these figures yet: run `evalhouse build` to publish them.")
    return " ".join(parts) or None


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
    files = dict(before.files)
    for path, records, _ in loaded:
        files[path] = files.get(path, 0) + records
    quarantined = before.quarantined + sum(q for _, _, q in loaded)
    _write(published, replace(status, unpublished=replace(before, last_at=at, files=files, quarantined=quarantined)))


def record_summary(published: Path, summary: Any, *, at: dt.datetime | None = None) -> None:
    """record_ingest from an ingest's RunSummary (ingest/pipeline.py)."""
    record_ingest(published, ((str(f.path), f.accepted, f.quarantined) for f in summary.files), at=at)


def start_rebuild(published: Path, *, at: dt.datetime | None = None) -> None:
    """A rebuild replaces the working copy by a fresh one: what it loads next is unpublished as a rebuild, and
    what earlier ingests loaded is gone from the working copy (loaded again by the rebuild if its files remain)."""
    at = at or _now()
    status = _current(published)
    _write(published, replace(status, unpublished=Unpublished(first_at=at, last_at=at, rebuild=True)))


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
    _write(published, replace(status, last_build=attempt))


def forget(published: Path) -> None:
    """Remove the record (with the warehouse it describes)."""
    status_path(published).unlink(missing_ok=True)


# -- the record as JSON ---------------------------------------------------------------------------------------------

def _current(published: Path) -> BuildStatus:
    """The record as it is, for a writer to change: an unreadable one starts again from nothing known."""
    try:
        return _from_json(json.loads(status_path(published).read_text(encoding="utf-8"))) or BuildStatus()
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return BuildStatus()


def _write(published: Path, status: BuildStatus) -> None:
    path = status_path(published)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    partial.write_text(json.dumps(_to_json(status), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(partial, path)


def _to_json(status: BuildStatus) -> dict[str, Any]:
    build, pending = status.last_build, status.unpublished
    return {
        "version": VERSION,
        "published_at": _iso(status.published_at),
        "last_build": None if build is None else {
            "at": _iso(build.at), "passed": build.passed, "failed": list(build.failed),
            "messages": list(build.messages), "see_why": build.see_why, "log": build.log,
        },
        "unpublished": None if pending is None else {
            "first_at": _iso(pending.first_at), "last_at": _iso(pending.last_at), "files": pending.files,
            "quarantined": pending.quarantined, "rebuild": pending.rebuild,
        },
    }


def _from_json(data: dict[str, Any]) -> BuildStatus | None:
    if data.get("version") != VERSION:
        return None  # written by another version of evalhouse: unknown
    build, pending = data.get("last_build"), data.get("unpublished")
    return BuildStatus(
        published_at=_time(data.get("published_at")),
        last_build=None if build is None else BuildAttempt(
            _time(build["at"]), bool(build["passed"]), tuple(build.get("failed") or ()),
            tuple(build.get("messages") or ()), build.get("see_why") or "evalhouse build", build.get("log")),
        unpublished=None if pending is None else Unpublished(
            _time(pending["first_at"]), _time(pending["last_at"]),
            {str(path): int(n) for path, n in (pending.get("files") or {}).items()},
            int(pending.get("quarantined") or 0), bool(pending.get("rebuild"))),
    )


def _iso(moment: dt.datetime | None) -> str | None:
    return None if moment is None else moment.astimezone(dt.timezone.utc).isoformat(timespec="seconds")


def _time(text: str | None) -> dt.datetime | None:
    if text is None:
        return None
    moment = dt.datetime.fromisoformat(text)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=dt.timezone.utc)


def _now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


# -- wording ----------------------------------------------------------------------------------------------------------

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
    text = f"{_plural(len(pending.files), 'file')} ({_plural(pending.records, 'record')}"
    if pending.quarantined:
        text += f", {_plural(pending.quarantined, 'line')} quarantined"
    return text + ")"


def _are(pending: Unpublished) -> str:
    return "is" if len(pending.files) == 1 else "are"


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
