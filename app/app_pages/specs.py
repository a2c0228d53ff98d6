"""Specs: per evaluation spec (a draft-standard evaluation specification or an ADP suite) and model, the composite
score with its interval and the promotion decision week by week, and each component with its interval and threshold
in the chosen week: the values that week's decision was made on. Results outside a component's scale decide
nothing ("out of scale"), and a gate whose threshold lies inside the component's interval is "within noise of the
threshold": neither its pass nor its fail is established by the week's samples."""

import altair as alt
import pandas as pd
import streamlit as st

import components as c
import db

# fct_promotion_decisions.no_interval_reason, as a chart's subtitle says it ("no 95% interval is drawn: ...").
NO_INTERVAL = {
    "latency percentile": "the composite weighs a latency percentile",
    "boolean composite": "the composite is boolean (pass or fail)",
    "a sample lacks a weighted score": "a sample lacks a weighted score",
    "fewer than 2 samples": "the composite is over fewer than 2 samples",
    "composite outside its scale": "the composite is outside its scale",
}
# The decisions as the weekly report words them (evalhouse/report/sections/promotions.py).
PROMOTED, NOT_PROMOTED = "promoted", "not promoted"
OUT_OF_SCALE, NEVER_DECIDED = "undecided: out of scale", "no threshold: never decided"
DECISION_COLOURS = {PROMOTED: c.GOOD, NOT_PROMOTED: c.BAD, OUT_OF_SCALE: c.WARN,
                    "undecided: threshold not measured": c.MUTED, "undecided: no composite": c.MUTED,
                    NEVER_DECIDED: c.MUTED}
BLACK_INTERVAL = "black: the composite's 95% interval"
WEEKLY_INTERVALS = "vertical lines: each week's 95% interval"
# fct_spec_scores_weekly.normalization, as a component chart's subtitle says it.
NORMALISED = {"scale": "from its scale's bounds", "pass_rate": "a pass rate",
              "latency_budget": "1 within its latency budget, else the budget over the latency"}


def no_interval_said(frame: pd.DataFrame, drawn: str) -> str:
    """What a composite chart says of its intervals: `drawn` (what the interval looks like) where every composite
    has one; where none has, that none is drawn and why; else which models' have none and why."""
    missing = frame[frame["composite_ci_low"].isna()]
    reasons = "; ".join(NO_INTERVAL.get(r, r) for r in dict.fromkeys(missing["no_interval_reason"].map(c.text_or))
                        if r) or "undefined"
    if missing.empty:
        return drawn
    if len(missing) == len(frame):
        return f"no 95% interval is drawn: {reasons}"
    return f"{drawn} (none for {', '.join(dict.fromkeys(missing['model_id']))}: {reasons})"

st.title("May this model version be promoted?")
st.caption(
    "A spec names the components a model is scored on (rubrics, metrics), how they combine into a **composite** "
    "score, and the threshold a model must reach to be **promoted**. A model is promoted when its composite reaches "
    "the spec's threshold and no component misses its own threshold."
)

specs = db.query(
    """
    select spec_id, spec_kind, name, description, version, n_versions, aggregation_method, weights,
           promotion_threshold, dataset_id, dataset_version, n_examples, n_components, n_unresolved_components,
           n_results, n_unmatched_results, n_models, first_week_start, last_week_start,
           n_unknown_weight_keys, unknown_weight_keys, n_unknown_threshold_keys, unknown_threshold_keys
    from marts.dim_eval_specs
    order by spec_kind, spec_id
    """
)
c.notes(specs)
if c.whole_warehouse_missing(specs) or c.empty_state(
        specs, "evaluation specs",
        "Ingest draft-standard evaluation specifications or ADP suites (with results that name them), then build."):
    st.stop()

frame = specs.frame
filters = c.Filters("specs")
left, right = st.columns([3, 2])
spec_id = filters.selectbox("Spec", list(frame["spec_id"]), param="spec", container=left)
spec = frame[frame["spec_id"] == spec_id].iloc[0]

decisions = db.query(
    """
    select model_id, week_start, aggregation_method, composite_score, composite_se, composite_ci_low,
           composite_ci_high, n_composite_samples, promotion_threshold, composite_meets_threshold, is_within_noise,
           no_interval_reason, is_promoted, decision_status, failing_components, n_failing_components,
           unmeasured_thresholds,
           out_of_scale_components, gates_within_noise, missing_components, n_components, n_components_scored,
           n_results
    from marts.fct_promotion_decisions
    where spec_id = ?
    order by week_start desc, model_id
    """,
    [spec_id],
)
c.notes(decisions)

