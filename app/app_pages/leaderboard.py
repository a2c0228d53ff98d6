"""Leaderboard: benchmark results per model with their 95% intervals, what the harness reported beside what the
warehouse computed from the trials, filtered by eval, model and date, with a CSV of what is shown; and whether one
model is ahead of another on the samples both answered in a week (fct_model_comparisons), which scores side by side
cannot tell."""

import altair as alt
import pandas as pd
import streamlit as st

import components as c
import db
from evalhouse.report import changes as model_changes

# The weekly report's name for the computed accuracy: the share of trials marked as passed, which is accuracy only
# where the metric is (a latency within budget, a judge's pass verdict...).
PASS_RATE = "pass rate"
# The minimums the comparisons were tested with (marts.rpt_build_settings), as the report quotes them.
MINIMUMS = db.build_settings()

st.title("Benchmark results per model")
st.caption(
    "Each eval run's score with its 95% interval. **Reported** is what the harness published in its aggregate record; "
    "**computed** is what the warehouse computes from the run's own trials (each sample's trials averaged first, "
    "the error taken over samples), one metric at a time: an eval whose responses are scored on several rubrics or "
    "metrics shows each (eval · metric). A gap between the two is worth a look. n samples is the samples a score is "
    "over, and its interval's n; a reported run's says of how many in its dataset (\"3 of 2,376\") where the record "
    "gives that."
)

options = db.query(
    """
    select evaluation_name, model_id, metric_name,
           min(cast(evaluated_at as date)) as first_day, max(cast(evaluated_at as date)) as last_day
    from marts.fct_benchmark_results
    group by evaluation_name, model_id, metric_name
    """
)
c.notes(options)
if c.whole_warehouse_missing(options) or c.empty_state(options, "benchmark results", c.HOW_TO_START):
    st.stop()

frame = options.frame
filters = c.Filters("leaderboard")
left, middle, right, far = st.columns([3, 3, 2, 3])
evaluations = filters.multiselect("Evals", sorted(frame["evaluation_name"].unique()), param="evaluation",
                                  container=left, placeholder="All evals")
models = filters.multiselect("Models", sorted(frame["model_id"].unique()), param="model", container=middle,
                             placeholder="All models")
metrics = sorted(frame["metric_name"].unique())
metric = filters.selectbox("Metric", metrics, param="metric",
                           index=metrics.index("accuracy") if "accuracy" in metrics else 0,
                           container=right, format_func=lambda m: f"{PASS_RATE} ({m})" if m == "accuracy" else m,
                           help=f"{PASS_RATE} (the metric accuracy), as the weekly report names it: the share of "
                                "trials the source marked as passed, whatever the metric (for accuracy a correct "
                                "answer, for a judge's or a rubric's metric its pass verdict, for latency a response "
                                "within budget): it is accuracy only where the metric is. mean_score: the mean of "
                                "the per-sample scores. Other metrics are the harness's own.")
# How the charts name the chosen metric: the report's "pass rate" for accuracy, else the metric's own name.
metric_label = PASS_RATE if metric == "accuracy" else metric
first_day, last_day = c.to_date(frame["first_day"].min()), c.to_date(frame["last_day"].max())
# In the URL (?from=...&to=...): the Overview links a week's score to that week's runs.
start, end = filters.dates("Evaluated between", first=first_day, last=last_day, container=far,
                           help="The day each run was evaluated (UTC).")

results = db.query(
    """
    select
        evaluation_name, trial_metric, model_id, metric_name, result_origin, run_id, score, standard_error, ci_low,
        ci_high, interval_method, n_samples, dataset_n_samples, lower_is_better, evaluated_at, week_start
    from marts.fct_benchmark_results
    where metric_name = ?
        and list_contains(?, evaluation_name)
        and list_contains(?, model_id)
        and cast(evaluated_at as date) between ? and ?
    order by evaluation_name, trial_metric, model_id, evaluated_at
    """,
    [metric, evaluations or sorted(frame["evaluation_name"].unique()), models or sorted(frame["model_id"].unique()),
     start, end],
)
c.notes(results)
if c.empty_state(results, f"{metric} results for this selection", "Widen the filters (evals, models, dates)."):
    st.stop()

