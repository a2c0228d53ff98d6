"""The Leaderboard's "On the same samples, is one model ahead of another?": two models of one eval and week compared
on the samples both answered (marts.fct_model_comparisons), which scores side by side cannot tell, and every pair of
that week in a table. Always on pass rate: the mart pairs samples on their trials' pass verdicts only."""

from __future__ import annotations

from typing import Any

import altair as alt
import pandas as pd
import streamlit as st

import components as c
import db
from evalhouse.report import changes as model_changes
from evalhouse.build_settings import BuildSettings

# The weekly report's name for the share of trials marked as passed, what this section compares.
PASS_RATE = "pass rate"


def verdict_in_full(r: dict, minimums: BuildSettings) -> str:
    """The verdict on model A against model B in the weekly report's words (evalhouse/report/changes.py: "no
    significant change", "too few changed samples to test"), said of two models on the same samples instead of one
    model's two weeks, both models named. An untested pair (is_significant NULL) says why, with the minimum it
    missed."""
    a, b = r["model_id"], r["other_model_id"]
    if r["is_better"] is True:
        return f"Better: {a} is ahead of {b}"
    if r["is_worse"] is True:
        return f"Worse: {a} is behind {b}"
    if r["is_significant"] is not None:
        return "no significant difference"
    n_shared, n_differ = int(r["n_shared_samples"]), int(r["n_better"]) + int(r["n_worse"])
    return {
        model_changes.NO_CHANGE: "no sample differs: nothing to test",
        model_changes.FEW_SAMPLES: (f"too few samples to test ({n_shared} shared; a verdict needs "
                                    f"{minimums.model_change_min_samples})"),
        model_changes.FEW_CHANGED: (f"too few samples that differ to test ({n_differ} differ; a verdict needs "
                                    f"{minimums.model_change_min_changed_samples})"),
        model_changes.NO_VARIATION: "no variation: every shared sample differs by the same amount, so t is undefined",
    }.get(_why_untested(r, minimums), "not tested")


def verdict_in_short(r: dict, minimums: BuildSettings) -> str:
    """The verdict as the pairs table's cell says it, short enough to be read whole at 1400 px beside the two models:
    the word and the statistic it rests on ('Better (p = 0.03)', 'not significant (t = +1.20)'), or why the pair
    was not tested ('untested: 2 differ, needs 6'; its statistic is no evidence of anything). The column's help says
    the rule in full."""
    if r["is_significant"] is not None:
        word = "Better" if r["is_better"] is True else "Worse" if r["is_worse"] is True else "not significant"
        return f"{word} ({statistic_value(r)})"
    n_shared, n_differ = int(r["n_shared_samples"]), int(r["n_better"]) + int(r["n_worse"])
    return {
        model_changes.NO_CHANGE: "untested: no sample differs",
        model_changes.FEW_SAMPLES: f"untested: {n_shared} shared, needs {minimums.model_change_min_samples}",
        model_changes.FEW_CHANGED: f"untested: {n_differ} differ, needs {minimums.model_change_min_changed_samples}",
        model_changes.NO_VARIATION: "untested: no variation",
    }.get(_why_untested(r, minimums), "untested")


def _why_untested(r: dict, minimums: BuildSettings) -> str | None:
    return model_changes.why_untested(
        n_compared=int(r["n_shared_samples"]), n_changed=int(r["n_better"]) + int(r["n_worse"]),
        is_sign_test=r["comparison_test"] == "sign test", statistic=r["t_statistic"], settings=minimums)


def statistic_value(r: dict) -> str:
    """The statistic the verdict rests on, as the report's test_statistic gives it: 'p = 0.03' (the sign test) or
    't = +2.13' (paired t), in brackets when the pair was not tested ('(p = 0.50)')."""
    return model_changes.test_statistic({"change_test": r["comparison_test"], "change_z": r["t_statistic"],
                                         "sign_test_p": r["sign_test_p"], "is_significant": r["is_significant"]})


def statistic(r: dict) -> str:
    """The test and its statistic: 'sign test, p = 0.03' or 'paired t, t = +2.13', the statistic in brackets when
    the pair was not tested ('sign test (p = 0.50)')."""
    shown = statistic_value(r)
    return f"{r['comparison_test']}{' ' if shown.startswith('(') else ', '}{shown}"


def pass_rate_note(metric: str) -> str:
    """What the section compares, said whatever the metric chosen above: the mart pairs pass verdicts only."""
    said = (f"Compared on {PASS_RATE} only (the share of each sample's trials marked as passed): "
            "marts.fct_model_comparisons pairs samples on their trials' pass verdicts")
    if metric == "accuracy":
        return said + "."
    return (said + f", not on {metric}, so this section does not follow the Metric chosen above ({metric}). "
            f"Choose {PASS_RATE} (accuracy) above to see the same measure in both.")


