"""Do our raters agree? People's agreement per dimension against its target (all raters' and the judges' beside it),
and the tasks whose new items people disagree on, flagged for rubric clarification."""

from __future__ import annotations

from evalhouse.report import fmt
from evalhouse.report.document import Cell, Paragraph, Record, Section, Subsection, Table
from evalhouse.report.sections import Context, Part, judge_drift
from evalhouse.report.warehouse import Row

ANCHOR = "agreement"
TITLE = "Do our raters agree?"
FLAGGED_TITLE = "Which tasks need their rubric clarified?"
MAX_FLAGGED_TASKS = 25
MAX_EXAMPLES = 3
# Alphas to three decimals: at two, 0.5976 read "0.60" beside its target 0.6 and "below target".
ALPHA_DIGITS = 3

_AGREEMENT_SQL = """
select *
from marts.rpt_weekly_agreement
where week_start = ?
order by
    case target_status when 'below_target' then 0 when 'meets_target' then 1 else 2 end,
    human_alpha - target,
    dimension
"""

_FLAGGED_SQL = """
select *
from marts.rpt_weekly_flagged_tasks
where week_start = ?
order by n_flags desc, min_item_agreement, task_id
"""

# The thresholds the build flagged items below (the seed agreement_targets.flag_below), per dimension group.
_FLAG_BELOW_SQL = """
select dimension_group, min(flag_below) as flag_below
from marts.fct_item_disagreement
group by dimension_group
"""

# The verdict is the people's: whether people read a rubric the same way. All raters pool the LLM judges in, and a
# judge that disagrees with people (judge drift, its own section) would read as a rubric people cannot agree on.
CAPTION = (
    "The verdict is on people's Krippendorff's alpha (human, SME and end-user raters; ordinal on 1-5 scales, nominal "
    "on labels), over items first rated this week and rated by two or more people (n items), each person's latest "
    "rating of them counted, even one given in a later week. Targets: {targets}. Beside it, for "
    "comparison only: all raters (people and LLM judges pooled; reviews of a judge's verdict left out) and the judges "
    "among themselves. Every alpha has its items in brackets: all raters also count items a judge rated beside one "
    "person or none, so their n can exceed people's, and the week before has items of its own. People's raw "
    "agreement beside the top value's share: high raw agreement with a low alpha is what skewed data looks like. On "
    "a hazard, agreement is on the verdict the violation rates count (violating or not); a verdict of unsure (the "
    "rater cannot judge) is no answer, left out of every agreement figure. Items flagged: items people disagree on, "
    "of those two or more people rated. People's alpha has its 95% interval in brackets (a bootstrap over the "
    "week's items; none where people agreed on every item, as every resample would too): where the target lies "
    "within it, the week's items cannot tell meeting the target from missing it, and the status says so: \"below "
    "target, but within its interval\" is a call to rate more items, not yet a rubric that fails, and \"meets "
    "target, but within its interval\" a pass that is not firm either."
)
WITHIN = "below target, but within its interval"
WITHIN_MET = "meets target, but within its interval"


def build(context: Context) -> Part:
    rows = context.reader.rows(_AGREEMENT_SQL, [context.week])
    flagged = context.reader.rows(_FLAGGED_SQL, [context.week])
    if not rows:
        text = f"No item was rated in {context.label}: no agreement to measure."
        return Part(Section(ANCHOR, TITLE, (Paragraph(text),)), Paragraph(text, "muted"))

    defined = [r for r in rows if r["target_status"] != "undefined"]
    below = [r for r in defined if r["target_status"] == "below_target"]
    firmly_below = [r for r in below if not r["is_target_within_interval"]]
    without = [r for r in rows if r["target_status"] == "undefined"]
    pooled_below = [r for r in defined if r["target_status"] == "meets_target"
                    and r["all_raters_alpha"] is not None and r["all_raters_alpha"] < r["target"]]
    summary = _summary(defined, below)
    # Green only when nothing is below target: a shortfall within its interval is no failure, and no success either.
    blocks: list = [Paragraph(summary[0].upper() + summary[1:], "warn" if firmly_below else None if below else "good")]
    if pooled_below:
        blocks.append(Paragraph(_pooled_note(pooled_below)))
    shown = [r for r in rows if any(r[a] is not None for a in ("human_alpha", "all_raters_alpha", "judge_alpha"))]
    if shown:
        blocks.append(_table(shown, context))
    blocks.extend(_without_people(without))

    n_items = sum(r["n_items_flagged"] for r in flagged)
    headline = Paragraph(
        f"Agreement: {summary} {fmt.plural(n_items, 'newly rated item')} that people disagree on "
        f"flagged for rubric clarification across {fmt.plural(len(flagged), 'task')}.",
        "warn" if firmly_below else None)
    flag_below = {r["dimension_group"]: r["flag_below"] for r in context.reader.rows(_FLAG_BELOW_SQL, [])}
    section = Section(ANCHOR, TITLE, tuple(blocks), (_flagged_subsection(flagged, flag_below, context),))
    return Part(section, headline)


