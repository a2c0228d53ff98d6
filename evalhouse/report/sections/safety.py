"""Which hazards did models violate this week, and did refusal behaviour change?"""

from __future__ import annotations

from evalhouse.report import changes, fmt
from evalhouse.report.document import Cell, Paragraph, Section, Subsection, Table
from evalhouse.report.sections import Context, Part, not_available
from evalhouse.report.warehouse import Row

ANCHOR = "safety"
TITLE = "Did any model violate a hazard, or change how it refuses?"
HAZARDS_TITLE = "Which hazards did models violate this week?"
REFUSALS_TITLE = "Did refusal behaviour change?"

_RATER_GROUPS = {"human": "people", "llm_judge": "LLM judges", "hybrid": "people confirming a judge"}

_HAZARDS_SQL = """
select *
from marts.rpt_weekly_hazard_violations
where week_start = ?
order by model_id, hazard, case rater_group when 'human' then 0 when 'hybrid' then 1 else 2 end
"""

# Responses rated for hazards this week at all, by any rater group: tells "none violated" from "none rated", and
# from "none applied" (every verdict not applicable: the responses were rated, and no hazard concerned them).
_RATED_SQL = """
select sum(n_rated) as n_rated, sum(n_not_applicable) as n_not_applicable, sum(n_unsure) as n_unsure
from marts.fct_hazard_rates
where week_start = ?
"""

_REFUSALS_SQL = """
select *
from marts.rpt_weekly_refusal_changes
where week_start = ?
order by has_significant_change desc, model_id, case rater_group when 'human' then 0 when 'hybrid' then 1 else 2 end
"""


def build(context: Context) -> Part:
    hazards, hazard_line = _hazards(context)
    refusals, refusal_line = _refusals(context)
    tones = {hazard_line[1], refusal_line[1]}
    headline_tone = "bad" if "bad" in tones else "warn" if "warn" in tones else None
    return Part(Section(ANCHOR, TITLE, (), (hazards, refusals)),
                Paragraph(f"Safety: {hazard_line[0]} {refusal_line[0]}", headline_tone))


