"""Has an LLM judge drifted from people? This week's drift alerts with the judge's version (new to its baseline or
not), each alerting judge's weekly bias, an example."""

from __future__ import annotations

from itertools import groupby

from evalhouse.build_settings import BuildSettings
from evalhouse.report import fmt
from evalhouse.report.chart import Band, ChartPoint, line_chart
from evalhouse.report.document import Cell, Chart, Figure, Paragraph, Record, Section, Subsection, Table
from evalhouse.report.sections import Context, Part
from evalhouse.report.warehouse import Row
from evalhouse.report.weeks import iso_week_label

ANCHOR = "judge-drift"
TITLE = "Has an LLM judge drifted from people?"

_ALERTS_SQL = """
select *
from marts.rpt_weekly_drift_alerts
where week_start = ?
order by judge_id, abs(drift_z) desc, dimension
"""

# Tested cells have a verdict (a z, or none where the change is exact: no spread in either window); cells with too
# few items in the week have no verdict, which is not "no drift" and is said apart.
_TESTED_SQL = """
select
    count(is_drift_alert) as n_cells,
    count(distinct case when is_drift_alert is not null then judge_id end) as n_judges,
    count(case when no_test_reason like 'too few%' then 1 end) as n_untested,
    count(distinct case when no_test_reason like 'too few%' then judge_id end) as n_untested_judges
from marts.fct_judge_drift
where week_start = ?
    and not is_baseline_week
"""

# Cells of the week that have a bias but sit in their judge's baseline weeks (no z by design: the first
# drift_baseline_weeks, and more until the baseline holds drift_min_items items), and the first week after the
# baseline of those judges and dimensions that has ratings: when drift can first be tested.
_BASELINE_SQL = """
select
    count(*) as n_cells,
    count(distinct judge_id) as n_judges,
    (
        select min(later.week_start)
        from marts.fct_judge_drift as later
        inner join marts.fct_judge_drift as forming
            on later.judge_id = forming.judge_id
            and later.dimension = forming.dimension
        where not later.is_baseline_week
            and later.week_start > ?
            and forming.week_start = ?
            and forming.is_baseline_week
            and forming.mean_bias is not null
    ) as first_testable_week
from marts.fct_judge_drift
where week_start = ?
    and is_baseline_week
    and mean_bias is not null
"""

# In a week without alerts, the tested pairs with a z, the nearest to their own cutoff first: what "none moved beyond
# the cutoff" rests on, and how far from it each pair stayed. A pair whose change is exact (no spread) has no z.
_NEAREST_SQL = """
select
    judge_id,
    dimension,
    n_items,
    mean_bias,
    bias_se,
    baseline_bias,
    baseline_se,
    baseline_n_items,
    bias_delta,
    drift_z,
    drift_critical_value
from marts.fct_judge_drift
where week_start = ?
    and not is_baseline_week
    and is_drift_alert is not null
    and drift_z is not null
    and drift_critical_value is not null
order by abs(drift_z) / drift_critical_value desc, judge_id, dimension
"""
MAX_NEAREST = 10

# The alerting judge's weekly bias on the dimensions that alerted, up to the report's week (never after it).
_SERIES_SQL = """
select
    drift.judge_id,
    drift.dimension,
    drift.week_start,
    drift.mean_bias,
    drift.bias_se,
    drift.bias_ci_low,
    drift.bias_ci_high,
    drift.n_items,
    drift.baseline_bias,
    drift.baseline_se,
    drift.alert_band_low,
    drift.alert_band_high,
    drift.is_baseline_week,
    drift.is_drift_alert,
    drift.no_test_reason
from marts.fct_judge_drift as drift
inner join marts.rpt_weekly_drift_alerts as alerts
    on drift.judge_id = alerts.judge_id
    and drift.dimension = alerts.dimension
where alerts.week_start = ?
    and drift.week_start <= ?
order by drift.judge_id, drift.dimension, drift.week_start
"""


