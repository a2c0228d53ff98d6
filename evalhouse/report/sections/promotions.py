"""Which model versions may be promoted? The promotion decisions made this week, with what failed.

Reads marts.fct_promotion_decisions (the specs marts) when the warehouse has it: one row per spec, model and week,
is_promoted NULL when the decision is undefined (no threshold, a component's threshold not measured, or a weighted
component without results; decision_status says which). Where the mart has the composite's interval
(composite_ci_low/high over the samples) a decision the composite alone made (no component fails) whose threshold
lies inside it is marked "within noise": next week's samples may decide it the other way. A composite without one
says why ("no interval: latency percentile" for the ADP suites, whose weighted p95 latency has no per-sample value),
so a bare number never passes for a certain one. A row whose components have results outside their scale
(decision_status out of scale) is no decision: a 1.125 on a 0-1 composite once read "promoted". Component gates whose
threshold lies inside the component's own interval (gates_within_noise) are listed beside the failing ones: their
pass or fail is within noise. The headline's counts are marts.rpt_weekly_promotions' own: the report once recounted
them and disagreed with the mart and the app.
"""

from __future__ import annotations

from evalhouse.report import fmt
from evalhouse.report.document import Cell, Paragraph, Section, Table
from evalhouse.report.sections import Context, Part, not_available
from evalhouse.report.warehouse import Row

ANCHOR = "promotions"
TITLE = "Which model versions may be promoted?"
MART = "fct_promotion_decisions"

# The columns the report needs; the others are shown when the mart has them.
_COLUMNS = ("spec_id", "model_id", "composite_score", "promotion_threshold", "is_promoted", "failing_components")
_OPTIONAL = ("missing_components", "n_composite_samples", "composite_ci_low", "composite_ci_high", "is_within_noise",
             "no_interval_reason", "n_failing_components", "decision_status", "unmeasured_thresholds",
             "out_of_scale_components", "gates_within_noise")
SUMMARY = "rpt_weekly_promotions"
_SUMMARY_SQL = "select * from marts.rpt_weekly_promotions where week_start = ?"
_LATENCY_NOTE = (" No interval: latency percentile: a weighted latency percentile, taken over requests, has no "
                 "per-sample value, so the composite has no standard error and its decision is never marked within "
                 "noise, however close to the threshold.")
_SCALE_NOTE = (" No interval: composite outside its scale: some results lie outside their component's own scale (a "
               "judge's 6 on 1-5); the composite is not clipped, and the results need checking.")
_GATE_NOTE = (" A component gate within noise of its threshold: the threshold lies inside the component's own 95% "
              "interval, so its pass or fail is not established by the week's samples (a gate of 1.0 on a rate "
              "always is).")
_OUT_OF_SCALE_NOTE = (" Undecided, out of scale: a component that weighs or gates has results outside its declared "
                      "scale that week; nothing is decided on invalid data until the results are fixed.")
_SQL = """
select {columns}
from marts.fct_promotion_decisions
where week_start = ?
order by case when is_promoted then 2 when not is_promoted then 0 else 1 end, spec_id, model_id
"""