def _hazards(context: Context) -> tuple[Subsection, tuple[str, str | None]]:
    if not context.reader.has_table("rpt_weekly_hazard_violations"):
        text = not_available("rpt_weekly_hazard_violations")
        return Subsection(HAZARDS_TITLE, (Paragraph(text, "muted"),)), ("hazard rates not available.", None)
    rows = context.reader.rows(_HAZARDS_SQL, [context.week])
    if not rows:
        rated = context.reader.one(_RATED_SQL, [context.week]) or {"n_rated": 0, "n_not_applicable": 0, "n_unsure": 0}
        if not rated["n_rated"] and rated["n_not_applicable"]:
            text = no_hazard_applied(context.label, int(rated["n_not_applicable"]), int(rated["n_unsure"] or 0))
            return (Subsection(HAZARDS_TITLE, (Paragraph(text, "good"),)),
                    ("no hazard applied to the responses rated.", "good"))
        if not rated["n_rated"]:
            # Nothing rated is not "nothing violated": the hazards were not looked at, or every verdict was unsure
            # (a rater saying they cannot judge), which decides nothing. The Overview's card says the same.
            unsure = int(rated["n_unsure"] or 0)
            if unsure:
                text = (f"Not assessed: raters gave no violating or non-violating hazard verdict in {context.label} "
                        f"({fmt.plural(unsure, 'unsure verdict')}, which decide{'s' if unsure == 1 else ''} "
                        "nothing).")
                line = "hazards not assessed: every verdict this week was unsure."
            else:
                text = f"Not assessed: no response was rated for hazards in {context.label}."
                line = "hazards not assessed: no ratings this week."
            return Subsection(HAZARDS_TITLE, (Paragraph(text, "warn"),)), (line, "warn")
        text = f"No rater found a response violating any hazard in {context.label}."
        return Subsection(HAZARDS_TITLE, (Paragraph(text, "good"),)), ("no hazard violations.", "good")

    models = sorted({r["model_id"] for r in rows})
    blocks: list = [Paragraph(_model_sentence(model, [r for r in rows if r["model_id"] == model]), "bad")
                    for model in models]
    body = []
    for row in rows:
        body.append((
            Cell(row["model_id"]),
            Cell(row["hazard_label"] or row["hazard"]),
            Cell(_RATER_GROUPS.get(row["rater_group"], row["rater_group"])),
            Cell(_verdicts(row), "bad", numeric=True),
            Cell(fmt.count(row["n_items"]), numeric=True),
            Cell(fmt.count(row["n_items_violating"]), numeric=True),
            Cell(fmt.with_interval(row["violation_rate"], row["ci_low"], row["ci_high"]), numeric=True),
            Cell(fmt.num(row["mean_severity"], 1), numeric=True),
            Cell(str(row["max_severity"]) if row["max_severity"] is not None else fmt.MISSING, numeric=True),
            Cell(_previous_verdicts(row), numeric=True),
        ))
    blocks.append(Table(
        ("Model", "Hazard", "Raters", "Violating verdicts", "Responses", "Violating responses",
         "Rate per response [95% CI]",
         "Mean severity", "Max severity", f"Violating verdicts, {context.previous_label}"),
        tuple(body),
        caption=("Rate: each response's share of violating verdicts among its violating and non-violating ones, "
                 "averaged over the responses, with a Wilson interval over the responses: several raters of one "
                 "response are one observation of the model, not several. An unsure verdict is no verdict: it is "
                 "left out of the rate and of the verdicts counted, and shown beside them (\"5 of 7 (1 unsure)\"). "
                 "Violating responses: "
                 "those with at least one violating verdict from the group. Severity 1-3. "
                 f"Violating verdicts, {context.previous_label}: the verdicts of the week before, not its responses "
                 "(none decided: only not-applicable or unsure ones). "
                 "People and judges are never pooled.")))
    # Responses, per rater group: verdicts added up across groups (and across the raters of one response) would
    # count one violating response several times.
    cells = sorted({(r["model_id"], r["hazard"]) for r in rows})
    line = "; ".join(
        f"{model} on {hazard}: " + ", ".join(
            f"{fmt.share(r['n_items_violating'], r['n_items'])} rated responses violating "
            f"({_RATER_GROUPS.get(r['rater_group'], r['rater_group'])})"
            for r in rows if (r["model_id"], r["hazard"]) == (model, hazard))
        for model, hazard in cells) + "."
    return Subsection(HAZARDS_TITLE, tuple(blocks)), (line, "bad")


def no_hazard_applied(label: str, n_not_applicable: int, n_unsure: int = 0) -> str:
    """A week whose hazard verdicts were all not applicable (or unsure): assessed, and nothing to violate, not "not
    assessed", which is a week nobody rated. The Overview's card on people's verdicts says the same."""
    unsure = (f", and {fmt.plural(n_unsure, 'unsure verdict')}, which decide{'s' if n_unsure == 1 else ''} nothing"
              if n_unsure else "")
    return (f"No hazard applied to the responses rated in {label}: their hazard verdicts were not applicable "
            f"({fmt.plural(n_not_applicable, 'verdict')}{unsure}), so none was violating.")


def _previous_verdicts(row: Row) -> str:
    """The week before's violating verdicts among its decided ones; 'none decided' where it had rows but no violating
    or non-violating verdict (all not applicable, all unsure or none): '0 of 0' read as a week with nothing wrong."""
    if row["previous_n_rated"] is None:
        return fmt.MISSING
    if not row["previous_n_rated"]:
        return "none decided"
    return fmt.share(row["previous_n_violating"], row["previous_n_rated"])


def verdicts_said(n_violating: int, n_rated: int, n_unsure: int | None, noun: str = "") -> str:
    """'5 of 7 (1 unsure)': the violating verdicts among the decided ones, and the unsure ones the rate leaves out.
    The Safety page's heatmaps say a cell's verdicts in the same words."""
    return f"{fmt.share(n_violating, n_rated)}{noun}" + (f" ({fmt.count(n_unsure)} unsure)" if n_unsure else "")


def _verdicts(row: Row, noun: str = "") -> str:
    return verdicts_said(row["n_violating"], row["n_rated"], row.get("n_unsure"), noun)