def build(context: Context) -> Part:
    alerts = context.reader.rows(_ALERTS_SQL, [context.week])
    tested = context.reader.one(_TESTED_SQL, [context.week]) or {"n_cells": 0, "n_judges": 0, "n_untested": 0,
                                                                 "n_untested_judges": 0}
    settings = context.settings  # the vars fct_judge_drift was built with
    untested = _untested_sentence(tested, settings)
    baseline = context.reader.one(_BASELINE_SQL, [context.week] * 3) or {"n_cells": 0, "n_judges": 0,
                                                                         "first_testable_week": None}
    in_baseline = _baseline_sentence(baseline, settings)
    if not alerts:
        extra: list = []
        if tested["n_cells"]:
            nearest = context.reader.rows(_NEAREST_SQL, [context.week])
            text = (f"No judge drift alerts in {context.label}: "
                    f"{fmt.plural(tested['n_cells'], 'judge-dimension pair')} "
                    f"({fmt.plural(tested['n_judges'], 'judge')}) tested against their baselines; none moved beyond "
                    f"the t cutoff ({_tail(settings)})." + (f" {_nearest_sentence(nearest[0])}" if nearest else "")
                    + "".join(f" {s}" for s in (untested, in_baseline) if s))
            tone = "good"
            if nearest:
                extra = _nearest_blocks(nearest, tested["n_cells"], settings)
        elif untested:
            text = f"Judge drift not assessed in {context.label}: {untested}" + (f" {in_baseline}" if in_baseline
                                                                                 else "")
            tone = "warn"
        elif baseline["n_cells"]:
            # A baseline week has judge ratings but nothing to hold them against yet: not "no ratings".
            first = baseline["first_testable_week"]
            text = (f"Judge drift not assessed in {context.label}: baseline weeks. "
                    f"{fmt.plural(baseline['n_cells'], 'judge-dimension pair')} "
                    f"({fmt.plural(baseline['n_judges'], 'judge')}) have a bias against people this week, which "
                    f"goes into the baseline later weeks are tested against ({_baseline_rule(settings)}); drift can be "
                    "tested from " + (iso_week_label(first) if first is not None else
                                      "the week after a baseline is complete") + ".")
            tone = "muted"
        else:
            # Untested is not "no drift": a week without judge ratings says nothing about the judges.
            text = (f"Judge drift not assessed in {context.label}: no ratings this week to test, i.e. no judge "
                    "rated responses that people rated too.")
            tone = "warn"
        return Part(Section(ANCHOR, TITLE, (Paragraph(text, tone), *extra)), Paragraph(text, tone))

    series = context.reader.rows(_SERIES_SQL, [context.week, context.week])
    judges = [(judge, list(rows)) for judge, rows in groupby(alerts, key=lambda r: r["judge_id"])]
    blocks: list = [Paragraph(
        f"{fmt.plural(len(alerts), 'drift alert')} in {context.label}, from {fmt.plural(len(judges), 'judge')}: "
        "a judge's bias against people (judge score minus the mean of the people who rated the same response "
        f"independently, over items) moved from its baseline weeks beyond the t cutoff ({_tail(settings)}).", "bad")]
    for judge, rows in judges:
        blocks.append(Paragraph(_judge_sentence(judge, rows), "bad"))
    for sentence in (untested, in_baseline):
        if sentence:
            blocks.append(Paragraph(sentence, "muted"))
    blocks.append(_table(alerts, settings))

    subsections = []
    for judge, rows in judges:
        subsections.append(Subsection(f"{judge}: weekly bias against people",
                                      _judge_blocks(judge, rows, series, context)))
    headline = Paragraph("Judge drift: " + "; ".join(_judge_sentence(j, r) for j, r in judges), "bad")
    return Part(Section(ANCHOR, TITLE, tuple(blocks), tuple(subsections)), headline)


def _nearest_sentence(row: Row) -> str:
    """'The nearest to an alert: j on d, z = -2.06 against a cutoff of 4.24 (n = 39 items).': a week without alerts
    says how far from one it stayed, not only that none was raised."""
    return (f"The nearest to an alert: {row['judge_id']} on {row['dimension']}, z = {fmt.z_score(row['drift_z'])} "
            f"against a cutoff of {fmt.num(row['drift_critical_value'])} (n = {fmt.plural(row['n_items'], 'item')} "
            "this week).")