# Every metric each run has, reported and computed: what the table's "why n/a" names when the chosen one is missing.
named = db.query(
    """
    select distinct evaluation_name, trial_metric, model_id, run_id, result_origin, metric_name
    from marts.fct_benchmark_results
    where list_contains(?, evaluation_name)
        and list_contains(?, model_id)
        and cast(evaluated_at as date) between ? and ?
    """,
    [evaluations or sorted(frame["evaluation_name"].unique()), models or sorted(frame["model_id"].unique()),
     start, end],
)
c.notes(named)
other_metrics = {} if named.frame.empty else {
    key: sorted(set(group["metric_name"]) - {metric})
    for key, group in named.frame.groupby(["evaluation_name", "trial_metric", "model_id", "run_id", "result_origin"])
}

runs = results.frame
runs["origin"] = runs["result_origin"]
# An eval scored on one metric keeps its name; one scored on several is shown per metric (never averaged together).
several = runs.groupby("evaluation_name")["trial_metric"].transform("nunique") > 1
runs["eval"] = runs["evaluation_name"].where(~several, runs["evaluation_name"] + " · " + runs["trial_metric"])
lower_is_better = bool(runs["lower_is_better"].fillna(False).any())


def samples_of(n: object, dataset_n: object) -> str:
    """'3 of 2,376': the samples a score is over, of its dataset's (a reported run's, when the record says)."""
    return c.count(n) if c.is_na(dataset_n) else f"{c.count(n)} of {c.count(dataset_n)}"


runs["samples"] = [samples_of(n, d) for n, d in zip(runs["n_samples"], runs["dataset_n_samples"])]

# -- the latest run in the range, per model and eval (and metric) -----------------------------------------------
latest_run = (runs.sort_values("evaluated_at").groupby(["eval", "model_id"])["run_id"].last()
              .rename("latest_run_id").reset_index())
latest = runs.merge(latest_run, on=["eval", "model_id"])
latest = latest[latest["run_id"] == latest["latest_run_id"]].copy()
latest["shown"] = latest.apply(lambda r: c.with_interval(r["score"], r["ci_low"], r["ci_high"]), axis=1)
latest["run_day"] = latest["evaluated_at"].dt.strftime("%Y-%m-%d")
n_models = latest["model_id"].nunique()
chart = c.interval_chart(
    latest, value="score", low="ci_low", high="ci_high", y="model_id", y_title=None,
    question=f"Which model scores best on each eval ({metric_label})?",
    subtitle=f"The latest run of each model from {start:%d %b} to {end:%d %b %Y}; bars are 95% intervals. "
             + ("Lower is better." if lower_is_better else "Higher is better."),
    x_title=f"{metric_label} (95% interval)", color="origin", color_title="result",
    color_scale=alt.Scale(domain=["reported", "computed"], range=["#9aa5b1", "#1f77b4"]), offset="origin",
    facet="eval", facet_title=None, domain=(0, 1) if metric == "accuracy" else None,
    tooltip=["eval", "model_id", "origin", alt.Tooltip("shown:N", title=metric_label),
             alt.Tooltip("samples:N", title="n samples"), alt.Tooltip("interval_method:N", title="interval"),
             alt.Tooltip("run_day:N", title="evaluated"), "run_id"],
)
c.show_chart(chart)

# -- scores over the range ----------------------------------------------------------------------------------------
computed = runs[runs["result_origin"] == "computed"]
if computed["run_id"].nunique() > computed["model_id"].nunique():
    eval_for_trend = filters.selectbox("Trend of", sorted(computed["eval"].unique()), param="trend",
                                 help="Which eval's runs to follow over time.")
    trend = computed[computed["eval"] == eval_for_trend].copy()
    trend["shown"] = trend.apply(lambda r: c.with_interval(r["score"], r["ci_low"], r["ci_high"]), axis=1)
    base = alt.Chart(trend).encode(
        x=alt.X("evaluated_at:T", title="evaluated (UTC)", axis=alt.Axis(format="%d %b")),
        tooltip=["model_id", alt.Tooltip("evaluated_at:T", title="evaluated"),
                 alt.Tooltip("shown:N", title=metric_label), alt.Tooltip("n_samples:Q", title="n samples"), "run_id"],
    )
    band = base.mark_area(opacity=0.2).encode(y=alt.Y("ci_low:Q", title=f"{metric_label} (computed)"),
                                              y2="ci_high:Q")
    line = base.mark_line(point=True).encode(y=alt.Y("score:Q", title=f"{metric_label} (computed)"))
    trend_chart = alt.layer(band, line).properties(height=160, width=190).facet(
        facet=alt.Facet("model_id:N", title=None, header=alt.Header(labelFontWeight="bold", labelAnchor="start")),
        columns=4,
    )
    c.show_chart(trend_chart.properties(
        title=c.title(f"Has any model's {eval_for_trend} score moved over time?",
                      "Computed from each run's trials; the band is the 95% interval.")))