decision_weeks = sorted({c.to_date(w) for w in decisions.frame["week_start"]}, reverse=True) \
    if not decisions.frame.empty else []
week = filters.week("Week", weeks=decision_weeks, container=right) if decision_weeks else None

with st.container(border=True):
    st.markdown(f"**{c.text_or(spec['name'], spec_id)}** · {c.said(spec['spec_kind'])}"
                + (f", version {spec['version']}" if not c.is_na(spec["version"]) else ""))
    if not c.is_na(spec["description"]):
        c.show_text("What it evaluates", spec["description"])
    facts = [
        "composite: " + (c.said(spec["aggregation_method"]) if not c.is_na(spec["aggregation_method"])
                         else "none (rubric-level scores only)"),
        "promotion threshold: " + (c.num(spec["promotion_threshold"]) if not c.is_na(spec["promotion_threshold"])
                                   else "none set"),
        c.plural(int(c.number_or(spec["n_components"])), "component"),
        f"{c.plural(int(c.number_or(spec['n_results'])), 'result')} from "
        f"{c.plural(int(c.number_or(spec['n_models'])), 'model')}",
    ]
    if not c.is_na(spec["dataset_id"]):
        version = c.text_or(spec["dataset_version"])
        facts.append(f"dataset {spec['dataset_id']}" + (f" {version}" if version else "")
                     + f" ({c.count(spec['n_examples'])} examples)")
    st.caption(" · ".join(facts))
    if c.number_or(spec["n_unresolved_components"]) > 0:
        n_unresolved = int(spec["n_unresolved_components"])
        st.warning(f"{c.plural(n_unresolved, 'rubric')} the spec references {'is' if n_unresolved == 1 else 'are'} "
                   "not loaded: their "
                   "scores have no scale, so they are shown raw but not normalised, they count as missing from the "
                   "composite, and a threshold on them is not measured: no decision. Ingest the rubric documents.",
                   icon=":material/warning:")
    if c.number_or(spec["n_unknown_weight_keys"]) > 0:
        n_keys = int(spec["n_unknown_weight_keys"])
        st.warning(f"{c.plural(n_keys, 'weight key')} {spec['unknown_weight_keys']} "
                   f"name{'s' if n_keys == 1 else ''} no component of this spec (a typo?): "
                   f"{'it is' if n_keys == 1 else 'they are'} ignored, and the other weights carry the composite. "
                   "Fix the spec.", icon=":material/warning:")
    if c.number_or(spec["n_unknown_threshold_keys"]) > 0:
        n_keys = int(spec["n_unknown_threshold_keys"])
        st.warning(f"{c.plural(n_keys, 'threshold key')} {spec['unknown_threshold_keys']} "
                   f"name{'s' if n_keys == 1 else ''} no component of this spec (a typo?): a gate nobody can "
                   "measure is not met, so no model is promoted on it (undecided). Fix the spec.",
                   icon=":material/warning:")
    if spec["spec_kind"] == "ieee_evaluation":
        st.caption("Every week is decided by this version: loading a new version re-decides past weeks.")
    if c.number_or(spec["n_unmatched_results"]) > 0:
        n_unmatched = int(spec["n_unmatched_results"])
        st.warning(f"{c.plural(n_unmatched, 'result record')} name{'s' if n_unmatched == 1 else ''} this spec but none "
                   "of its components "
                   "(an unknown rubric_id or metric_id): they are not scored. Fix the records.",
                   icon=":material/warning:")

# -- the decisions ---------------------------------------------------------------------------------------------------
st.subheader("The decision, per model")
if week is None:
    c.empty_state(decisions, f"scored results for {spec_id}", "Results name a spec by evaluation_name (draft "
                  "standard) or metadata.suite_id (ADP); ingest some and build.")