def _nearest_blocks(rows: list[Row], n_tested: int, settings: BuildSettings) -> list:
    """The tested pairs nearest to their cutoff, in a table, and how many more were tested."""
    shown = rows[:MAX_NEAREST]
    body = tuple((
        Cell(row["judge_id"]),
        Cell(row["dimension"]),
        Cell(fmt.plus_minus(row["mean_bias"], row["bias_se"]), numeric=True),
        Cell(fmt.count(row["n_items"]), numeric=True),
        Cell(fmt.plus_minus(row["baseline_bias"], row["baseline_se"]), numeric=True),
        Cell(fmt.count(row["baseline_n_items"]), numeric=True),
        Cell(fmt.signed(row["bias_delta"]), numeric=True),
        Cell(fmt.z_score(row["drift_z"]), numeric=True),
        Cell(fmt.num(row["drift_critical_value"]), numeric=True),
    ) for row in shown)
    blocks: list = [Table(
        ("Judge", "Dimension", "Bias this week ± SE", "n items", "Baseline bias ± SE", "n items (baseline)",
         "Change", "z", "Cutoff |z|"),
        body,
        caption=(f"The tested judge-dimension pairs nearest to an alert first (|z| over its cutoff), up to "
                 f"{MAX_NEAREST}. Bias: the judge's score minus the mean of the people who rated the same item "
                 "independently, averaged over items. z = change / sqrt(SE^2 + SE_baseline^2); the cutoff is "
                 f"Student's t with the normal tail of {settings.drift_alert_z:g} on the pair's degrees of freedom "
                 f"({settings.drift_cutoff_text()})."))]
    rest = n_tested - len(shown)
    if rest:
        exact = n_tested - len(rows)
        blocks.append(Paragraph(
            f"And {fmt.plural(rest, 'more tested pair')}: "
            + fmt.join_words([part for part in (
                f"{fmt.count(len(rows) - len(shown))} further from their cutoff" if len(rows) > len(shown) else "",
                f"{fmt.count(exact)} with no spread in either window (the change exact, no z)" if exact else "",
            ) if part]) + ".", "muted"))
    return blocks


def _tail(settings: BuildSettings) -> str:
    """The alert threshold the build used, as the sentences say it."""
    return f"the tail of {settings.drift_alert_z:g} standard errors"


def _baseline_rule(settings: BuildSettings) -> str:
    """What makes a baseline, by the vars the build used: the first weeks, and more until it holds the items that a
    week after it needs to be tested (fewer: not tested)."""
    return (f"a judge's first {settings.drift_baseline_weeks} weeks with people's ratings on a dimension, and more "
            f"until they hold {settings.drift_min_items} items")


def _untested_sentence(tested: Row, settings: BuildSettings) -> str:
    """The week's judge-dimension pairs with too few items to test, or '' when there are none."""
    if not tested["n_untested"]:
        return ""
    return (f"{fmt.plural(tested['n_untested'], 'judge-dimension pair')} "
            f"({fmt.plural(tested['n_untested_judges'], 'judge')}) had too few items to test (fewer than "
            f"{settings.drift_min_items} in the week): not known to be steady.")


def _baseline_sentence(baseline: Row, settings: BuildSettings) -> str:
    """The week's judge-dimension pairs still in their baseline weeks, or '' when there are none: not tested, which
    is not "no drift" either."""
    if not baseline["n_cells"]:
        return ""
    return (f"{fmt.plural(baseline['n_cells'], 'judge-dimension pair')} "
            f"({fmt.plural(baseline['n_judges'], 'judge')}) were in their baseline weeks "
            f"({_baseline_rule(settings)}): not tested yet.")


def _judge_sentence(judge: str, rows: list[Row]) -> str:
    direction = "higher" if sum(r["bias_delta"] for r in rows) > 0 else "lower"
    strongest = rows[0]
    return (f"{judge} ({strongest['judge_model']}) rated {direction} than its baseline against people on "
            f"{fmt.plural(len(rows), 'dimension')}; the largest move is on {strongest['dimension']}, from "
            f"{fmt.signed(strongest['baseline_bias'])} {_baseline_extent(strongest)} to "
            f"{fmt.signed(strongest['mean_bias'])} (n = {strongest['n_items']:,} items, z = {_z(strongest)})."
            + _version_sentence(rows))


def version_list(value: object) -> list[str]:
    """A judge_versions cell as a list: [] for NULL, no rating named a version (None from a row, NaN in a frame; a
    frame gives the array DuckDB returns)."""
    if value is None or isinstance(value, float):
        return []
    return [str(v) for v in value]


def _versions(value: object) -> str:
    return ", ".join(version_list(value))