def _model_sentence(model: str, rows: list[Row]) -> str:
    """'acme/chat-7b violated specialized_advice in 9 of 11 verdicts by people on 4 responses, 3 of them violating
    (0.75 [0.30, 0.95] per response) and ...'."""
    hazards = []
    for hazard in sorted({r["hazard"] for r in rows}):
        groups = [f"{_verdicts(r, ' verdicts')} by "
                  f"{_RATER_GROUPS.get(r['rater_group'], r['rater_group'])} on "
                  f"{fmt.plural(r['n_items'], 'response')}, {fmt.count(r['n_items_violating'])} of them violating "
                  f"({fmt.with_interval(r['violation_rate'], r['ci_low'], r['ci_high'])} per response)"
                  for r in rows if r["hazard"] == hazard]
        hazards.append(f"{hazard} in {fmt.join_words(groups)}")
    return f"{model} violated {'; '.join(hazards)}."


def _refusals(context: Context) -> tuple[Subsection, tuple[str, str | None]]:
    if not context.reader.has_table("rpt_weekly_refusal_changes"):
        text = not_available("rpt_weekly_refusal_changes")
        return Subsection(REFUSALS_TITLE, (Paragraph(text, "muted"),)), ("Refusal calibration not available.", None)
    rows = context.reader.rows(_REFUSALS_SQL, [context.week])
    if not rows:
        text = f"No refusal behaviour was rated in {context.label}."
        return Subsection(REFUSALS_TITLE, (Paragraph(text, "muted"),)), ("No refusals rated.", None)

    changed = [r for r in rows if r["has_significant_change"]]
    # Only a pair with a week before was compared, and only a tested one can say "no change": a week pair too small
    # to test, or a row with no week before, is counted apart and never reads as steady.
    compared = [r for r in rows if r["previous_n_items"] is not None]
    tested = [r for r in compared if r["has_significant_change"] is not None]
    untested = [r for r in compared if r["has_significant_change"] is None]
    new = [r for r in rows if r["previous_n_items"] is None]
    big_moves = [r for r in untested if _big_moves(r)]
    min_items = context.settings.refusal_change_min_items  # what rpt_weekly_refusal_changes was built with
    blocks: list = [Paragraph(_change_sentence(r, context), "warn") for r in changed]
    if untested:
        blocks.append(Paragraph(
            f"Not tested, too few responses (fewer than {min_items} in a week): "
            + "; ".join(f"{_who(r)} ({r['n_items']:,} responses this week, {r['previous_n_items']:,} in "
                        f"{context.previous_label})" for r in untested) + ".", "muted"))
    if big_moves:
        blocks.append(Paragraph(_look_at(big_moves), "warn"))
    if new and compared:
        blocks.append(Paragraph(f"New this week, no {context.previous_label} responses to compare: "
                                + "; ".join(_who(r) for r in new) + ".", "muted"))
    if not compared:
        blocks.append(Paragraph(f"Refusal changes not assessed: no {context.previous_label} responses to compare.",
                                "warn"))
    elif not changed and tested:
        blocks.append(Paragraph(
            f"No significant change in refusal, over-refusal or under-refusal rates from {context.previous_label} "
            f"among the {fmt.count(len(tested))} tested.", "good"))
    body = []
    for row in rows:
        body.append((
            Cell(row["model_id"]),
            Cell(_RATER_GROUPS.get(row["rater_group"], row["rater_group"])),
            Cell(fmt.count(row["n_items"]), numeric=True),
            Cell(fmt.count(row["n_rated"]), numeric=True),
            *(_rate_cells(row, rate) for rate in ("refusal_rate", "over_refusal_rate", "under_refusal_rate")),
            Cell(fmt.count(row["previous_n_items"]), numeric=True),
        ))
    blocks.append(Table(
        ("Model", "Raters", "Responses", "Ratings", "Refusal rate [95% CI] (change, z)",
         "Over-refusal [95% CI] (change, z)", "Under-refusal [95% CI] (change, z)",
         f"Responses, {context.previous_label}"),
        tuple(body),
        caption=("Ratings: the raters' refusal verdicts on the week's responses, several to a response. Rates per "
                 "response: each response's share of its ratings, averaged over the responses, with Wilson "
                 f"intervals over the responses. Change against {context.previous_label} (its responses in the last "
                 "column; – where it had none), the two weeks as independent windows, tested against no change: "
                 "SE = sqrt(p(1-p)(1/n1 + 1/n0)), p the two weeks pooled, n the responses; significant at |z| > "
                 f"1.96; not tested below {min_items} responses in either week. Over-refusal: refused a benign "
                 "request; under-refusal: answered what it should have refused.")))
    untested_words = (f"; {fmt.count(len(untested))} of {fmt.count(len(compared))} compared could not be tested "
                      "(too few responses)" if untested else "")
    if not compared:
        line, tone = f"refusal changes not assessed: no {context.previous_label} responses to compare.", "warn"
    elif changed:
        line, tone = (f"{fmt.plural(len(changed), 'significant refusal change')} among {fmt.count(len(tested))} "
                      f"tested{untested_words}."), "warn"
    elif tested:
        line, tone = (f"no significant refusal change among {fmt.count(len(tested))} tested against "
                      f"{context.previous_label}{untested_words}."), None
    else:
        line, tone = (f"refusal changes not assessed: all {fmt.count(len(compared))} compared with "
                      f"{context.previous_label} had too few responses to test."), "warn"
    if new and compared:
        line += f" {fmt.count(len(new))} new this week."
    if big_moves:
        line, tone = f"{line} {_look_at(big_moves)}", "warn"
    return Subsection(REFUSALS_TITLE, tuple(blocks)), (line[0].upper() + line[1:], tone)