# -- two models on the same samples ----------------------------------------------------------------------------------

def comparison_verdict(r: dict, *, named: bool = True) -> str:
    """The verdict on model A against model B in the weekly report's words (evalhouse/report/changes.py: "no
    significant change", "too few changed samples to test"), said of two models on the same samples instead of one
    model's two weeks. An untested pair (is_significant NULL) says why, with the minimum it missed. `named`: the
    two models named ("Better: A is ahead of B"), which a table's row names already."""
    a, b = r["model_id"], r["other_model_id"]
    if r["is_better"] is True:
        return f"Better: {a} is ahead of {b}" if named else "Better"
    if r["is_worse"] is True:
        return f"Worse: {a} is behind {b}" if named else "Worse"
    if r["is_significant"] is not None:
        return "no significant difference"
    n_shared, n_differ = int(r["n_shared_samples"]), int(r["n_better"]) + int(r["n_worse"])
    why = model_changes.why_untested(n_compared=n_shared, n_changed=n_differ,
                                     is_sign_test=r["comparison_test"] == "sign test", statistic=r["t_statistic"],
                                     settings=MINIMUMS)
    return {
        model_changes.NO_CHANGE: "no sample differs: nothing to test",
        model_changes.FEW_SAMPLES: (f"too few samples to test ({n_shared} shared; a verdict needs "
                                    f"{MINIMUMS.model_change_min_samples})"),
        model_changes.FEW_CHANGED: (f"too few samples that differ to test ({n_differ} differ; a verdict needs "
                                    f"{MINIMUMS.model_change_min_changed_samples})"),
        model_changes.NO_VARIATION: "no variation: every shared sample differs by the same amount, so t is undefined",
    }.get(why, "not tested")


def statistic(r: dict) -> str:
    """The test and its statistic: 'sign test, p = 0.03' or 'paired t, t = +2.13', the statistic in brackets when
    the pair was not tested ('sign test (p = 0.50)'), as the report's test_statistic gives it."""
    shown = model_changes.test_statistic({"change_test": r["comparison_test"], "change_z": r["t_statistic"],
                                          "sign_test_p": r["sign_test_p"], "is_significant": r["is_significant"]})
    return f"{r['comparison_test']}{' ' if shown.startswith('(') else ', '}{shown}"