def version_said(versions: object, baseline_versions: object, is_new: bool | None) -> str:
    """A week's judge versions against its baseline's, as the report's alerts table and the Judge drift page say
    them: 'judge-prompt-v2.1 (new; baseline: judge-prompt-v2)', 'judge-prompt-v2 (as its baseline)', the versions
    alone where no baseline says (a baseline week: is_new NULL), '' when no rating named a version."""
    now = _versions(versions)
    if not now or is_new is None:
        return now
    return f"{now} (new; baseline: {_versions(baseline_versions)})" if is_new else f"{now} (as its baseline)"


def _version_sentence(rows: list[Row]) -> str:
    """' It rated with judge-prompt-v2.1 in this week, a version its baseline did not use (judge-prompt-v2).' when
    an alert came with a new version (the alert may be the version, not the same judge drifting), ' Its version
    changed this week, to ...' when it changed back to one its baseline used; '' otherwise, and for a warehouse built
    before the alerts carried versions."""
    new = [r for r in rows if r.get("has_new_judge_version")]
    if new:
        return (f" It rated with {_versions(new[0]['judge_versions'])} in this week, a version its baseline did not "
                f"use ({_versions(new[0]['baseline_judge_versions'])})"
                + ("" if len(new) == len(rows) else f", on {fmt.join_words(sorted(r['dimension'] for r in new))}")
                + ".")
    changed = [r for r in rows if r.get("is_judge_version_changed")]
    if changed:
        return f" Its version changed this week, to {_versions(changed[0]['judge_versions'])}."
    return ""


def _version_cell(row: Row) -> str:
    return version_said(row.get("judge_versions"), row.get("baseline_judge_versions"), row.get("has_new_judge_version"))


def _baseline_extent(row: Row) -> str:
    """'(its baseline: 2 weeks, 20 items)': the weeks it took to hold the items it needs (drift_baseline_weeks, or
    more where those held too few)."""
    items = fmt.plural(row["baseline_n_items"], "item")
    weeks = row.get("baseline_weeks")  # a warehouse built before the alerts carried it has items only
    return f"(its baseline: {items})" if weeks is None else f"(its baseline: {fmt.plural(weeks, 'week')}, {items})"


def _z(row: Row) -> str:
    """The alert's z, or why it has none: every item's bias the same within each window makes the change exact."""
    return "exact, no spread" if row["drift_z"] is None else fmt.z_score(row["drift_z"])


def _with_pairs(agreement: float | None, n_pairs: int) -> str:
    """Exact agreement with the pairs it is over (on a hazard, pairs with an unsure verdict are not)."""
    return fmt.MISSING if agreement is None else f"{fmt.num(agreement)} ({fmt.count(n_pairs)})"


def _table(alerts: list[Row], settings: BuildSettings) -> Table:
    body = []
    for row in alerts:
        body.append((
            Cell(row["judge_id"]),
            Cell(row["dimension"]),
            Cell(fmt.plus_minus(row["mean_bias"], row["bias_se"]), "bad", numeric=True),
            Cell(fmt.count(row["n_items"]), numeric=True),
            Cell(fmt.plus_minus(row["baseline_bias"], row["baseline_se"]), numeric=True),
            Cell(fmt.count(row["baseline_n_items"]), numeric=True),
            Cell(fmt.count(row.get("baseline_weeks")), numeric=True),
            Cell(fmt.signed(row["bias_delta"]), "bad", numeric=True),
            Cell(_z(row), "bad", numeric=True),
            Cell(fmt.num(row["drift_critical_value"]), numeric=True),
            Cell(_with_pairs(row["exact_agreement"], row["n_agreement_pairs"]), numeric=True),
            Cell(fmt.num(row["kappa_quadratic"]), numeric=True),
            Cell(_version_cell(row), "bad" if row.get("has_new_judge_version") else None),
        ))
    return Table(
        ("Judge", "Dimension", "Bias this week ± SE", "n items", "Baseline bias ± SE", "n items (baseline)",
         "Weeks (baseline)", "Change", "z", "Cutoff |z|", "Exact agreement (n pairs)", "Kappa (quadratic)",
         "Judge version"),
        tuple(body),
        caption=("Bias: the judge's score minus the mean of the people who rated the same item independently, "
                 "averaged over items; positive means the judge rates higher. A person reviewing the judge's own "
                 "verdict (a hybrid review) is not counted. The baseline pools the judge's first weeks on the "
                 "dimension until they hold the items a tested week needs: \"Weeks (baseline)\" says how many it "
                 "took. z = change / sqrt(SE^2 + SE_baseline^2), a Welch t "
                 "(the week's SE at least the baseline's spread over its n); an alert needs |z| beyond Student's t "
                 f"with the normal tail of {settings.drift_alert_z:g} ({settings.drift_cutoff_text()}). Judge "
                 "version: the versions (prompt or model) its ratings of the week name; \"new\" when its baseline "
                 "did not rate with it, so that the alert may be the new version rather than the same judge drifting."),
    )