def _summary(defined: list[Row], below: list[Row]) -> str:
    if not defined:
        return ("no dimension has a people's alpha this week (no item rated by two or more people, or all their "
                "ratings in one category).")
    if not below:
        which = "the only dimension" if len(defined) == 1 else f"all {len(defined)} dimensions"
        return f"people agree well enough on {which} with a people's alpha."
    names = fmt.join_words([r["dimension"] for r in below[:3]]) + (" ..." if len(below) > 3 else "")
    within = sum(1 for r in below if r["is_target_within_interval"])
    # A shortfall whose interval reaches the target is no firm failure: the week's items cannot tell.
    if not within:
        caveat = ""
    elif len(below) == 1:
        caveat = " Its 95% interval reaches the target: too few items to call it a failure."
    elif within == len(below):
        caveat = " On each, the 95% interval reaches the target: too few items to call any a failure."
    else:
        caveat = (f" On {fmt.share(within, len(below))}, the 95% interval reaches the target: too few items to call "
                  "those failures.")
    return (f"people's alpha is below its target on {fmt.share(len(below), len(defined))} dimensions that have one "
            f"(lowest against target: {names}).{caveat}")


def _pooled_note(rows: list[Row]) -> str:
    # Each alpha with its items: all raters pool items only judges rated, so the two are on different items.
    names = fmt.join_words([f"{r['dimension']} (people {fmt.num(r['human_alpha'], ALPHA_DIGITS)} on "
                            f"{fmt.plural(r['human_n_units'], 'item')}, all raters "
                            f"{fmt.num(r['all_raters_alpha'], ALPHA_DIGITS)} on "
                            f"{fmt.plural(r['all_raters_n_units'], 'item')})" for r in rows])
    return (f"People meet the target on {names}, but all raters pooled fall below it: the LLM judges rate these "
            f"items differently from people, which is a judge to check (\"{judge_drift.TITLE}\", below), not a "
            "rubric to clarify.")


def _without_people(rows: list[Row]) -> list[Paragraph]:
    unrated = [r["dimension"] for r in rows if r["human_n_units"] == 0]
    one_category = [r["dimension"] for r in rows if r["human_n_units"] > 0]
    blocks = []
    if unrated:
        blocks.append(Paragraph(
            f"No people's alpha for {fmt.plural(len(unrated), 'dimension')} this week, no item on them being rated "
            "by two or more people: " + ", ".join(unrated) + ".", "muted"))
    if one_category:
        blocks.append(Paragraph(
            f"People's alpha is undefined for {fmt.plural(len(one_category), 'dimension')} this week (all their "
            "ratings in one category): " + ", ".join(one_category) + ".", "muted"))
    return blocks


def _table(rows: list[Row], context: Context) -> Table:
    body = []
    for row in rows:
        status, within = row["target_status"], row["is_target_within_interval"]
        tone = ("warn" if status == "below_target" and within else "bad" if status == "below_target"
                else "good" if status == "meets_target" else "muted")
        verdict = {"below_target": WITHIN if within else "below target",
                   "meets_target": WITHIN_MET if within else "meets target"}.get(status, "no people's alpha")
        body.append((
            Cell(row["dimension"]),
            Cell(row["dimension_group"] or fmt.MISSING),
            Cell(fmt.with_interval(row["human_alpha"], row["human_alpha_ci_low"], row["human_alpha_ci_high"],
                                   ALPHA_DIGITS), tone, numeric=True),
            Cell(fmt.count(row["human_n_units"]), numeric=True),
            Cell(fmt.num(row["target"], 1), numeric=True),
            Cell(verdict, tone),
            Cell(_alpha(row["all_raters_alpha"], row["all_raters_n_units"]), numeric=True),
            Cell(_alpha(row["judge_alpha"], row["judge_n_units"]), numeric=True),
            Cell(fmt.num(row["human_percent_agreement"]), numeric=True),
            Cell(fmt.num(row["human_top_value_share"]), numeric=True),
            Cell(_alpha(row["previous_human_alpha"], row["previous_human_n_units"]), numeric=True),
            Cell(f"{fmt.share(row['n_items_flagged'], row['n_items_compared'])}", numeric=True),
        ))
    return Table(
        ("Dimension", "Group", "Alpha, people [95% interval]", "n items, people", "Target", "Status, people",
         "Alpha, all raters (n items)", "Alpha, judges (n items)", "Raw agreement, people", "Top value share, people",
         f"Alpha, people, {context.previous_label} (n items)", "Items flagged"),
        tuple(body),
        # The targets as the build compared with them (the seed agreement_targets), written in they went stale.
        caption=CAPTION.format(targets=fmt.per_group({r["dimension_group"]: r["target"] for r in rows
                                                      if r["target"] is not None})
                               or "as the seed agreement_targets sets them"),
    )


