"""Assemble the report for one week from the sections, render it, write it.

Deterministic: the same warehouse and week give the same text, byte for byte, except the one "Generated" line
(and, for a week still in progress when the report is generated, the lines that say as of when). A line at the top
says when the figures are not the latest: records ingested and not built yet, or a last build that failed (the
build status beside the warehouse, evalhouse/build_status.py).

The default week is the latest complete week with results: a week that began this morning is not "this week"
against the full weeks before it. Only when no complete week has results does the report take the week in
progress, and it says so, as does a report asked for that week by --week.
"""

from __future__ import annotations

import datetime as dt
import os
import shlex
from dataclasses import dataclass, replace
from pathlib import Path

from evalhouse.build_settings import BuildSettings
from evalhouse.build_status import read_status, stale_notice
from evalhouse.report import fmt
from evalhouse.report.document import Bullets, Fact, Paragraph, Report, Section
from evalhouse.report.render_html import render_html
from evalhouse.report.render_markdown import render_markdown
from evalhouse.report.sections import (
    Context, Part, agreement, judge_drift, model_scores, operations, promotions, safety,
)
from evalhouse.report.warehouse import Reader, ReportError, Row, open_reader
from evalhouse.report.weeks import iso_week_label, week_span
from evalhouse.weeks import default_week, in_utc, is_complete, is_in_progress, utc_date, utc_now

FORMATS = ("html", "md")
GLANCE_ANCHOR, GLANCE_TITLE = "at-a-glance", "This week at a glance"
METHOD_ANCHOR, METHOD_TITLE = "how-to-read", "How to read this report"
NO_DATA_ANCHOR = "no-data"
# The sections in reading order after "at a glance" (each module: build(context) -> Part).
SECTION_MODULES = (model_scores, agreement, judge_drift, safety, promotions, operations)


@dataclass(frozen=True)
class ReportRequest:
    db_path: Path
    week: dt.date | None = None  # any day of the ISO week; None: the latest complete week with results
    format: str = "html"
    command: str = ""  # the command line shown in the header (see report_command)
    generated_at: dt.datetime | None = None  # None: now (UTC); also decides whether the week is over


def build_report(request: ReportRequest) -> Report:
    with open_reader(request.db_path) as reader:
        report = _assemble(reader, request)
    # Times alone, no ages: the report is read later than it is written.
    return replace(report, stale=stale_notice(read_status(request.db_path)) or "")


def render(report: Report, format: str = "html") -> str:
    if format == "html":
        return render_html(report)
    if format == "md":
        return render_markdown(report)
    raise ReportError(f"unknown report format '{format}': use one of {', '.join(FORMATS)}")


def write_report(request: ReportRequest, out: Path) -> Report:
    """Build, render and write the report to `out` (its folder is created); returns what was written."""
    report = build_report(request)
    write_whole(out, render(report, request.format))
    return report