else:
    d = decisions.frame.copy()
    d["week"] = d["week_start"].map(c.to_date)
    now = d[d["week"] == week].copy()

    def _decision(row: pd.Series) -> str:
        """The decision in the weekly report's words (evalhouse/report/sections/promotions.py), so the two agree."""
        if row["decision_status"] == "out of scale":
            return OUT_OF_SCALE
        if c.is_true(row["is_promoted"]):
            return PROMOTED
        if c.is_false(row["is_promoted"]):
            return NOT_PROMOTED
        if c.is_na(row["promotion_threshold"]):
            return NEVER_DECIDED
        if row["decision_status"] == "threshold not measured":
            return "undecided: threshold not measured"
        return "undecided: no composite"

    def _why(row: pd.Series) -> str:
        """The decision's reason, the composite's verdict first: a composite that reaches the threshold is said to,
        so "not promoted" beside it reads as what it is (a component that misses its own threshold)."""
        reasons = []
        if row["decision_status"] == "out of scale":
            reasons.append(f"undecided: results outside their scale on {row['out_of_scale_components']} (check them: "
                           "nothing passes on invalid data)")
        composite = f"composite {c.num(row['composite_score'], 3)}"
        threshold = c.num(row["promotion_threshold"])
        failing = c.number_or(row["n_failing_components"]) > 0
        if c.is_false(row["composite_meets_threshold"]):
            reasons.append(f"{composite} below {threshold}")
            if failing:
                reasons.append(f"misses its own threshold: {row['failing_components']}")
        elif c.is_true(row["composite_meets_threshold"]) and failing:
            reasons.append(f"{composite} reaches {threshold}, but misses its own threshold: "
                           f"{row['failing_components']}")
        elif c.is_true(row["composite_meets_threshold"]) and c.is_true(row["is_promoted"]):
            reasons.append(f"{composite} reaches {threshold} and every component its own threshold")
        elif failing:
            reasons.append(f"misses its own threshold: {row['failing_components']}")
        if c.text_or(row["unmeasured_thresholds"]) and not c.is_false(row["is_promoted"]):
            reasons.append(f"undecided: threshold not measured this week for {row['unmeasured_thresholds']}")
        if c.is_na(row["promotion_threshold"]):
            reasons.append("n/a: the spec sets no promotion threshold")
        if c.is_na(row["composite_score"]) and c.text_or(row["missing_components"]):
            reasons.append(f"n/a: no results this week for {row['missing_components']}")
        elif c.is_na(row["composite_score"]) and c.is_na(row["aggregation_method"]):
            reasons.append("n/a: the spec defines no composite")
        if c.is_true(row["is_within_noise"]):
            reasons.append("the composite within noise of the threshold")
        gates = [g.strip() for g in c.text_or(row["gates_within_noise"]).split(",") if g.strip()]
        if gates:
            reasons.append(f"the gate on {gates[0]} within noise of its threshold" if len(gates) == 1 else
                           f"the gates on {', '.join(gates)} within noise of their thresholds")
        return "; ".join(reasons) or "composite reaches the threshold and every component its own"

    def _noise(row: pd.Series) -> str:
        if c.is_na(row["promotion_threshold"]):
            return "n/a: no threshold"
        if row["decision_status"] == "out of scale":
            return "n/a: out of scale"
        if c.is_na(row["is_within_noise"]):
            return f"n/a: no interval ({row['no_interval_reason']})" if c.text_or(row["no_interval_reason"]) \
                else "n/a: no interval"
        return "within noise of the threshold" if c.is_true(row["is_within_noise"]) else "clear of the threshold"

    now["decision"] = now.apply(_decision, axis=1)
    now["why"] = now.apply(_why, axis=1)
    now["noise"] = now.apply(_noise, axis=1)
    now["gates_noise"] = [f"{g}: within noise of the threshold" if c.text_or(g) else "none"
                          for g in now["gates_within_noise"]]
    now["composite_shown"] = [c.with_interval(v, lo, hi, digits=3) for v, lo, hi in
                              zip(now["composite_score"], now["composite_ci_low"], now["composite_ci_high"])]
    st.caption(c.week_caption(week, decision_weeks) + " Component thresholds and the composite use that week's "
               "results only. The composite's 95% interval takes the sample as the unit; where it holds the "
               "threshold the verdict is within noise: the spec's rule still decides, but next week's samples may "
               "not agree. No interval where the composite weighs a latency percentile or has no composite. A "
               "component gate is within noise of its threshold when the threshold lies inside that component's "
               "own interval: its pass or fail is not established by the week's samples. Decisions are worded as "
               "the weekly report words them: promoted, not promoted, undecided (results out of scale, a threshold "
               "not measured, no composite) or, for a spec that sets no promotion threshold, never decided.")
    off_scale = now[now["decision_status"] == "out of scale"]
    if not off_scale.empty:
        st.warning(f"{len(off_scale)} of {c.plural(len(now), 'row')} in {c.iso_week(week)} "
                   f"{'is' if len(off_scale) == 1 else 'are'} not decided: results outside "
                   "their component's declared scale (not clipped; check the results): "
                   + ", ".join(f"{m} ({comps})" for m, comps in
                               zip(off_scale["model_id"], off_scale["out_of_scale_components"]))
                   + ".", icon=":material/warning:")
    within = now[now["is_within_noise"].map(c.is_true) & now["n_failing_components"].eq(0)
                 & now["decision"].isin([PROMOTED, NOT_PROMOTED])]
    if not within.empty:
        st.info(f"{len(within)} of {c.plural(len(now), 'verdict')} in {c.iso_week(week)} "
                f"{'is' if len(within) == 1 else 'are'} within noise of the threshold: "
                + ", ".join(f"{m} ({d}, {v})" for m, d, v in
                            zip(within["model_id"], within["decision"], within["composite_shown"]))
                + ".", icon=":material/info:")
    gated = now[now["gates_within_noise"].map(c.text_or).astype(bool) & now["decision"].isin(
        [PROMOTED, NOT_PROMOTED])]
    if not gated.empty:
        st.info(f"{len(gated)} of {c.plural(len(now), 'verdict')} in {c.iso_week(week)} "
                f"rest{'s' if len(gated) == 1 else ''} on a component gate within noise "
                "of its threshold: " + ", ".join(f"{m} ({d}; {g})" for m, d, g in
                                                zip(gated["model_id"], gated["decision"], gated["gates_within_noise"]))
                + ".", icon=":material/info:")
    scored = now.dropna(subset=["composite_score"])
    if not scored.empty:
        threshold = spec["promotion_threshold"]
        with_ci = scored.dropna(subset=["composite_ci_low", "composite_ci_high"])
        drawn = not with_ci.empty
        shown_decisions = [d for d in DECISION_COLOURS if d in set(scored["decision"])]
        tooltip = ["model_id", alt.Tooltip("composite_shown:N", title="composite [95% interval]"), "decision",
                   alt.Tooltip("noise:N", title="against the threshold"),
                   alt.Tooltip("gates_noise:N", title="component gates"), "why",
                   alt.Tooltip("n_composite_samples:Q", title="n samples"),
                   alt.Tooltip("n_results:Q", title="n results"),
                   alt.Tooltip("n_components_scored:Q", title="components scored")]
        bars = alt.Chart(scored).mark_bar().encode(
            y=alt.Y("model_id:N", title=None, axis=alt.Axis(labelLimit=320)),
            x=alt.X("composite_score:Q", title="composite score (0 to 1)" + (", 95% interval" if drawn else ""),
                    scale=alt.Scale(domain=[0, max(1.0, float(scored["composite_score"].max()))])),
            color=alt.Color("decision:N", title=None,
                            # The decisions shown, each in its colour on every spec and week.
                            scale=alt.Scale(domain=shown_decisions,
                                            range=[DECISION_COLOURS[d] for d in shown_decisions]),
                            legend=alt.Legend(orient="bottom", labelLimit=400)),
            tooltip=tooltip,
        )
        layers = [bars]
        if drawn:
            layers.append(alt.Chart(with_ci).mark_rule(color="black", strokeWidth=2).encode(
                y="model_id:N", x="composite_ci_low:Q", x2="composite_ci_high:Q", tooltip=tooltip))
        if not c.is_na(threshold):
            layers.append(alt.Chart(scored).mark_rule(color="black", strokeDash=[4, 4]).encode(
                x=alt.datum(float(threshold))))
        c.show_chart(alt.layer(*layers).properties(height={"step": 34}, title=c.title(
            f"Which models may be promoted on {spec_id} ({c.iso_week(week)})?",
            f"Dashed: the promotion threshold; {no_interval_said(scored, BLACK_INTERVAL)}. A model above the "
            "threshold is still not promoted when a component misses its own threshold (see why).")))
    threshold_said = (f"The spec's promotion threshold is {c.num(spec['promotion_threshold'])}."
                      if not c.is_na(spec["promotion_threshold"]) else "The spec sets no promotion threshold.")
    c.table(
        pd.DataFrame({
            # The reason third, whole: seventh, then 500 px on one line, it was cut off at 1400 px. The threshold is
            # the spec's (the card above, each reason, the composite's help), not a column of its own.
            "model": now["model_id"], "decision": now["decision"], "why": now["why"],
            "composite [95% interval]": now["composite_shown"],
            "against the threshold": now["noise"], "component gates within noise": now["gates_noise"],
            "components scored": [f"{a} of {b}" for a, b in zip(now["n_components_scored"], now["n_components"])],
            "n samples": now["n_composite_samples"],
        }),
        key=["model"], row_height=c.THREE_LINE_ROW_PX,  # a reason on one line was cut off at 1400 px
        height=c.wrapped_table_height(len(now), c.THREE_LINE_ROW_PX),
        column_config={
            "why": st.column_config.TextColumn(
                width="large", help="The composite against the threshold first, then each component that misses "
                                    "its own threshold, then what is within noise. " + threshold_said),
            "composite [95% interval]": st.column_config.TextColumn(
                width=170, help="The composite score over the week's samples, its 95% interval in brackets where "
                                "it has one. " + threshold_said),
            "n samples": st.column_config.NumberColumn(help="The samples the composite and its interval are over.")},
    )

    trend = d.dropna(subset=["composite_score"])
    if trend["week"].nunique() > 1:
        lines = alt.Chart(trend).mark_line(point=True).encode(
            x=c.week_x(trend["week_start"]),
            y=alt.Y("composite_score:Q", title="composite score"),
            color=alt.Color("model_id:N", title=None, scale=c.model_colors(trend["model_id"].unique()),
                            legend=c.legend(trend["model_id"].unique())),
            tooltip=["model_id", c.week_tooltip(),
                     alt.Tooltip("composite_score:Q", format=".3f"),
                     alt.Tooltip("composite_ci_low:Q", title="95% interval from", format=".3f"),
                     alt.Tooltip("composite_ci_high:Q", title="to", format=".3f"),
                     alt.Tooltip("is_promoted:N", title="promoted"),
                     alt.Tooltip("is_within_noise:N", title="within noise of the threshold"),
                     alt.Tooltip("n_results:Q", title="n results")],
        )
        layers = [lines]
        trend_ci = trend.dropna(subset=["composite_ci_low", "composite_ci_high"])
        if not trend_ci.empty:
            layers.append(alt.Chart(trend_ci).mark_rule(opacity=0.5).encode(
                x=c.week_x(trend["week_start"]), y="composite_ci_low:Q", y2="composite_ci_high:Q",
                color=alt.Color("model_id:N", scale=c.model_colors(trend["model_id"].unique()), legend=None)))
        if not c.is_na(spec["promotion_threshold"]):
            layers.append(alt.Chart(trend).mark_rule(color="black", strokeDash=[4, 4]).encode(
                y=alt.datum(float(spec["promotion_threshold"]))))
        c.show_chart(alt.layer(*layers).properties(height=280, title=c.title(
            f"How has each model's composite on {spec_id} moved week by week?",
            f"Dashed: the promotion threshold; {no_interval_said(trend, WEEKLY_INTERVALS)}.")))