def compare_two_models() -> None:
    """Model A against model B on the samples both answered in a week (fct_model_comparisons), for one eval and
    trial metric: the paired difference with its 95% interval, its n, the verdict, and every pair of that week."""
    st.subheader("On the same samples, is one model ahead of another?")
    st.caption(
        "Two models' pass rates side by side can overlap while one is clearly ahead, or differ on samples the other "
        "never answered. This compares them on the samples both answered in the week: each sample's trials of the "
        "week averaged first, then the difference per sample, A minus B, averaged, with its 95% interval (Student's "
        "t on n - 1 degrees of freedom). The verdict is the weekly report's test: an exact sign test on the samples "
        f"that differ where every score is 0 or 1, else Student's t; no verdict on fewer than "
        f"{MINIMUMS.model_change_min_samples} shared samples or fewer than "
        f"{MINIMUMS.model_change_min_changed_samples} samples that differ (the build's settings). Its own eval and "
        "week, whatever the dates above. Many pairs tested at once: about one pair of equal models in twenty reads "
        "as significant, so a surprising verdict wants a second week.")
    weekly = db.query(
        """
        -- Each model's pass rate per eval, trial metric and week, over the week's runs as fct_model_comparisons
        -- counts them: what the pickers offer and the order of the models (the best first).
        select evaluation_name, trial_metric, week_start, model_id, n_samples, accuracy
        from marts.rpt_weekly_model_changes
        """
    )
    c.notes(weekly)
    if c.empty_state(weekly, "weekly pass rates to compare models on",
                     "Comparisons appear when instance-level eval records are ingested and built."):
        return
    wf = weekly.frame
    evaluations_scored = sorted(wf["evaluation_name"].unique())
    # Open on an eval chosen above, if any has weekly results; else the first.
    chosen_above = [e for e in evaluations_scored if e in evaluations]
    pick = st.columns([3, 2, 2])
    evaluation = filters.selectbox("Eval", evaluations_scored, param="pair_eval", container=pick[0],
                                   index=evaluations_scored.index(chosen_above[0]) if chosen_above else 0)
    of_eval = wf[wf["evaluation_name"] == evaluation]
    trial_metrics = sorted(of_eval["trial_metric"].unique())
    if len(trial_metrics) > 1:
        trial_metric = filters.selectbox("Scored on", trial_metrics, param="pair_metric", container=pick[1],
                                         help="The eval's responses are scored on several metrics (rubrics): "
                                              "models are compared on one at a time.")
    else:
        trial_metric = trial_metrics[0]
        pick[1].selectbox("Scored on", trial_metrics, disabled=True, key="leaderboard.pair_metric_only",
                          help="The one metric this eval's trials are scored on.")
    of_metric = of_eval[of_eval["trial_metric"] == trial_metric]
    week = filters.week("Week", weeks=sorted({c.to_date(w) for w in of_metric["week_start"]}, reverse=True),
                        container=pick[2])
    week_text = c.iso_week(week)
    of_week = of_metric[of_metric["week_start"].map(c.to_date) == week]
    ranked = of_week.sort_values(["accuracy", "model_id"], ascending=[False, True], na_position="last")
    # The leaderboard's best two by default, or the models chosen above first.
    order = [m for m in ranked["model_id"] if m in models] + [m for m in ranked["model_id"] if m not in models]
    rate = {m: f"{PASS_RATE} {c.num(a)}, n={c.count(n)}" for m, a, n in
            zip(ranked["model_id"], ranked["accuracy"], ranked["n_samples"])}
    if len(order) < 2:
        st.info(f"No comparison for {evaluation} ({trial_metric}) in {week_text}: only {order[0]} has scored trials "
                "that week, and a comparison needs two models on the same samples. Pick another week or eval.",
                icon=":material/info:")
        return
    # A row of their own: model names with their pass rate are long, and were cut short beside the eval and week.
    sides = st.columns(2)
    model_a = filters.selectbox("Model A", order, param="model_a", container=sides[0],
                                format_func=lambda m: f"{m} ({rate[m]})",
                                help=f"Ordered by the week's {PASS_RATE}, the best first (the models chosen above "
                                     "first).")
    model_b = filters.selectbox("Model B", [m for m in order if m != model_a], param="model_b", container=sides[1],
                                format_func=lambda m: f"{m} ({rate[m]})")
    st.caption(c.week_caption(week, sorted({c.to_date(w) for w in of_metric["week_start"]})))

    pairs = db.query(
        """
        -- The week's pairs of this eval and metric. The view is computed when read, whole (its CTEs are materialised,
        -- so these filters do not reach its scan of the trials): 160 ms on the benchmark's 1,000,000 trials; db.py
        -- keeps the result until the next build.
        select model_id, other_model_id, n_shared_samples, score, other_score, mean_difference, difference_se,
               difference_ci_low, difference_ci_high, paired_correlation, n_better, n_worse, comparison_test,
               t_statistic, critical_value, sign_test_p, is_significant, is_better, is_worse
        from marts.fct_model_comparisons
        where evaluation_name = ? and trial_metric = ? and week_start = ?
        order by model_id, other_model_id
        """,
        [evaluation, trial_metric, week],
    )
    c.notes(pairs)
    if (pairs.missing or pairs.busy) and c.empty_state(pairs, "comparisons of two models on the same samples"):
        return
    if pairs.frame.empty:
        st.info(f"No two models answered the same {evaluation} samples ({trial_metric}) in {week_text}: "
                f"{len(order)} models have scored trials that week, but no two of them share two or more samples, "
                "so no paired comparison can be made. Their pass rates above are on different samples.",
                icon=":material/info:")
        return
    pf = pairs.frame
    found = pf[(pf["model_id"] == model_a) & (pf["other_model_id"] == model_b)]
    if found.empty:
        st.info(f"{model_a} and {model_b} answered fewer than two of the same {evaluation} samples in {week_text}: "
                "no paired comparison of the two. The table below lists the pairs that share samples.",
                icon=":material/info:")
    else:
        r = model_changes.plain(found.iloc[0])
        n_differ = int(r["n_better"]) + int(r["n_worse"])
        verdict = comparison_verdict(r)
        cards = st.columns(4)
        cards[0].metric("A - B", c.signed(r["mean_difference"], digits=3),
                        help=f"{PASS_RATE} on the shared samples, A minus B: the mean over them of A's score minus "
                             "B's (each sample's trials of the week averaged first), a share between -1 and 1.")
        cards[0].caption("95% interval " + (c.interval(r["difference_ci_low"], r["difference_ci_high"], digits=3)
                                            or "n/a: every shared sample differs by the same amount (SE 0)"))
        cards[1].metric("Shared samples", c.count(r["n_shared_samples"]),
                        help="Samples both models answered that week: the test's n.")
        cards[1].caption(f"A {c.num(r['score'], 3)}, B {c.num(r['other_score'], 3)} on them")
        cards[2].metric("Samples that differ", c.count(n_differ),
                        help="Shared samples on which the two scored differently: what the sign test is on.")
        cards[2].caption(f"A ahead on {c.count(r['n_better'])}, B ahead on {c.count(r['n_worse'])}")
        # The card's word is short (a long one is cut off at the card's width); the caption says it in full.
        word = ("Better" if r["is_better"] is True else "Worse" if r["is_worse"] is True
                else "Not tested" if r["is_significant"] is None else "Not significant")
        cards[3].metric("Verdict", word, help="The weekly report's test at the 5% level.")
        cards[3].caption(f"{verdict}; {statistic(r)}")
        shown = found.assign(
            pair="A - B", models=f"{model_a} - {model_b}",
            shown=c.with_interval(r["mean_difference"], r["difference_ci_low"], r["difference_ci_high"], digits=3),
            verdict=verdict)
        c.show_chart(c.interval_chart(
            shown, value="mean_difference", low="difference_ci_low", high="difference_ci_high", y="pair", y_title=None,
            question=f"On the same samples, is {model_a} ahead of {model_b}?",
            subtitle=f"{evaluation} ({trial_metric}), {week_text}: {verdict}. Point: the mean difference in "
                     f"{PASS_RATE} on the {c.count(r['n_shared_samples'])} samples both answered; bar: its 95% "
                     "interval. Right of the dashed line at 0, A is ahead.",
            x_title=f"{PASS_RATE}, A minus B (difference of shares of trials passed, 95% interval)", x_format="+.2f",
            reference=0.0,
            tooltip=[alt.Tooltip("models:N", title="A - B"), alt.Tooltip("shown:N", title="A - B [95% interval]"),
                     alt.Tooltip("n_shared_samples:Q", title="shared samples"), "verdict"],
        ).properties(height=60))

    # -- every pair of the week: each once, from the side ahead (or the models chosen above, from their side) ----------
    ahead = (pf["mean_difference"] > 0) | ((pf["mean_difference"] == 0) & (pf["model_id"] < pf["other_model_id"]))
    if models and pf["model_id"].isin(models).any():
        # A pair of two chosen models once, from the side ahead, as every pair is when none is chosen.
        listed = pf[pf["model_id"].isin(models) & (~pf["other_model_id"].isin(models) | ahead)]
        said = f"The pairs of {', '.join(sorted(set(models)))} (the models chosen above), from their side"
    else:
        listed = pf[ahead]
        said = "Every pair once, from the side ahead"
    listed = listed.sort_values(["mean_difference", "model_id"], ascending=[False, True])
    rows = [model_changes.plain(row) for _, row in listed.iterrows()]
    st.caption(f"{said}: {len(rows)} of the {len(pf) // 2} pairs of models with two or more shared {evaluation} "
               f"samples in {week_text}.")
    st.dataframe(
        pd.DataFrame({
            "model": [r["model_id"] for r in rows],
            "against": [r["other_model_id"] for r in rows],
            "difference [95% interval]": [c.with_interval(r["mean_difference"], r["difference_ci_low"],
                                                          r["difference_ci_high"], digits=3) for r in rows],
            # the counts and the test before the verdict, whose reason can be longer than the table leaves it
            "shared samples": [c.count(r["n_shared_samples"]) for r in rows],
            "differ (ahead / behind)": [f"{c.count(r['n_better'] + r['n_worse'])} ({c.count(r['n_better'])} / "
                                        f"{c.count(r['n_worse'])})" for r in rows],
            "test": [statistic(r) for r in rows],
            "verdict": [comparison_verdict(r, named=False) for r in rows],
        }),
        hide_index=True, width="stretch", height=c.table_height(len(rows)),
    )