def build(context: Context) -> Part:
    if not context.reader.has_table(MART):
        text = not_available(MART)
        return Part(Section(ANCHOR, TITLE, (Paragraph(text, "muted"),)),
                    Paragraph("Promotions: not available in this warehouse.", "muted"))
    present = context.reader.columns(MART)
    optional = [c for c in _OPTIONAL if c in present]
    rows = context.reader.rows(_SQL.format(columns=", ".join((*_COLUMNS, *optional))), [context.week])
    if not rows:
        text = f"No promotion decisions were made in {context.label}: no spec had results that week."
        return Part(Section(ANCHOR, TITLE, (Paragraph(text, "muted"),)), Paragraph("Promotions: none.", "muted"))

    # A spec without a promotion threshold can never decide: its rows are not decisions, and counting them as
    # such made "12 decisions" out of 8.
    no_threshold = [r for r in rows if r["promotion_threshold"] is None]
    held = [r for r in rows if r["is_promoted"] is False]
    counts = _counts(context, rows)
    blocks: list = [Paragraph(_held_sentence(r), "bad") for r in held]
    blocks.extend(Paragraph(_out_of_scale_sentence(r), "bad") for r in rows if _status(r) == "out of scale")
    blocks.extend(_spec_notes(context, sorted({r["spec_id"] for r in rows})))
    blocks.append(Table(
        ("Spec", "Model", "Composite score", "Threshold", "Decision", "Failing components",
         "Gates within noise of their threshold", "Missing components", "n samples"),
        tuple((
            Cell(r["spec_id"]),
            Cell(r["model_id"]),
            Cell(_composite(r), numeric=True),
            Cell(fmt.num(r["promotion_threshold"]), numeric=True),
            _decision(r),
            Cell(r["failing_components"] or fmt.MISSING, "bad" if r["failing_components"] else None),
            Cell(r.get("gates_within_noise") or fmt.MISSING),
            Cell(r.get("missing_components") or fmt.MISSING),
            Cell(fmt.count(r.get("n_composite_samples")), numeric=True),
        ) for r in rows),
        caption=("Promoted: the composite reaches the spec's promotion threshold and every component meets its own "
                 "threshold. Undecided: a component's own threshold was not measured that week (no results, or a "
                 "metric the warehouse cannot measure: an unmeasured gate is not a gate passed), or a weighted "
                 "component has no results, so there is no composite. A spec that sets no promotion threshold is "
                 "never decided and is not counted among the decisions. The composite's 95% interval is over the "
                 "week's samples; within noise: no component fails and the threshold lies inside the interval, so "
                 "the decision may flip on next week's samples. n samples: the samples the composite and its "
                 "interval are over."
                 + (_GATE_NOTE if any(r.get("gates_within_noise") for r in rows) else "")
                 + (_OUT_OF_SCALE_NOTE if any(_status(r) == "out of scale" for r in rows) else "")
                 + (_LATENCY_NOTE if any(r.get("no_interval_reason") == "latency percentile" for r in rows) else "")
                 + (_SCALE_NOTE if any(r.get("no_interval_reason") == "composite outside its scale" for r in rows)
                    else ""))))
    parts = [f"{fmt.count(counts['n_promoted'])} promoted", f"{fmt.count(counts['n_not_promoted'])} not promoted"]
    if counts["n_decided_within_noise"]:
        parts.append(f"{fmt.count(counts['n_decided_within_noise'])} within noise of the threshold")
    if counts.get("n_decided_with_gates_within_noise"):
        parts.append(f"{fmt.count(counts['n_decided_with_gates_within_noise'])} with a component gate within noise "
                     "of its threshold")
    headline = f"Promotions: {fmt.plural(counts['n_decided'], 'decision')} ({', '.join(parts)})"
    undecided = [(counts.get("n_out_of_scale", 0), "results outside their scale"),
                 (counts["n_threshold_not_measured"], "a component's threshold not measured"),
                 (counts["n_no_composite"], "no composite")]
    if any(n for n, _ in undecided):
        headline += "; undecided: " + ", ".join(f"{fmt.count(n)} ({why})" for n, why in undecided if n)
    if held:
        headline += f"; not promoted: {fmt.join_words(sorted({r['model_id'] for r in held}))}"
    if no_threshold:
        specs = sorted({r["spec_id"] for r in no_threshold})
        headline += (f"; {fmt.plural(len(specs), 'spec')} without a promotion threshold, never decidable "
                     f"({fmt.join_words(specs)}: {fmt.plural(len(no_threshold), 'model')})")
    out_of_scale = counts.get("n_out_of_scale", 0)
    return Part(Section(ANCHOR, TITLE, tuple(blocks)),
                Paragraph(headline + ".", "bad" if held or out_of_scale else None))


def _counts(context: Context, rows: list[Row]) -> dict[str, int]:
    """The week's counts from rpt_weekly_promotions; counted from the rows only in a warehouse without it."""
    if context.reader.has_table(SUMMARY):
        summary = context.reader.one(_SUMMARY_SQL, [context.week])
        if summary is not None and "n_threshold_not_measured" in summary:
            return summary
    statuses = [_status(r) for r in rows]
    return {"n_decided": sum(s in ("promoted", "not promoted") for s in statuses),
            "n_promoted": statuses.count("promoted"), "n_not_promoted": statuses.count("not promoted"),
            "n_decided_within_noise": sum(_within_noise(r) for r in rows),
            "n_decided_with_gates_within_noise": sum(
                s in ("promoted", "not promoted") and bool(r.get("gates_within_noise"))
                for s, r in zip(statuses, rows)),
            "n_out_of_scale": statuses.count("out of scale"),
            "n_threshold_not_measured": statuses.count("threshold not measured"),
            "n_no_composite": statuses.count("no composite")}


