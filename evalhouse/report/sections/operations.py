"""What is waiting for a person, and what did ingest refuse? The review backlog, the week's quarantine and what
the ingests after the week refused: the Monday ingest that loads last week's data runs after the week ended, and
its refusals would otherwise show in no report of a complete week. A refusal stays a fact of its week; how many of
the lines a later ingest has loaded since is said beside it, so that what still needs work is what is left."""

from __future__ import annotations

import datetime as dt

from evalhouse.report import fmt
from evalhouse.report.document import Cell, Paragraph, Section, Subsection, Table
from evalhouse.report.sections import Context, Part, not_available

ANCHOR = "operations"
TITLE = "What waits for a person, and what did ingest refuse?"
BACKLOG_TITLE = "How long do records wait for review?"
QUARANTINE_TITLE = "Which lines were quarantined this week?"
LATER_TITLE = "What did ingest refuse after the week ended?"
MAX_LINES = 20

_BACKLOG_SQL = """
select *
from marts.rpt_review_backlog
order by source_format, status
"""

_QUARANTINE_SQL = """
select error_kind, source_format, n_lines, n_files, n_loaded_later
from marts.rpt_weekly_quarantine
where week_start = ?
order by n_lines desc, error_kind, source_format
"""

_LINES_SQL = """
select source_path, source_line, error_kind, error_pointer, error_message, raw_text, raw_text_truncated,
    loaded_later_at
from marts.fct_quarantined_lines
where week_start = ?
order by source_path, source_line, quarantine_id
limit ?
"""


# Lines refused and files loaded from the end of the week on, up to the latest ingest in the warehouse.
_LATER_KINDS_SQL = """
select error_kind, source_format, count(*) as n_lines, count(distinct source_path) as n_files,
    count(loaded_later_at) as n_loaded_later
from marts.fct_quarantined_lines
where quarantined_at >= ?
group by error_kind, source_format
order by n_lines desc, error_kind, source_format
"""

_LATER_LINES_SQL = """
select source_path, source_line, error_kind, error_pointer, error_message, raw_text, raw_text_truncated,
    loaded_later_at
from marts.fct_quarantined_lines
where quarantined_at >= ?
order by source_path, source_line, quarantine_id
limit ?
"""

_LATER_FILES_SQL = """
select count(distinct source_path) as n_files, max(finished_at) as last_ingested_at
from marts.fct_ingested_files
where status = 'loaded'
    and finished_at >= ?
"""

_LATEST_SQL = """
select greatest(
    (select max(finished_at) from marts.fct_ingested_files),
    (select max(quarantined_at) from marts.fct_quarantined_lines)
) as data_time
"""


def build(context: Context) -> Part:
    backlog, backlog_line = _backlog(context)
    quarantine, quarantine_line, refused = _quarantine(context)
    later, later_line, refused_later = _after_the_week(context)
    subsections = (backlog, quarantine) + ((later,) if later is not None else ())
    return Part(Section(ANCHOR, TITLE, (), subsections),
                Paragraph(" ".join(t for t in (backlog_line, quarantine_line, later_line) if t),
                          "warn" if refused or refused_later else None))


def _backlog(context: Context) -> tuple[Subsection, str]:
    if not context.reader.has_table("rpt_review_backlog"):
        text = not_available("rpt_review_backlog")
        return Subsection(BACKLOG_TITLE, (Paragraph(text, "muted"),)), "Review backlog: not available."
    rows = context.reader.rows(_BACKLOG_SQL)
    if not rows:
        text = "Nothing waits for review."
        return Subsection(BACKLOG_TITLE, (Paragraph(text, "good"),)), "Review backlog: empty."
    total = sum(r["n_waiting"] for r in rows)
    old = sum(r["n_waiting_over_28_days"] for r in rows)
    oldest = max(r["max_age_days"] for r in rows)
    as_of = max(r["as_of"] for r in rows)
    sentence = (f"As of the build on {fmt.minute(as_of)}, {fmt.plural(total, 'record')} wait for a person; "
                f"{fmt.count(old)} of them for more than 28 days, the oldest for {fmt.plural(oldest, 'day')}.")
    blocks: list = [Paragraph(sentence, "warn" if old else None)]
    body = tuple((
        Cell(r["source_format"]),
        Cell(r["status"].replace("_", " ")),
        Cell(fmt.count(r["n_waiting"]), numeric=True),
        Cell(fmt.count(r["n_waiting_up_to_7_days"]), numeric=True),
        Cell(fmt.count(r["n_waiting_8_to_28_days"]), numeric=True),
        Cell(fmt.count(r["n_waiting_over_28_days"]), "warn" if r["n_waiting_over_28_days"] else None, numeric=True),
        Cell(fmt.num(r["mean_age_days"], 1), numeric=True),
        Cell(fmt.count(r["max_age_days"]), numeric=True),
    ) for r in rows)
    blocks.append(Table(("Source", "Status", "Waiting", "7 days or less", "8 to 28 days", "Over 28 days",
                         "Mean age (days)", "Oldest (days)"), body,
                        caption=("The queue is the state at the build, not a weekly history: a report on an earlier "
                                 "week shows today's backlog too.")))
    return Subsection(BACKLOG_TITLE, tuple(blocks)), (
        f"Review backlog as of {fmt.minute(as_of)} (the build, not the week's end): {fmt.plural(total, 'record')} "
        f"waiting, {fmt.count(old)} for over 28 days.")