compare_two_models()

# -- reported against computed, run by run -----------------------------------------------------------------------
st.subheader("Reported against computed, run by run")
keys = ["evaluation_name", "eval", "trial_metric", "model_id", "run_id"]
wide = runs.pivot_table(index=keys, columns="result_origin",
                        values=["score", "ci_low", "ci_high", "n_samples", "dataset_n_samples", "evaluated_at"],
                        aggfunc="first")
wide.columns = [f"{origin}_{value}" for value, origin in wide.columns]
wide = wide.reset_index()
for origin in ("reported", "computed"):
    for column in ("score", "ci_low", "ci_high", "n_samples", "dataset_n_samples", "evaluated_at"):
        if f"{origin}_{column}" not in wide.columns:
            wide[f"{origin}_{column}"] = pd.NA
wide["evaluated_at"] = pd.to_datetime(wide["computed_evaluated_at"]).combine_first(
    pd.to_datetime(wide["reported_evaluated_at"]))
wide["computed_minus_reported"] = wide["computed_score"] - wide["reported_score"]


def why_missing(row: pd.Series) -> str:
    """Why the row has no reported or no computed score: what the run has instead, if anything."""
    key = (row["evaluation_name"], row["trial_metric"], row["model_id"], row["run_id"])
    scored = row["trial_metric"]
    if c.is_na(row["reported_score"]):
        published = other_metrics.get((*key, "reported"))
        return (f"n/a: the harness published {', '.join(published)} for {scored} in this run, not {metric}"
                if published else f"n/a: the harness published no {metric} for {scored} in this run")
    if c.is_na(row["computed_score"]):
        computed = other_metrics.get((*key, "computed"))
        return (f"n/a: from this run's {scored} trials the warehouse computes {', '.join(computed)}, not {metric}"
                if computed else f"n/a: none of this run's trials is scored on {scored}")
    return ""