# -- each component, in the chosen week -------------------------------------------------------------------------------
# The values the week's decision was made on (fct_spec_scores_weekly): fct_spec_scores pools every week, and a
# component can miss its threshold there yet meet it in every week's decision.
st.subheader("Each component, per model" + (f" ({c.iso_week(week)})" if week is not None else ""))
scores = db.query(
    """
    select model_id, component_id, component_kind, scored_by, component_index, normalization, raw_value,
           normalized_value, ci_low, ci_high, interval_method, weight, stated_weight, threshold, normalized_threshold,
           threshold_direction, meets_threshold, is_within_noise, n, n_results, n_results_out_of_scale,
           computed_raw_value, n_computed_samples, n_disagreements
    from marts.fct_spec_scores_weekly
    where spec_id = ? and week_start = ?
    order by component_index, model_id
    """,
    [spec_id, week],
) if week is not None else None
if scores is not None:
    c.notes(scores)
if scores is not None and not c.empty_state(scores, f"component scores for {spec_id} in {c.iso_week(week)}"):
    st.caption("That week's results only: the values its decisions were made on (a component marked as missing "
               "its threshold here is one the decision names).")
    s = scores.frame.copy()
    s["shown"] = [c.with_interval(v, lo, hi, digits=3) for v, lo, hi in
                  zip(s["normalized_value"], s["ci_low"], s["ci_high"])]
    # Out of scale first: such a component has no verdict, and "threshold not measured" would misname why.
    s["verdict"] = ["out of scale" if c.number_or(o) > 0 else "no threshold" if c.is_na(t)
                    else "threshold not measured" if c.is_na(m)
                    else "meets its threshold" if m else "misses its threshold"
                    for o, t, m in zip(s["n_results_out_of_scale"],
                                       s["threshold"].where(s["threshold"].notna(), s["normalized_threshold"]),
                                       s["meets_threshold"])]
    # A rubric's scoring method in words ("exact match", "LLM judge"); an ADP component's is data (its function, judge
    # model or telemetry metric: json_schema, gpt-4.2, p95_latency_ms), shown as the suite names it.
    s["scored_by_said"] = [c.said(v) if k == "rubric" else c.text_or(v, c.NA)
                           for v, k in zip(s["scored_by"], s["component_kind"])]
    s["gate_noise"] = ["n/a" if c.is_na(w) else "within noise of the threshold" if w else "clear of the threshold"
                       for w in s["is_within_noise"]]
    outside = s[s["n_results_out_of_scale"].fillna(0) > 0]
    if not outside.empty:
        st.warning("Results outside their component's own scale (not clipped; check the results; no threshold "
                   "verdict and no promotion decision rests on them): "
                   + ", ".join(f"{m} on {comp} ({c.count(k)} of {c.count(n)} results, normalised value "
                               f"{c.num(v, 3)})" for m, comp, k, n, v in
                               zip(outside["model_id"], outside["component_id"], outside["n_results_out_of_scale"],
                                   outside["n_results"], outside["normalized_value"]))
                   + ".", icon=":material/warning:")
    plotted = s.dropna(subset=["normalized_value"])
    if not plotted.empty:
        # One chart per component, two to a row at 1400 px and one at 900 (c.panels): Streamlit fits a single or
        # layered chart to its column, never a faceted one, whose fixed-width panels ran past the page at 1400 px;
        # in half of a 900 px page, st.columns left a chart's plot a few pixels beside the models' names.
        component_order = list(dict.fromkeys(plotted.sort_values("component_index")["component_id"]))
        tooltip = ["model_id", "component_id", alt.Tooltip("scored_by_said:N", title="scored by"),
                   alt.Tooltip("shown:N", title="normalised [95% interval]"),
                   alt.Tooltip("raw_value:Q", title="raw value", format=".3f"), alt.Tooltip("n:Q", title="n"),
                   alt.Tooltip("weight:Q", title="weight", format=".2f"), "verdict",
                   alt.Tooltip("gate_noise:N", title="against its threshold")]
        verdict_colours = {"meets its threshold": c.GOOD, "misses its threshold": c.BAD, "out of scale": c.WARN,
                           "threshold not measured": c.MUTED, "no threshold": "#1f77b4"}

        def component_chart(rows: pd.DataFrame, component: str) -> alt.LayerChart:
            """The component's normalised value per model, its 95% interval where it has one, its threshold."""
            with_ci = rows.dropna(subset=["ci_low", "ci_high"])
            shown = [v for v in verdict_colours if v in set(rows["verdict"])]  # a legend of what is drawn only
            colour = alt.Color("verdict:N", title=None, legend=c.legend(shown),
                               scale=alt.Scale(domain=shown, range=[verdict_colours[v] for v in shown]))
            y = alt.Y("model_id:N", title=None, axis=alt.Axis(labelLimit=220))
            x_title = "normalised score (0 to 1)" + (", 95% interval" if not with_ci.empty else "")
            layers = []
            if not with_ci.empty:
                layers.append(alt.Chart(with_ci).mark_rule(strokeWidth=2).encode(
                    y=y, x=alt.X("ci_low:Q", title=x_title, scale=alt.Scale(domain=[0, 1])), x2="ci_high:Q",
                    color=colour, tooltip=tooltip))
            layers.append(alt.Chart(rows).mark_point(filled=True, size=70).encode(
                y=y, x=alt.X("normalized_value:Q", title=x_title, scale=alt.Scale(domain=[0, 1])), color=colour,
                tooltip=tooltip))
            thresholds = rows.dropna(subset=["normalized_threshold"])
            if not thresholds.empty:
                layers.append(alt.Chart(thresholds).mark_tick(color="black", thickness=2).encode(
                    y=y, x="normalized_threshold:Q"))
            rules = [NORMALISED.get(r, r) for r in dict.fromkeys(rows["normalization"].dropna())]
            said = ["Normalised to 0-1" + (f": {', '.join(rules)}" if rules else "")]
            said.append("black tick: its own threshold" if not thresholds.empty else "no threshold of its own")
            if with_ci.empty:
                said.append("no 95% interval" + (": a latency percentile has none"
                                                  if set(rows["normalization"]) == {"latency_budget"} else ""))
            elif len(with_ci) < len(rows):
                said.append("line: the 95% interval (none for "
                            + ", ".join(rows[rows["ci_low"].isna()]["model_id"]) + ")")
            else:
                said.append("line: the 95% interval")
            return alt.layer(*layers).properties(height={"step": 24}, title=c.title(
                f"How does each model do on {component}?", "; ".join(said) + "."))

        c.panels([component_chart(plotted[plotted["component_id"] == component], component)
                  for component in component_order], per_row=2)
    c.table(
        pd.DataFrame({
            # The verdict and what it compares (the raw value against the threshold) after the component and model:
            # ninth, the threshold was cut to its first letter at 1400 px. What the component is comes last.
            "component": s["component_id"], "model": s["model_id"], "verdict": s["verdict"],
            # A telemetry metric that is not a latency (cost, tokens) has results but no value the warehouse reads.
            "raw value": [c.num(v, 3) if not c.is_na(v) else "n/a: no results" if not n_results
                          else "n/a: not measured (not a latency)" for v, n_results in zip(s["raw_value"],
                                                                                          s["n_results"])],
            "threshold": [("n/a" if c.is_na(t) else f"{'>=' if dirn == 'at_least' else '<='} {c.num(t, 3)}")
                          for t, dirn in zip(s["threshold"], s["threshold_direction"])],
            "normalised [95% interval]": s["shown"], "against its threshold": s["gate_noise"],
            "weight": [c.num(v) for v in s["weight"]], "n": s["n"],
            "kind": s["component_kind"].map(c.said), "scored by": s["scored_by_said"],
            "normalisation": [c.said(v) if not c.is_na(v) else "n/a: not normalisable" for v in s["normalization"]],
            "recomputed": [c.num(v, 3) for v in s["computed_raw_value"]],
            "reported vs recomputed disagreements": s["n_disagreements"],
        }),
        key=["component", "model"],
        column_config={
            "verdict": st.column_config.TextColumn(
                help="The week's raw value against the component's own threshold; out of scale where a result lies "
                     "outside the component's scale (no verdict then)."),
            "raw value": st.column_config.TextColumn(help="In the component's own unit: the threshold's."),
            "threshold": st.column_config.TextColumn(
                help="The component's own threshold in its own unit (>= at least, <= at most); n/a where it has "
                     "none."),
            "against its threshold": st.column_config.TextColumn(
                help="Within noise where the threshold lies inside the component's 95% interval: the week's "
                     "samples do not establish its pass or fail."),
        },
    )
    if int(s["n_disagreements"].fillna(0).sum()) > 0:
        rescores = db.query(
            """
            select model_id, rubric_id, sample_id, reported_score, computed_score, output_text, expected_outputs,
                   source_path, source_line
            from marts.fct_rubric_rescores
            where spec_id = ? and week_start = ? and disagrees
            order by model_id, rubric_id, sample_id
            """,
            [spec_id, week],
        )
        c.notes(rescores)
        if not rescores.frame.empty:
            st.caption("Results whose reported score differs from the score recomputed from the output "
                       "(exact and regex match rubrics):")
            c.table(rescores.frame, key=["model_id", "rubric_id", "sample_id"],
                    column_config={"output_text": st.column_config.TextColumn("output", width="large")})
