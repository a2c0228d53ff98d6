"""`evalhouse report`: its arguments, and writing the report where they say. Argument parsing and printing only."""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from pathlib import Path

from evalhouse.report.build import (
    FORMATS, ReportRequest, build_report, latest_week, render, report_command, write_whole,
)
from evalhouse.exit_codes import EXIT_BUSY, EXIT_OK, EXIT_USAGE
from evalhouse.report.warehouse import ReportError, WarehouseHeld
from evalhouse.report.weeks import parse_iso_week
from evalhouse.weeks import utc_date, utc_now


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--week", type=_week, default=None, metavar="YYYY-Www",
                        help="the ISO week to report on, e.g. 2026-W47 (default: the latest complete week with "
                             "results; a week in progress is marked so)")
    parser.add_argument("--format", choices=FORMATS, default="html",
                        help="html (one self-contained file, the default) or md (Markdown for a wiki)")
    parser.add_argument("--out", default=None, metavar="FILE", help="write the report here (default: stdout)")


def run(args: argparse.Namespace, db_path: Path, *, out=None, err=None, now: dt.datetime | None = None) -> int:
    """Write the report the arguments ask for. When the warehouse cannot give one, a message that says why and what
    to do, and 2 (none built yet, or not a warehouse: the command cannot run as given, nothing failed) or 3 (another
    process holds the file for writing).

    now (None: the clock) decides which weeks are over, for the default week and the in-progress mark.
    """
    out, err = out or sys.stdout, err or sys.stderr
    now = now or utc_now()
    try:
        week = args.week or latest_week(db_path, utc_date(now)) or utc_date(now)
        command = report_command(week, format=args.format, out=args.out, db=getattr(args, "db", None))
        report = build_report(ReportRequest(db_path, week=week, format=args.format, command=command,
                                            generated_at=now))
        text = render(report, args.format)
    except ReportError as exc:
        print(f"evalhouse: {exc}", file=err)
        return EXIT_BUSY if isinstance(exc, WarehouseHeld) else EXIT_USAGE
    if report.stale:  # whoever sends the report must know, even without opening it
        print(f"evalhouse: note: {report.stale}", file=err)
    if args.out is None:
        out.write(text)
        return EXIT_OK
    path = Path(args.out)
    write_whole(path, text)
    print(f"wrote {path}: {report.title} ({len(text.encode('utf-8')):,} bytes)", file=out)
    return EXIT_OK


def _week(text: str) -> dt.date:
    try:
        return parse_iso_week(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None