def show(filters: c.Filters, *, evaluations: list[str], models: list[str], metric: str) -> None:
    """Model A against model B on the samples both answered in a week, for one eval and trial metric: the paired
    difference with its 95% interval, its n, the verdict, and every pair of that week. `evaluations` and `models`,
    the ones chosen above, open the pickers; `metric`, chosen above, is said not to be compared when it is not
    pass rate."""
    minimums = db.build_settings()
    st.subheader("On the same samples, is one model ahead of another?")
    st.caption(
        "Two models' pass rates side by side can overlap while one is clearly ahead, or differ on samples the other "
        "never answered. This compares them on the samples both answered in the week: each sample's trials of the "
        "week averaged first, then the difference per sample, A minus B, averaged, with its 95% interval (Student's "
        "t on n - 1 degrees of freedom). The verdict is the weekly report's test: an exact sign test on the samples "
        f"that differ where every score is 0 or 1, else Student's t; no verdict on fewer than "
        f"{minimums.model_change_min_samples} shared samples or fewer than "
        f"{minimums.model_change_min_changed_samples} samples that differ (the build's settings). Its own eval and "
        "week, whatever the dates above. Many pairs tested at once: about one pair of equal models in twenty reads "
        "as significant, so a surprising verdict wants a second week.")
    if metric == "accuracy":
        st.caption(pass_rate_note(metric))
    else:
        st.info(pass_rate_note(metric), icon=":material/info:")
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
        _show_pair(model_changes.plain(found.iloc[0]), found, evaluation=evaluation, trial_metric=trial_metric,
                   week_text=week_text, minimums=minimums)
    _show_pairs_table(pf, models=models, evaluation=evaluation, week_text=week_text, minimums=minimums)


def _show_pair(r: dict, found: pd.DataFrame, *, evaluation: str, trial_metric: str, week_text: str,
               minimums: BuildSettings) -> None:
    """The chosen pair: four cards (A - B, shared samples, samples that differ, the verdict) and its interval."""
    model_a, model_b = r["model_id"], r["other_model_id"]
    n_differ = int(r["n_better"]) + int(r["n_worse"])
    verdict = verdict_in_full(r, minimums)
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


# The pairs table's columns, the verdict right after the two models: all six are read without scrolling at 1400 px
# (930 px of table beside the sidebar), each as wide as its longest usual text (the longest model id, 200 px), the
# rule each follows in its help. The verdict was seventh, past the table's edge, and the test's column cut short.
PAIR_COLUMNS: dict[str, Any] = {
    "model": st.column_config.TextColumn("model", width=216, help="The model the row speaks for."),
    "against": st.column_config.TextColumn("against", width=216, help="The model it is compared with."),
    "verdict": st.column_config.TextColumn(
        "verdict", width=178,
        help="The weekly report's test at the 5% level, with the statistic it rests on: p, the exact sign test's "
             "p-value (every shared score 0 or 1); t, Student's paired t on shared samples - 1 degrees of freedom. "
             "Better or Worse: the model against the other; not significant; or untested and why: fewer shared "
             "samples, or fewer that differ, than the build's minimums (\"2 differ, needs 6\"), none that differs, "
             "or no variation (every shared sample differs by the same amount, so t is undefined)."),
    "difference [95% interval]": st.column_config.TextColumn(
        "difference [95% interval]", width=164,
        help=f"{PASS_RATE} on the shared samples, the model minus the other, with its 95% interval."),
    "shared": st.column_config.TextColumn("shared", width=58,
                                          help="Samples both models answered that week: the test's n."),
    "differ (+ / -)": st.column_config.TextColumn(
        "differ (+ / -)", width=82,
        help="Shared samples on which the two scored differently, then how many of them the model is ahead on "
             "(+) and behind on (-): what the sign test is on."),
}


def _show_pairs_table(pf: pd.DataFrame, *, models: list[str], evaluation: str, week_text: str,
                      minimums: BuildSettings) -> None:
    """Every pair of the week: each once, from the side ahead (or the models chosen above, from their side)."""
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
    c.table(
        pd.DataFrame({
            "model": [r["model_id"] for r in rows],
            "against": [r["other_model_id"] for r in rows],
            "verdict": [verdict_in_short(r, minimums) for r in rows],
            "difference [95% interval]": [c.with_interval(r["mean_difference"], r["difference_ci_low"],
                                                          r["difference_ci_high"], digits=3) for r in rows],
            "shared": [c.count(r["n_shared_samples"]) for r in rows],
            "differ (+ / -)": [f"{c.count(r['n_better'] + r['n_worse'])} ({c.count(r['n_better'])} / "
                               f"{c.count(r['n_worse'])})" for r in rows],
        }),
        key=["model", "against"], height=c.table_height(len(rows)), column_config=PAIR_COLUMNS,
    )