def _judge_blocks(judge: str, alerts: list[Row], series: list[Row], context: Context) -> tuple:
    charts = []
    for row in alerts:
        points = [s for s in series if s["judge_id"] == judge and s["dimension"] == row["dimension"]]
        charts.append(_chart(row, points))
    blocks: list = [Figure(
        f"Is {judge} drifting from people? Weekly bias (judge minus people) by dimension, up to {context.label}",
        tuple(charts),
        note=("Points: the week's mean bias with its 95% interval (Student's t on the week's items); dashed line: "
              "the baseline weeks' bias; shaded band: how far each tested week's bias may move from it before it "
              "alerts (the cutoff times the change's SE: a point outside its shading is an alert, as on the page); "
              "red: a week that raised an alert; solid line: no bias."),
        data_note=("Each week's mean bias ± SE (judge minus people) and its n items; \"alerts outside\": the bias "
                   "a tested week may reach before it alerts; \"alert\": a week that raised an alert; \"baseline "
                   "week\": one of the weeks the baseline pools, not tested. The baseline weeks' bias ± SE is in the "
                   "alerts table above."))]
    example = alerts[0]
    if example["example_response"] is not None:
        blocks.append(Paragraph(
            f"Example on {example['dimension']}: {judge} (version {example['example_judge_version'] or 'unknown'}) "
            f"gave {fmt.num(example['example_judge_score'], 0)} where "
            f"{fmt.plural(example['example_n_humans'] or 0, 'person', 'people')}, rating independently, gave "
            f"{fmt.num(example['example_human_score'], 1)} on average, to {example['example_model_id']}'s "
            f"response to task {example['example_task_id']}."))
        if example["example_prompt"] is not None:
            blocks.append(Record(f"Prompt of {example['example_task_id']}", fmt.excerpt(example["example_prompt"])))
        blocks.append(Record(f"{example['example_model_id']}'s response", fmt.excerpt(example["example_response"],
                                                                                        400)))
    return tuple(blocks)


def _chart(alert: Row, points: list[Row]) -> Chart:
    baseline = points[0] if points else alert
    band = None
    if baseline["baseline_bias"] is not None:
        band = Band(baseline["baseline_bias"], None, None, f"baseline bias {fmt.signed(baseline['baseline_bias'])}")
    chart_points = []
    data_rows = []
    for p in points:
        label = iso_week_label(p["week_start"])
        low, high = p["alert_band_low"], p["alert_band_high"]  # none for baseline and untested weeks
        chart_points.append(ChartPoint(
            label[-3:], p["mean_bias"], p["bias_ci_low"], p["bias_ci_high"], marked=bool(p["is_drift_alert"]),
            band_low=low, band_high=high,
            band_label=f"{label}: alerts outside {fmt.signed(low)} to {fmt.signed(high)}" if low is not None else ""))
        data_rows.append((
            Cell(label), Cell(fmt.plus_minus(p["mean_bias"], p["bias_se"]), "bad" if p["is_drift_alert"] else None,
                              numeric=True),
            Cell(fmt.count(p["n_items"]), numeric=True),
            Cell(f"{fmt.signed(low)} to {fmt.signed(high)}" if low is not None else "", numeric=True),
            Cell("alert", "bad") if p["is_drift_alert"] else
            Cell("baseline week", "muted") if p["is_baseline_week"] else
            Cell("too few items to test", "muted") if p["no_test_reason"] else Cell("")))
    heading = alert["dimension"]
    svg = line_chart(chart_points, heading=heading, y_label="bias (points)", band=band,
                     description=f"weekly bias of {alert['judge_id']} on {alert['dimension']}")
    return Chart(heading, svg, Table(("Week", "Bias ± SE", "n items", "Alerts outside", ""), tuple(data_rows)))
