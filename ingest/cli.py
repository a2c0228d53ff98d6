"""`evalhouse ingest`: its arguments and what it prints. The work is done by ingest.pipeline."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from evalhouse.exit_codes import EXIT_FAILED, EXIT_OK
from ingest.formats import FORMATS
from ingest.path_text import path_text
from ingest.sources import DEFAULT_MAX_RECORD_BYTES

MAX_LEFT_OUT_SHOWN = 20  # files left out named in the table; the JSON lists every one

if TYPE_CHECKING:  # the pipeline is imported where it runs: every `evalhouse` command builds this parser
    from ingest.pipeline import IngestOptions, RunSummary


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files, folders (searched recursively) or globs")
    parser.add_argument("--format", dest="forced_format", choices=sorted(FORMATS),
                        help="treat every record as this format instead of detecting it")
    parser.add_argument("--strict", action="store_true",
                        help="exact schema verdicts: no compatibility repairs")
    parser.add_argument("--fail-on-reject", action="store_true",
                        help="exit 1 when any line of the inputs is quarantined (by this run or an earlier one), or "
                             "a data file of a folder or glob is left out unread (a .json.gz, a .csv, ...)")
    parser.add_argument("--max-record-bytes", type=_record_bytes, default=DEFAULT_MAX_RECORD_BYTES, metavar="BYTES",
                        help="records larger than this are quarantined unread, a whole number of bytes, 1 or more "
                             f"(default {DEFAULT_MAX_RECORD_BYTES})")
    parser.add_argument("--output", choices=("table", "json"), default="table",
                        help="a table for people (default) or JSON for machines")


def _record_bytes(text: str) -> int:
    """--max-record-bytes: a whole number of bytes, 1 or more (0 would refuse every record, and a negative limit made
    up a line after the last); argparse says it under the usage line and exits 2."""
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size it can use: write a whole number of bytes, 1 or "
                                         f"more (the default is {DEFAULT_MAX_RECORD_BYTES}, 16 MB)")
    return value


def options_from(args: argparse.Namespace) -> IngestOptions:
    from ingest.pipeline import IngestOptions

    return IngestOptions(strict=args.strict, forced_format=args.forced_format,
                         max_record_bytes=args.max_record_bytes)


def exit_code(summary: RunSummary, fail_on_reject: bool) -> int:
    """With --fail-on-reject, 1 when a line of the inputs is refused: quarantined by this run, or by an earlier one
    and still refused (a retried CI step must not pass because its file was skipped as already loaded); or when a
    file of a folder or glob that looks like data was left out unread (its records are not in the warehouse)."""
    refused = summary.quarantined or summary.still_refused or summary.left_out_data
    return EXIT_FAILED if fail_on_reject and refused else EXIT_OK


class Progress:
    """A one-line progress bar on stderr, only for a terminal and only for large files."""

    MIN_BYTES = 20 * 1024 * 1024

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty()
        self.last = 0.0

    def __call__(self, path: Path, done: int, total: int) -> None:
        if not self.enabled or total < self.MIN_BYTES:
            return
        now = time.monotonic()
        if done < total and now - self.last < 0.25:
            return
        self.last = now
        fraction = min(done / total, 1.0) if total else 1.0
        bar = "#" * int(fraction * 30)
        end = "\n" if done >= total else ""
        self.stream.write(f"\r  {path.name[:40]:<40} [{bar:<30}] {fraction:6.1%} of {total / 2**20:,.0f} MB{end}")
        self.stream.flush()


def print_summary(summary: RunSummary, output: str, stream: TextIO | None = None) -> None:
    from ingest.pipeline import resolved_note

    stream = stream or sys.stdout
    if output == "json":
        json.dump(_as_json(summary), stream, indent=2)
        stream.write("\n")
        return
    by_format = summary.by_format()
    header = f"{'format':<16}{'files':>7}{'accepted':>11}{'repaired':>10}{'quarantined':>13}{'skipped':>9}"
    left_out = f", {len(summary.left_out)} left out (not read)" if summary.left_out else ""
    stream.write(f"evalhouse ingest: {len(summary.files)} file(s){left_out}, batch {summary.batch_id}\n{header}\n")
    for name, c in by_format.items():
        stream.write(f"{name:<16}{c.files:>7,}{c.accepted:>11,}{c.repaired:>10,}{c.quarantined:>13,}{c.skipped:>9,}\n")
    stream.write(f"{'total':<16}{'':>7}{summary.accepted:>11,}{sum(c.repaired for c in by_format.values()):>10,}"
                 f"{summary.quarantined:>13,}{sum(c.skipped for c in by_format.values()):>9,}\n")
    already = [f for f in summary.files if f.status == "already_loaded"]
    if already:
        stream.write(f"{len(already)} file(s) already loaded with the same content: nothing added.\n")
    for f in summary.files:
        if (f.status in ("failed", "unreadable") or (f.status == "loaded" and f.message)
                or (f.status == "already_loaded" and (f.n_loaded_before or f.n_resolved))):
            stream.write(f"{f.status}: {f.source_path}: {f.message}\n")
    if sum(1 for f in summary.files if f.n_resolved) > 1:  # one file's message says it already
        stream.write(f"In all, {resolved_note(summary.resolved, summary.completed)}.\n")
    if summary.still_refused:
        stream.write(f"{summary.still_refused:,} line(s) of these inputs are still refused: an earlier run quarantined "
                     "them and this one did not add them again (--fail-on-reject fails on them too).\n")
    if summary.loaded_before:
        n, cut = summary.loaded_before, summary.cut_off_again
        what = "cut off" if cut == n else f"{cut:,} of them cut off" if cut else "refused"
        stream.write(f"{n:,} line(s) of these inputs ({what}) do not load as the files hold them now, but their "
                     "records are in the warehouse: a run after the one that refused them loaded them from the same "
                     "line of the same path (or the same bytes) when the file held them complete or corrected. "
                     "Nothing is missing, they are not still refused (--fail-on-reject does not fail on them). Write "
                     "the file in full again if it is to hold them.\n")
    _print_left_out(summary, stream)
    if summary.quarantined or summary.still_refused:
        stream.write("Quarantined lines are in raw.quarantine of the working copy with their file, line, JSON "
                     "pointer and reason; after `evalhouse build` publishes them, the Data quality page shows them.\n")


def _print_left_out(summary: RunSummary, stream: TextIO) -> None:
    """Each file of a folder or glob not read, with why and what to do; many of them are counted past the first."""
    items = summary.left_out
    for item in items[:MAX_LEFT_OUT_SHOWN]:
        stream.write(f"left out: {path_text(item.path)}: {item.reason}\n")
    if len(items) > MAX_LEFT_OUT_SHOWN:
        stream.write(f"left out: {len(items) - MAX_LEFT_OUT_SHOWN:,} more file(s) (--output json lists them all)\n")
    data = summary.left_out_data
    if data:
        stream.write(f"{len(data):,} file(s) left out look like data: their records are not in the warehouse "
                     "(--fail-on-reject fails on them). Convert or rename them as said, and ingest them again.\n")


def _as_json(summary: RunSummary) -> dict:
    return {
        "batch_id": summary.batch_id,
        "accepted": summary.accepted,
        "quarantined": summary.quarantined,
        "still_refused": summary.still_refused,
        "resolved": summary.resolved,
        "completed": summary.completed,
        "loaded_before": summary.loaded_before,
        "cut_off_again": summary.cut_off_again,
        "by_format": {name: vars(c) for name, c in summary.by_format().items()},
        "files": [
            {"path": f.source_path, "status": f.status, "message": f.message, "records": f.n_lines,
             "accepted": f.accepted, "quarantined": f.quarantined, "already_loaded": f.n_already_loaded,
             "already_quarantined": f.n_unchanged + f.n_refused_again, "still_refused": f.n_still_refused,
             "resolved": f.n_resolved, "completed": f.n_completed,
             "loaded_before": f.n_loaded_before, "cut_off_again": f.n_cut_off_again,
             "changed_in_place": f.n_changed,
             "repairs": {f"{fmt}:{name}": n for (fmt, name), n in sorted(f.repairs.items())}}
            for f in summary.files
        ],
        "left_out": [{"path": path_text(item.path), "reason": item.reason, "looks_like_data": item.looks_like_data}
                     for item in summary.left_out],
    }
