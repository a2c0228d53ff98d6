"""Do our raters agree? Agreement per dimension against its target, and the tasks whose new items were flagged."""

from __future__ import annotations

from evalhouse.report import fmt
from evalhouse.report.document import Cell, Paragraph, Record, Section, Subsection, Table
from evalhouse.report.sections import Context, Part
from evalhouse.report.warehouse import Row

ANCHOR = "agreement"
TITLE = "Do our raters agree?"
FLAGGED_TITLE = "Which tasks need their rubric clarified?"
MAX_FLAGGED_TASKS = 25
MAX_EXAMPLES = 3

_AGREEMENT_SQL = """
select *
from marts.rpt_weekly_agreement
where week_start = ?
order by
    case target_status when 'below_target' then 0 when 'meets_target' then 1 else 2 end,
    alpha - target,
    dimension
"""

_FLAGGED_SQL = """
select *
from marts.rpt_weekly_flagged_tasks
where week_start = ?
order by n_flags desc, min_item_agreement, task_id
"""


def build(context: Context) -> Part:
    rows = context.reader.rows(_AGREEMENT_SQL, [context.week])
    flagged = context.reader.rows(_FLAGGED_SQL, [context.week])
    if not rows:
        text = f"No items were rated by two or more raters in {context.label}: no agreement to measure."
        return Part(Section(ANCHOR, TITLE, (Paragraph(text),)), Paragraph(text, "muted"))

    defined = [r for r in rows if r["target_status"] != "undefined"]
    below = [r for r in defined if r["target_status"] == "below_target"]
    undefined = [r for r in rows if r["target_status"] == "undefined"]
    blocks: list = [Paragraph(_summary(defined, below), "warn" if below else "good")]
    if defined:
        blocks.append(_table(defined, context))
    if undefined:
        blocks.append(Paragraph(
            f"Alpha is undefined for {fmt.plural(len(undefined), 'dimension')} this week (every rating in one "
            "category, or no item rated twice): " + ", ".join(r["dimension"] for r in undefined) + ".", "muted"))

    n_items = sum(r["n_items_flagged"] for r in flagged)
    headline = Paragraph(
        f"Agreement: {_summary(defined, below)} {fmt.plural(n_items, 'newly rated item')} flagged for rubric "
        f"clarification across {fmt.plural(len(flagged), 'task')}.", "warn" if below else None)
    section = Section(ANCHOR, TITLE, tuple(blocks), (_flagged_subsection(flagged, context),))
    return Part(section, headline)


def _summary(defined: list[Row], below: list[Row]) -> str:
    if not defined:
        return "no dimension has a defined alpha this week."
    if not below:
        return f"all {fmt.plural(len(defined), 'dimension')} with a defined alpha meet their target."
    names = fmt.join_words([r["dimension"] for r in below[:3]]) + (" ..." if len(below) > 3 else "")
    return (f"{fmt.share(len(below), len(defined))} dimensions with a defined alpha are below their target "
            f"(lowest against target: {names}).")


def _table(rows: list[Row], context: Context) -> Table:
    body = []
    for row in rows:
        tone = "bad" if row["target_status"] == "below_target" else "good"
        body.append((
            Cell(row["dimension"]),
            Cell(row["dimension_group"] or fmt.MISSING),
            Cell(fmt.num(row["alpha"]), tone, numeric=True),
            Cell(fmt.count(row["n_units"]), numeric=True),
            Cell(fmt.num(row["target"], 1), numeric=True),
            Cell("below target" if row["target_status"] == "below_target" else "meets target", tone),
            Cell(fmt.num(row["human_alpha"]), numeric=True),
            Cell(fmt.num(row["judge_alpha"]), numeric=True),
            Cell(fmt.num(row["percent_agreement"]), numeric=True),
            Cell(fmt.num(row["top_value_share"]), numeric=True),
            Cell(fmt.num(row["previous_alpha"]), numeric=True),
            Cell(f"{fmt.share(row['n_items_flagged'], row['n_items_compared'])}", numeric=True),
        ))
    return Table(
        ("Dimension", "Group", "Alpha", "n items", "Target", "Status", "Alpha, people", "Alpha, judges",
         "Raw agreement", "Top value share", f"Alpha {context.previous_label}", "Items flagged"),
        tuple(body),
        caption=("Krippendorff's alpha of every rater but reviews of a judge's verdict (ordinal on 1-5 scales, "
                 "nominal on labels), over items first rated this week and rated at least twice (n items), each "
                 "rater's latest rating of them counted, even one given in a later week. Targets: 0.6 on quality, 0.8 on safety. Raw "
                 "agreement beside the top value's share: high raw agreement with a low alpha is what skewed data "
                 "looks like."),
    )


def _flagged_subsection(flagged: list[Row], context: Context) -> Subsection:
    if not flagged:
        return Subsection(FLAGGED_TITLE, (Paragraph(
            f"No item first rated in {context.label} fell below the flagging threshold (item agreement 0.4).",
            "good"),))
    shown = flagged[:MAX_FLAGGED_TASKS]
    blocks: list = [Paragraph(
        f"{fmt.plural(sum(r['n_items_flagged'] for r in flagged), 'item')} first rated in {context.label} have an "
        f"item agreement below 0.4 on at least one dimension, in {fmt.plural(len(flagged), 'task')}. "
        "Tasks with the most flags first.")]
    body = []
    for row in shown:
        body.append((
            Cell(row["task_id"]),
            Cell(fmt.excerpt(row["prompt"], 160) if row["prompt"] else fmt.MISSING, record=row["prompt"] is not None),
            Cell(fmt.share(row["n_items_flagged"], row["n_items_compared"]), numeric=True),
            Cell(row["dimensions_flagged"]),
            Cell(fmt.num(row["min_item_agreement"]), "warn", numeric=True),
        ))
    blocks.append(Table(("Task", "Prompt", "Items flagged", "Dimensions flagged", "Lowest item agreement"),
                        tuple(body),
                        caption="Item agreement: 1 - the item's disagreement / the dimension's expected disagreement "
                                "(1 perfect, 0 chance level); alpha is its average."))
    if len(flagged) > len(shown):
        blocks.append(Paragraph(f"And {fmt.plural(len(flagged) - len(shown), 'more task')} with fewer flags.",
                                "muted"))
    for row in shown[:MAX_EXAMPLES]:
        if row["example_response"] is None:
            continue
        low, high = row["example_min_score"], row["example_max_score"]
        ratings = (f"scores from {fmt.num(low, 0)} to {fmt.num(high, 0)}" if low is not None and low != high
                   else "labels that disagree")
        blocks.append(Record(
            f"{row['task_id']}: {row['example_model_id']}'s response, rated on {row['example_dimension']} with "
            f"{ratings} (item agreement {fmt.num(row['min_item_agreement'])})",
            fmt.excerpt(row["example_response"], 400)))
    return Subsection(FLAGGED_TITLE, tuple(blocks))