def _quarantine(context: Context) -> tuple[Subsection, str, int]:
    kinds = context.reader.rows(_QUARANTINE_SQL, [context.week])
    if not kinds:
        text = f"The ingester refused no line during {context.label}."
        return (Subsection(QUARANTINE_TITLE, (Paragraph(text, "good"),)),
                f"Quarantine in {context.label}: nothing refused.", 0)
    total = sum(k["n_lines"] for k in kinds)
    left = total - sum(k["n_loaded_later"] for k in kinds)
    reasons = _reasons(kinds)
    blocks: list = [Paragraph(
        f"The ingester refused {fmt.plural(total, 'line')} in {context.label} ({reasons}); {_since(kinds)}. Each is "
        "in marts.fct_quarantined_lines with its file, line, reason and original text; fix the source and ingest the "
        "file again.", "warn" if left else None)]
    blocks += _tables(kinds, context.reader.rows(_LINES_SQL, [context.week, MAX_LINES]), total)
    return (Subsection(QUARANTINE_TITLE, tuple(blocks)),
            f"Quarantine in {context.label}: {fmt.plural(total, 'line')} refused ({reasons}), {_since(kinds)}.", left)


def _after_the_week(context: Context) -> tuple[Subsection | None, str, int]:
    """What the ingests from the week's end on loaded and refused, up to the warehouse's latest ingest: the lines
    are counted in the week they were refused, so the report of the week they belong to would never show them."""
    if not context.reader.has_table("fct_ingested_files"):
        return None, "", 0
    end = dt.datetime.combine(context.week + dt.timedelta(days=7), dt.time())
    latest = context.reader.one(_LATEST_SQL)
    data_time = latest["data_time"] if latest else None
    if data_time is None or data_time < end:
        return None, "", 0
    span = f"from the end of {context.label} ({fmt.minute(end)}) to the latest ingest ({fmt.minute(data_time)})"
    files = context.reader.one(_LATER_FILES_SQL, [end]) or {"n_files": 0}
    kinds = context.reader.rows(_LATER_KINDS_SQL, [end])
    loaded = f"{fmt.plural(files['n_files'] or 0, 'file')} loaded"
    if not kinds:
        text = f"Ingests {span}: {loaded}, no line refused."
        return Subsection(LATER_TITLE, (Paragraph(text, "good"),)), f"After the week: {loaded}, nothing refused.", 0
    total = sum(k["n_lines"] for k in kinds)
    left = total - sum(k["n_loaded_later"] for k in kinds)
    reasons = _reasons(kinds)
    blocks: list = [Paragraph(
        f"Ingests {span} refused {fmt.plural(total, 'line')} ({reasons}), {_since(kinds)}; {loaded}. They may hold "
        f"records of {context.label} or of earlier weeks that no report counts until they are fixed and ingested "
        "again (marts.fct_quarantined_lines, quarantined_at after the week).", "warn" if left else None)]
    blocks += _tables(kinds, context.reader.rows(_LATER_LINES_SQL, [end, MAX_LINES]), total)
    return (Subsection(LATER_TITLE, tuple(blocks)),
            f"After the week, to {fmt.minute(data_time)}: {fmt.plural(total, 'line')} refused ({reasons}), "
            f"{_since(kinds)}.", left)


def _reasons(kinds: list) -> str:
    by_kind: dict[str, int] = {}
    for k in kinds:
        by_kind[k["error_kind"]] = by_kind.get(k["error_kind"], 0) + k["n_lines"]
    return fmt.join_words([f"{n:,} {kind}" for kind, n in sorted(by_kind.items(), key=lambda kv: (-kv[1], kv[0]))])


def _since(kinds: list) -> str:
    """How many of the refused lines a later ingest of the same file has loaded, as of the build."""
    loaded = sum(k["n_loaded_later"] for k in kinds)
    total = sum(k["n_lines"] for k in kinds)
    return f"{fmt.share(loaded, total)} since loaded by a later ingest, {fmt.count(total - loaded)} still refused"


def _tables(kinds: list, lines: list, total: int) -> list[Table]:
    return [
        Table(("Reason", "Format", "Lines", "Files", "Since loaded"), tuple((
            Cell(k["error_kind"]), Cell(k["source_format"]), Cell(fmt.count(k["n_lines"]), numeric=True),
            Cell(fmt.count(k["n_files"]), numeric=True), Cell(fmt.count(k["n_loaded_later"]), numeric=True),
        ) for k in kinds)),
        Table(("File", "Line", "Reason", "Pointer", "Message", "Original text (start)", "Loaded later"), tuple((
            Cell(line["source_path"] or fmt.MISSING),
            Cell(fmt.count(line["source_line"]), numeric=True),
            Cell(line["error_kind"]),
            Cell(line["error_pointer"] or fmt.MISSING),
            Cell(line["error_message"] or fmt.MISSING),
            Cell(fmt.excerpt(line["raw_text"], 160), record=True),
            Cell(fmt.minute(line["loaded_later_at"])),
        ) for line in lines), caption=(f"The first {MAX_LINES} by file and line." if total > MAX_LINES else "")),
    ]
