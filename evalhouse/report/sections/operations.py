"""What is waiting for a person, and what did ingest refuse? The review backlog and this week's quarantine."""

from __future__ import annotations

from evalhouse.report import fmt
from evalhouse.report.document import Cell, Paragraph, Section, Subsection, Table
from evalhouse.report.sections import Context, Part, not_available

ANCHOR = "operations"
TITLE = "What waits for a person, and what did ingest refuse?"
BACKLOG_TITLE = "How long do records wait for review?"
QUARANTINE_TITLE = "Which lines were quarantined this week?"
MAX_LINES = 20

_BACKLOG_SQL = """
select *
from marts.rpt_review_backlog
order by source_format, status
"""

_QUARANTINE_SQL = """
select error_kind, format, n_lines, n_files
from marts.rpt_weekly_quarantine
where week_start = ?
order by n_lines desc, error_kind, format
"""

_LINES_SQL = """
select source_path, source_line, error_kind, error_pointer, error_message, raw_text, raw_text_truncated
from marts.fct_quarantined_lines
where week_start = ?
order by source_path, source_line, quarantine_id
limit ?
"""


def build(context: Context) -> Part:
    backlog, backlog_line = _backlog(context)
    quarantine, quarantine_line = _quarantine(context)
    return Part(Section(ANCHOR, TITLE, (), (backlog, quarantine)),
                Paragraph(f"{backlog_line} {quarantine_line}"))


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
        f"Review backlog: {fmt.plural(total, 'record')} waiting, {fmt.count(old)} for over 28 days.")


def _quarantine(context: Context) -> tuple[Subsection, str]:
    kinds = context.reader.rows(_QUARANTINE_SQL, [context.week])
    if not kinds:
        text = f"The ingester refused no line in {context.label}."
        return Subsection(QUARANTINE_TITLE, (Paragraph(text, "good"),)), "Quarantine: nothing refused."
    total = sum(k["n_lines"] for k in kinds)
    by_kind: dict[str, int] = {}
    for k in kinds:
        by_kind[k["error_kind"]] = by_kind.get(k["error_kind"], 0) + k["n_lines"]
    reasons = fmt.join_words([f"{n:,} {kind}" for kind, n in sorted(by_kind.items(), key=lambda kv: (-kv[1], kv[0]))])
    blocks: list = [Paragraph(
        f"The ingester refused {fmt.plural(total, 'line')} in {context.label} ({reasons}). Each is in "
        "marts.fct_quarantined_lines with its file, line, reason and original text; fix the source and ingest the "
        "file again.", "warn")]
    blocks.append(Table(("Reason", "Format", "Lines", "Files"), tuple((
        Cell(k["error_kind"]), Cell(k["format"]), Cell(fmt.count(k["n_lines"]), numeric=True),
        Cell(fmt.count(k["n_files"]), numeric=True)) for k in kinds)))
    lines = context.reader.rows(_LINES_SQL, [context.week, MAX_LINES])
    blocks.append(Table(("File", "Line", "Reason", "Pointer", "Message", "Original text (start)"), tuple((
        Cell(line["source_path"] or fmt.MISSING),
        Cell(fmt.count(line["source_line"]), numeric=True),
        Cell(line["error_kind"]),
        Cell(line["error_pointer"] or fmt.MISSING),
        Cell(line["error_message"] or fmt.MISSING),
        Cell(fmt.excerpt(line["raw_text"], 160), record=True),
    ) for line in lines), caption=(f"The first {MAX_LINES} by file and line." if total > MAX_LINES else "")))
    return Subsection(QUARANTINE_TITLE, tuple(blocks)), f"Quarantine: {fmt.plural(total, 'line')} refused ({reasons})."