wide["note"] = [why_missing(row) for _, row in wide.iterrows()] if len(wide) else []
shown = wide[[
    "eval", "trial_metric", "model_id", "evaluated_at", "reported_score", "reported_ci_low", "reported_ci_high",
    "reported_n_samples", "reported_dataset_n_samples", "computed_score", "computed_ci_low", "computed_ci_high",
    "computed_minus_reported", "computed_n_samples", "note", "run_id",
]].sort_values(["eval", "model_id", "evaluated_at"], ascending=[True, True, False])
# The table shows text, so an undefined number reads "n/a" (the note says why); the CSV keeps the numbers.
table = pd.DataFrame({
    "eval": shown["eval"],
    "scored on": shown["trial_metric"],
    "model": shown["model_id"],
    "evaluated (UTC)": shown["evaluated_at"].dt.strftime("%Y-%m-%d %H:%M"),
    "reported [95% interval]": [c.with_interval(v, lo, hi, digits=3) for v, lo, hi in
                                zip(shown["reported_score"], shown["reported_ci_low"], shown["reported_ci_high"])],
    "computed [95% interval]": [c.with_interval(v, lo, hi, digits=3) for v, lo, hi in
                                zip(shown["computed_score"], shown["computed_ci_low"], shown["computed_ci_high"])],
    "reported n samples": [samples_of(n, d) for n, d in
                           zip(shown["reported_n_samples"], shown["reported_dataset_n_samples"])],
    "computed n samples": [c.count(v) for v in shown["computed_n_samples"]],
    "computed - reported": [c.signed(v, digits=3) for v in shown["computed_minus_reported"]],
    "why n/a": shown["note"],
    "run": shown["run_id"],
})
st.caption(f"{len(shown):,} runs of {shown['model_id'].nunique()} model(s) on {shown['eval'].nunique()} "
           f"eval(s), {metric_label if metric_label == metric else f'{metric_label} ({metric})'}.")
st.dataframe(table, hide_index=True, width="stretch")
c.csv_download(shown, file_name=f"evalhouse_leaderboard_{metric}_{start:%Y%m%d}_{end:%Y%m%d}.csv", key="csv")