_RATE_NAMES = {"refusal_rate": "refusal rate", "over_refusal_rate": "over-refusal rate",
               "under_refusal_rate": "under-refusal rate"}


def _who(row: Row) -> str:
    return f"{row['model_id']} rated by {_RATER_GROUPS.get(row['rater_group'], row['rater_group'])}"


def _big_moves(row: Row) -> list[str]:
    """An untested rate that moved by BIG_DROP or more either way: 'refusal rate 0.20 to 0.50'. Either way, as a
    rise in under-refusal is as bad as a fall in refusal."""
    return [f"{name} {fmt.num(row[f'previous_{rate}'])} to {fmt.num(row[rate])}"
            for rate, name in _RATE_NAMES.items()
            if row[f"{rate}_change"] is not None and round(abs(row[f"{rate}_change"]), 9) >= changes.BIG_DROP]


def _look_at(rows: list[Row]) -> str:
    return (f"Look at {fmt.plural(len(rows), 'untested refusal move')} of {changes.BIG_DROP:.2f} or more: "
            + "; ".join(f"{_who(r)}, {fmt.join_words(_big_moves(r))} (n = {r['n_items']:,} responses, "
                        f"{r['previous_n_items']:,} the week before)" for r in rows) + ".")


def _rate_cells(row: Row, rate: str) -> Cell:
    value = fmt.with_interval(row[rate], row[f"{rate}_ci_low"], row[f"{rate}_ci_high"])
    z = row[f"{rate}_change_z"]
    delta = row[f"{rate}_change"]
    significant = row[f"{rate}_change_is_significant"]
    if delta is None:
        change = ""
    elif significant is None:
        change = f" ({fmt.signed(delta)}, not tested: too few responses)"
    elif z is None:
        change = " (no change)" if delta == 0 else f" ({fmt.signed(delta)}, z undefined)"
    else:
        change = f" ({fmt.signed(delta)}, z = {fmt.z_score(z)})"
    tone = "warn" if significant else None
    # Not a numeric cell, which never wraps: three rates with their changes in one row passed a 1200-pixel page.
    return Cell(value + change, tone)


def _change_sentence(row: Row, context: Context) -> str:
    moves = []
    names = {"refusal_rate": "refusal rate", "over_refusal_rate": "over-refusal rate",
             "under_refusal_rate": "under-refusal rate"}
    for rate, name in names.items():
        z = row[f"{rate}_change_z"]
        if row[f"{rate}_change_is_significant"]:
            verb = "rose" if z > 0 else "fell"
            moves.append(f"its {name} {verb} from {fmt.num(row[f'previous_{rate}'])} to {fmt.num(row[rate])} "
                         f"(z = {fmt.z_score(z)})")
    return (f"{row['model_id']}, rated by {_RATER_GROUPS.get(row['rater_group'], row['rater_group'])} "
            f"(n = {row['n_items']:,} responses this week, {row['previous_n_items']:,} in {context.previous_label}): "
            f"{fmt.join_words(moves)}.")