def write_whole(out: Path, text: str) -> None:
    """Write `text` to `out` (its folder is created) whole or not at all: into a file beside it, renamed over it
    once complete, so a write that fails half way (a full disk) leaves `out` as it was, and no partial file. A
    symbolic link stays one (the file it names is replaced); a device or a pipe (/dev/stdout) is written to."""
    target = out.resolve() if out.is_symlink() else out
    if target.exists() and not target.is_file():
        with target.open("w", encoding="utf-8") as handle:
            handle.write(text)
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    try:
        with partial.open("w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(partial, target)
    except BaseException as exc:
        partial.unlink(missing_ok=True)
        if isinstance(exc, OSError) and exc.filename is None and exc.errno is not None:
            raise OSError(exc.errno, exc.strerror, str(out)) from exc  # a failed write names no file: name it
        raise


def latest_week(db_path: Path, today: dt.date | None = None) -> dt.date | None:
    """The Monday of the latest complete week (its Sunday before `today`, UTC) with trials or ratings, else of the
    latest week with them (in progress); None for a warehouse without results."""
    with open_reader(db_path) as reader:
        return default_week(_weeks_with_results(reader), today or utc_date(utc_now()))


def report_command(week: dt.date, *, format: str = "html", out: str | None = None, db: str | None = None) -> str:
    """The command line that writes this report again: `evalhouse report --week 2026-W47 --out report.html`."""
    words = ["evalhouse"]
    if db:
        words += ["--db", db]
    words += ["report", "--week", iso_week_label(week)]
    if format != "html":
        words += ["--format", format]
    if out:
        words += ["--out", out]
    return shlex.join(words)


def _weeks_with_results(reader: Reader) -> list[dt.date]:
    return [row["week_start"] for row in reader.rows(
        "select week_start from marts.rpt_weekly_summary where has_results order by week_start")]


def _assemble(reader: Reader, request: ReportRequest) -> Report:
    generated_at = request.generated_at or utc_now()
    today = utc_date(generated_at)
    weeks = _weeks_with_results(reader)
    week = request.week or default_week(weeks, today) or today
    week = week - dt.timedelta(days=week.weekday())
    label = iso_week_label(week)
    in_progress = is_in_progress(week, today)
    warehouse = reader.one("select * from marts.rpt_warehouse_summary")
    summary = reader.one("select * from marts.rpt_weekly_summary where week_start = ?", [week])
    command = request.command or report_command(week, format=request.format)
    facts = _facts(warehouse, summary, command, in_progress)
    title = f"Weekly quality report: {label}" + (" (in progress)" if in_progress else "")
    subtitle = f"{week_span(week)} (UTC)"
    if in_progress:
        subtitle += f": in progress, as of {fmt.minute(in_utc(generated_at))}"
    generated = f"Generated {in_utc(generated_at):%Y-%m-%d %H:%M:%S} UTC"
    progress: tuple[Paragraph, ...] = ()
    if in_progress:
        progress = (_in_progress_note(week, generated_at, [w for w in weeks if is_complete(w, today)]),)
    if summary is None:
        not_begun = week > today
        return Report(title, subtitle, facts, generated, (_no_data(label, warehouse, progress, week, not_begun),))

    context = Context(reader, week)
    parts: list[Part] = [module.build(context) for module in SECTION_MODULES]
    glance = Section(GLANCE_ANCHOR, GLANCE_TITLE, (*progress, Bullets(tuple(p.headline for p in parts))))
    return Report(title, subtitle, facts, generated, (glance, *(p.section for p in parts), _method(context.settings)))


def _in_progress_note(week: dt.date, now: dt.datetime, complete_weeks: list[dt.date]) -> Paragraph:
    """The warning a week in progress owes its reader: its counts are of part of a week, the week before's of all."""
    sunday = week + dt.timedelta(days=6)
    text = (f"{iso_week_label(week)} is not over: this report covers it up to {fmt.minute(in_utc(now))}, not to the "
            f"end of Sunday {sunday.day} {sunday:%B}. Its counts are of part of a week, set beside whole weeks, so a "
            "drop or a missing result may only mean that the data has not arrived yet.")
    if complete_weeks:
        last = iso_week_label(max(complete_weeks))
        text += f" The latest complete week with results is {last}: evalhouse report --week {last}"
    return Paragraph(text, "warn")


def _facts(warehouse: Row | None, summary: Row | None, command: str, in_progress: bool) -> tuple[Fact, ...]:
    facts: list[Fact] = []
    if warehouse is None or warehouse["first_week_start"] is None:
        facts.append(Fact("Warehouse", "no trials or ratings yet"))
    else:
        facts.append(Fact("Data span", (
            f"{iso_week_label(warehouse['first_week_start'])} to {iso_week_label(warehouse['last_week_start'])}: "
            f"trials {fmt.day(warehouse['first_evaluated_at'])} to {fmt.day(warehouse['last_evaluated_at'])}, "
            f"ratings {fmt.day(warehouse['first_rated_at'])} to {fmt.day(warehouse['last_rated_at'])}")))
        facts.append(Fact("Warehouse", _counts(warehouse) + (
            f"; {fmt.plural(warehouse['n_files_loaded'], 'file')} loaded, last on "
            f"{fmt.minute(warehouse['last_ingested_at'])}; "
            f"{fmt.plural(warehouse['n_quarantined_lines'], 'line')} quarantined in all")))
    if summary is not None:
        facts.append(Fact("This week so far" if in_progress else "This week", _counts(summary) + (
            f"; {fmt.plural(summary['n_files_loaded'], 'file')} loaded, "
            f"{fmt.plural(summary['n_quarantined_lines'], 'line')} quarantined by ingests during the week")))
    facts.append(Fact("Command", command, code=True))
    return tuple(facts)


def _counts(row: Row) -> str:
    # A trial is an attempt scored on one metric: where some answers were scored on several, the trials alone would
    # overstate how many answers were evaluated.
    attempts = ("" if row["n_attempts"] == row["n_trials"] else
                f" ({fmt.plural(row['n_attempts'], 'attempt')}, some scored on several metrics)")
    return (f"{fmt.plural(row['n_trials'], 'trial')}{attempts} of {fmt.plural(row['n_models_evaluated'], 'model')} on "
            f"{fmt.plural(row['n_evals'], 'eval')}; {fmt.plural(row['n_ratings'], 'rating')} of "
            f"{fmt.plural(row['n_rated_items'], 'item')} by {fmt.plural(row['n_raters'], 'rater')}")


def _no_data(label: str, warehouse: Row | None, progress: tuple[Paragraph, ...] = (),
             week: dt.date | None = None, not_begun: bool = False) -> Section:
    if not_begun and week is not None:
        text = (f"{label} has not begun: it starts on Monday {week.day} {week:%B} {week.year} (UTC), so there is no "
                "data for it yet.")
    else:
        text = f"There is no data for {label}: no trials, ratings, loaded files or quarantined lines that week."
    if warehouse is not None and warehouse["first_week_start"] is not None:
        last = iso_week_label(warehouse["last_week_start"])
        hint = (f"The warehouse holds results from {iso_week_label(warehouse['first_week_start'])} to {last}; "
                f"for its latest week, run: evalhouse report --week {last}")
    else:
        hint = "The warehouse holds no results yet: ingest some (evalhouse ingest PATH) and build."
    return Section(NO_DATA_ANCHOR, f"No data for {label}", (*progress, Paragraph(text, "warn"), Paragraph(hint)))


def _method(settings: BuildSettings) -> Section:
    notes = (
        "Weeks are ISO weeks in UTC; \"the week before\" is the calendar week before, whether or not it has data. "
        "Without --week the report is of the latest complete week with results; a week in progress says so.",
        "Every interval in brackets is 95%; a ± or an SE is one standard error. A number's n sits beside it; a "
        "dash means the statistic is undefined (too few samples, or no variation), never zero.",
        "Pass rates (the share of trials the source marked as passed: accuracy only where the metric is) "
        "average each sample's trials within the week first: a question answered four times counts "
        "once. Week-on-week changes are paired on the samples both weeks share, each sample's "
        "difference its own, tested as the model table's note says.",
        "pass@k is the chance that at least one of k attempts succeeds, at the largest k every task had trials for.",
        "Judge drift compares a judge's bias against people who rated the same responses independently (reviews "
        f"of the judge's own verdict left out) with its baseline: its first {settings.drift_baseline_weeks} "
        f"weeks with such ratings on a dimension, and more until they hold {settings.drift_min_items} items; "
        "an alert needs a move beyond Student's t at the normal tail of "
        f"{settings.drift_alert_z:g} standard errors ({settings.drift_cutoff_text()}).",
        "Everything here comes from the warehouse's marts (marts.rpt_* and the facts they build on): query them "
        "for the rows behind any number.",
    )
    return Section(METHOD_ANCHOR, METHOD_TITLE, (Bullets(tuple(Paragraph(n, "muted") for n in notes)),))


def write_weekly_report(db_path: Path, reports_dir: Path, *, db: str | None = None,
                        relative_to: Path | None = None, now: dt.datetime | None = None) -> Path | None:
    """The report of the latest complete week with results (see latest_week) as reports_dir/weekly_<YYYY-Www>.html;
    None without results.

    What `evalhouse demo` calls after its build. `db` goes into the header's command when the warehouse is not the
    default one; `relative_to` shortens the --out path shown there; `now` (None: the clock) decides which weeks are
    over.
    """
    now = now or utc_now()
    week = latest_week(db_path, utc_date(now))
    if week is None:
        return None
    out = reports_dir / f"weekly_{iso_week_label(week)}.html"
    shown = out.relative_to(relative_to) if relative_to and out.is_relative_to(relative_to) else out
    write_report(ReportRequest(db_path, week=week, command=report_command(week, out=str(shown), db=db),
                               generated_at=now), out)
    return out