def _status(row: Row) -> str:
    if row.get("decision_status") is not None:
        return row["decision_status"]
    if row["promotion_threshold"] is None:
        return "no threshold"
    return {True: "promoted", False: "not promoted", None: "no composite"}[row["is_promoted"]]


def _within_noise(row: Row) -> bool:
    """rpt_weekly_promotions' rule: a decision the composite alone made (no component fails) whose interval holds
    the threshold. A failing component's gate does not move with the composite."""
    return (row["is_promoted"] is not None and row.get("is_within_noise") is True
            and not row.get("n_failing_components"))


def _decision(row: Row) -> Cell:
    status = _status(row)
    if status == "no threshold":
        return Cell("no threshold: never decided", "muted")
    if status == "out of scale":
        components = row.get("out_of_scale_components")
        return Cell("undecided: out of scale" + (f" ({components})" if components else ""), "bad")
    if status == "threshold not measured":
        unmeasured = row.get("unmeasured_thresholds")
        return Cell("undecided: threshold not measured" + (f" ({unmeasured})" if unmeasured else ""), "muted")
    if row["is_promoted"] is None:
        return Cell("undecided: no composite", "muted")
    noise = " (within noise)" if _within_noise(row) else ""
    return Cell("promoted" + noise, "good") if row["is_promoted"] else Cell("not promoted" + noise, "bad")


def _composite(row: Row) -> str:
    """'0.87 [0.80, 0.93]', or '0.87 (no interval: latency percentile)' where the mart says why it has none."""
    reason = row.get("no_interval_reason")
    if reason is not None and row["composite_score"] is not None:
        return f"{fmt.num(row['composite_score'])} (no interval: {reason})"
    return fmt.with_interval(row["composite_score"], row.get("composite_ci_low"), row.get("composite_ci_high"))


def _held_sentence(row: Row) -> str:
    composite = _composite(row)
    score = (f"composite score {composite} against a threshold of "
             f"{fmt.num(row['promotion_threshold'])}" if row["composite_score"] is not None
             else "no composite score")
    failing = f"; failing: {row['failing_components']}" if row["failing_components"] else ""
    return f"{row['model_id']} is not promoted under {row['spec_id']}: {score}{failing}."


def _out_of_scale_sentence(row: Row) -> str:
    components = row.get("out_of_scale_components") or "a component"
    return (f"{row['model_id']} under {row['spec_id']}: no decision, {components} has results outside its declared "
            "scale (not clipped). Check those results: a score outside its scale is invalid data, and nothing passes "
            "on it.")


def _spec_notes(context: Context, spec_ids: list[str]) -> list[Paragraph]:
    """The version that decided each spec's rows, and the weight and threshold keys that name no component: a
    typo there moves a weight or sets a gate nobody measures, and the table alone would not show it."""
    if not context.reader.has_table("dim_eval_specs") or "n_unknown_weight_keys" not in context.reader.columns(
            "dim_eval_specs"):
        return []
    specs = [r for r in context.reader.rows(
        "select spec_id, version, unknown_weight_keys, unknown_threshold_keys from marts.dim_eval_specs "
        "order by spec_id") if r["spec_id"] in spec_ids]
    notes = []
    for r in specs:
        if r["unknown_weight_keys"]:
            notes.append(Paragraph(f"{r['spec_id']}: weight key(s) {r['unknown_weight_keys']} name no component and "
                                   "are ignored, so the other weights carry the composite. Check the spec.", "bad"))
        if r["unknown_threshold_keys"]:
            notes.append(Paragraph(f"{r['spec_id']}: threshold key(s) {r['unknown_threshold_keys']} name no "
                                   "component: a gate nobody can measure, so no model is promoted on this spec "
                                   "(undecided). Check the spec.", "bad"))
    # Every spec is named, a spec without a version too: left out, it read as if the note did not concern it.
    versioned = [f"{r['spec_id']} {r['version']}" if r["version"] else f"{r['spec_id']} (no version)" for r in specs]
    if any(r["version"] for r in specs):
        notes.append(Paragraph(
            f"Decided by each spec's current version ({fmt.join_words(versioned)}). Every week is decided by the "
            "current version: loading a new version re-decides past weeks, so an earlier report can differ.",
            "muted"))
    return notes