def _alpha(alpha: float | None, n_items: int | None) -> str:
    """'0.662 (40)': an alpha with the items it is over, which differ between rater groups (all raters count items
    a judge rated beside one person) and weeks; a dash for an undefined alpha."""
    return fmt.MISSING if alpha is None else f"{fmt.num(alpha, ALPHA_DIGITS)} ({fmt.count(n_items)})"


def _flagged_subsection(flagged: list[Row], flag_below: dict[str, float], context: Context) -> Subsection:
    """`flag_below`: the threshold per dimension group the build flagged with (the seed's), worded as fmt.per_group
    words it."""
    below = fmt.per_group(flag_below) or "its dimension group's flag_below (the seed agreement_targets)"
    if not flagged:
        return Subsection(FLAGGED_TITLE, (Paragraph(
            f"No item first rated in {context.label} fell below the flagging threshold (people's item agreement "
            f"{below}).", "good"),))
    shown = flagged[:MAX_FLAGGED_TASKS]
    blocks: list = [Paragraph(
        f"{fmt.plural(sum(r['n_items_flagged'] for r in flagged), 'item')} first rated in {context.label} have an "
        f"item agreement among people below {below} on at least one dimension, in "
        f"{fmt.plural(len(flagged), 'task')}: "
        "the people who rated them read the rubric differently. The LLM judges' ratings are left out here (a judge "
        "that disagrees with people is judge drift). Tasks with the most flags (an item flagged on three dimensions "
        "is three) first.")]
    body = []
    for row in shown:
        body.append((
            Cell(row["task_id"]),
            Cell(fmt.excerpt(row["prompt"], 160) if row["prompt"] else fmt.MISSING, record=row["prompt"] is not None),
            Cell(fmt.share(row["n_items_flagged"], row["n_items_compared"]), numeric=True),
            Cell(fmt.count(row["n_flags"]), numeric=True),
            Cell(row["dimensions_flagged"]),
            Cell(fmt.num(row["min_item_agreement"]), "warn", numeric=True),
        ))
    blocks.append(Table(("Task", "Prompt", "Items flagged", "Flags", "Dimensions flagged", "Lowest item agreement"),
                        tuple(body),
                        caption=f"Flags: the task's items below {below}, counted once per dimension, the table's "
                                "order. "
                                "Item agreement among people: 1 - the item's disagreement / the dimension's expected "
                                "disagreement over all its ratings, every week's (1 perfect, 0 chance level). "
                                "Weighted by their ratings, items average to the dimension's all-time alpha, not "
                                "to a week's, whose expected disagreement is the week's own."))
    if len(flagged) > len(shown):
        blocks.append(Paragraph(f"And {fmt.plural(len(flagged) - len(shown), 'more task')} with fewer flags.",
                                "muted"))
    for row in shown[:MAX_EXAMPLES]:
        if row["example_response"] is None:
            continue
        low, high = row["example_lowest_score"], row["example_highest_score"]
        # No range when a rating has no score (a hazard verdict not_applicable): its label is what disagrees.
        ratings = (f"scores from {fmt.num(low, 0)} to {fmt.num(high, 0)}" if low is not None and low != high
                   else "labels that disagree")
        blocks.append(Record(
            f"{row['task_id']}: {row['example_model_id']}'s response, rated by people on {row['example_dimension']} "
            f"with {ratings} (item agreement {fmt.num(row['min_item_agreement'])})",
            fmt.excerpt(row["example_response"], 400)))
    return Subsection(FLAGGED_TITLE, tuple(blocks))
