"""Judge drift: per LLM judge and dimension, its weekly bias against people with the band outside which a change
alerts, its exact agreement and quadratic kappa over time, and every alert with the item that shows it best."""

import altair as alt
import pandas as pd
import streamlit as st

import components as c
import db

UNIVERSAL = ["helpfulness", "instruction_following", "faithfulness", "safety", "overall_quality"]
ALERT_Z = float(c.dbt_var("drift_alert_z", 4.0))
BASELINE_WEEKS = int(c.dbt_var("drift_baseline_weeks", 2))

st.title("Has an LLM judge drifted away from people?")
st.caption(
    f"**Bias**: the judge's score minus the mean score of the people who rated the same items independently, in "
    f"points (positive: the judge rates higher); a hybrid review of the judge's own form is not counted. Each "
    f"judge's first {BASELINE_WEEKS} weeks on a dimension are its **baseline**; a later week raises an **alert** "
    f"when its bias has moved from the baseline by more than {ALERT_Z:g} standard errors of the change."
)

judges = db.query(
    """
    select judge_id, any_value(judge_model) as judge_model, count(case when is_drift_alert then 1 end) as n_alerts,
           max(case when is_drift_alert then week_start end) as last_alert, max(week_start) as last_week
    from marts.fct_judge_drift
    group by judge_id
    order by max(case when is_drift_alert then week_start end) desc nulls last, judge_id
    """
)
c.notes(judges)
if c.whole_warehouse_missing(judges) or c.empty_state(
        judges, "LLM-judge ratings paired with people's ratings of the same items",
        "The judge and at least one person must rate the same responses independently (eval forms; a review of "
        "the judge's own form does not count)."):
    st.stop()

filters = c.Filters("judge_drift")
left, middle, right = st.columns([2, 2, 4])
judge = filters.selectbox("Judge", list(judges.frame["judge_id"]), param="judge", container=left,
                          help="Judges with the most recent alert first.")
week = filters.week("Week", container=middle)
week_label = c.week_label(week) if week else None

series = db.query(
    """
    select dimension, dimension_group, scale, week_start, week_number, is_baseline_week, n_pairs, n_humans, n_items,
           exact_agreement, kappa_unweighted, kappa_quadratic, mean_bias, bias_se, baseline_bias, baseline_se,
           bias_delta, bias_delta_se, drift_z, is_drift_alert, judge_model
    from marts.fct_judge_drift
    where judge_id = ?
    order by dimension, week_start
    """,
    [judge],
)
c.notes(series)
if c.empty_state(series, f"weekly pairs for {judge}"):
    st.stop()
frame = series.frame
alerting = sorted(frame.loc[frame["is_drift_alert"], "dimension"].unique())
with_bias = sorted(frame.loc[frame["mean_bias"].notna(), "dimension"].unique())
default = alerting or [d for d in UNIVERSAL if d in with_bias] or with_bias[:5]
dimensions = filters.multiselect("Dimensions", sorted(frame["dimension"].unique()), param="dimension",
                                 default=default, container=right, placeholder="Choose dimensions",
                                 help="By default the dimensions that alerted, else the five universal ones.")
chosen = frame[frame["dimension"].isin(dimensions or default)].copy()

alerts_now = frame[frame["is_drift_alert"] & (frame["week_start"].map(c.to_date) == week)] if week else frame[0:0]
last_alert = judges.frame.set_index("judge_id").loc[judge, "last_alert"]
if week is not None:
    summary = (f"In {week_label}: {len(alerts_now)} alert(s) for {judge}"
               + (f" ({', '.join(sorted(alerts_now['dimension']))})" if len(alerts_now) else "") + ". ")
    summary += ("No alert ever." if c.is_na(last_alert) else f"Latest alert: {c.iso_week(c.to_date(last_alert))}.")
    st.caption(summary)

# -- bias against people, with the alert band -----------------------------------------------------------------------
biased = chosen.dropna(subset=["mean_bias"]).copy()
if biased.empty:
    st.info("No weekly bias for these dimensions: their ratings are labels without a numeric score (hazard "
            "verdicts, refusal labels), so only agreement is measured below.", icon=":material/info:")
else:
    biased["low"] = biased["mean_bias"] - 1.96 * biased["bias_se"].fillna(0)
    biased["high"] = biased["mean_bias"] + 1.96 * biased["bias_se"].fillna(0)
    biased["band_low"] = biased["baseline_bias"] - ALERT_Z * biased["bias_delta_se"]
    biased["band_high"] = biased["baseline_bias"] + ALERT_Z * biased["bias_delta_se"]
    biased["state"] = [
        "baseline week" if b else "alert" if a else "within the band"
        for b, a in zip(biased["is_baseline_week"], biased["is_drift_alert"])
    ]
    biased["shown"] = [c.with_interval(v, lo, hi) for v, lo, hi in zip(biased["mean_bias"], biased["low"],
                                                                       biased["high"])]
    biased["z"] = [c.num(z, 1) for z in biased["drift_z"]]
    x = c.week_x(biased["week_start"])
    tooltip = ["dimension", c.week_tooltip(), "state",
               alt.Tooltip("shown:N", title="bias [95% interval]"),
               alt.Tooltip("baseline_bias:Q", title="baseline bias", format=".2f"),
               alt.Tooltip("z:N", title="change in SEs (z)"), alt.Tooltip("n_items:Q", title="n items"),
               alt.Tooltip("n_humans:Q", title="people compared")]
    base = alt.Chart().encode(x=x)
    band = base.mark_area(opacity=0.18, color="#4c78a8").encode(
        y=alt.Y("band_low:Q", title="bias: judge minus people (points)"), y2="band_high:Q")
    zero = alt.Chart().mark_rule(color="gray", strokeDash=[2, 2]).encode(y=alt.datum(0))
    bars = base.mark_rule(strokeWidth=2).encode(y="low:Q", y2="high:Q", color=alt.Color(
        "state:N", title=None, legend=alt.Legend(orient="bottom"),
        scale=alt.Scale(domain=["baseline week", "within the band", "alert"], range=["#999999", "#1f77b4", "#d62728"])),
        tooltip=tooltip)
    points = base.mark_point(filled=True, size=70).encode(y="mean_bias:Q", color="state:N", tooltip=tooltip)
    chart = alt.layer(band, zero, bars, points, data=biased).properties(width=260, height=190).facet(
        facet=alt.Facet("dimension:N", title=None, header=alt.Header(labelFontWeight="bold", labelAnchor="start")),
        columns=3,
    ).properties(title=c.title(
        f"Is {judge} drifting away from people?",
        f"Weekly bias with its 95% interval. The shaded band is how far the bias may move from the baseline before "
        f"it alerts ({ALERT_Z:g} standard errors of the change); a red point is an alert."))
    c.show_chart(chart)

# -- agreement over time ---------------------------------------------------------------------------------------------
long = pd.concat([
    chosen.assign(statistic="exact agreement", value=chosen["exact_agreement"]),
    chosen.assign(statistic="quadratic-weighted kappa", value=chosen["kappa_quadratic"]),
]).dropna(subset=["value"])
if long.empty:
    st.info("No exact agreement or kappa for these dimensions yet.", icon=":material/info:")
else:
    lines = alt.Chart().mark_line(point=True).encode(
        x=c.week_x(long["week_start"]),
        y=alt.Y("value:Q", title="agreement with people", scale=alt.Scale(domain=[-0.2, 1], clamp=True)),
        color=alt.Color("dimension:N", title=None, scale=alt.Scale(scheme="tableau10"),
                        legend=alt.Legend(orient="bottom", columns=3, labelLimit=300)),
        tooltip=["dimension", "statistic", c.week_tooltip(),
                 alt.Tooltip("value:Q", format=".2f"), alt.Tooltip("n_pairs:Q", title="judge-person pairs")],
    )
    c.show_chart(alt.layer(lines, data=long).properties(width=390, height=220).facet(
        column=alt.Column("statistic:N", title=None, header=alt.Header(labelFontWeight="bold")),
    ).properties(title=c.title(
        f"Does {judge} still agree with people, week by week?",
        "Exact agreement: share of judge-person pairs with the same label. Quadratic kappa: agreement beyond chance "
        "that counts near misses on ordered scales (1 perfect, 0 chance).")))
    undefined = chosen[chosen["kappa_quadratic"].isna()]["dimension"].unique()
    if len(undefined):
        st.caption("Kappa is n/a where judge and people used a single category that week (agreement beyond chance "
                   f"is undefined): {', '.join(sorted(undefined))}.")

# -- every alert -----------------------------------------------------------------------------------------------------
st.subheader("Drift alerts")
alerts = db.query(
    """
    select judge_id, dimension, week_start, mean_bias, bias_se, baseline_bias, bias_delta, bias_delta_se, drift_z,
           n_items, n_humans, exact_agreement, kappa_quadratic, example_task_id, example_model_id, example_judge_score,
           example_human_score, example_n_humans, example_judge_version, example_prompt, example_response
    from marts.rpt_weekly_drift_alerts
    where week_start <= ?
    order by week_start desc, judge_id, abs(drift_z) desc
    """,
    [week],
)
c.notes(alerts)
if not c.empty_state(alerts, f"drift alerts up to {week_label}",
                     "An alert appears when a judge's weekly bias leaves its band."):
    a = alerts.frame
    st.dataframe(
        pd.DataFrame({
            "week": a["week_start"].map(lambda d: c.iso_week(c.to_date(d))), "judge": a["judge_id"],
            "dimension": a["dimension"],
            "bias [95% interval]": [c.with_interval(v, v - 1.96 * se, v + 1.96 * se) for v, se in
                                    zip(a["mean_bias"], a["bias_se"])],
            "baseline bias": [c.num(v) for v in a["baseline_bias"]],
            "change": [f"{c.signed(d)} ± {c.num(1.96 * se)}" for d, se in zip(a["bias_delta"], a["bias_delta_se"])],
            "z": [c.num(z, 1) for z in a["drift_z"]], "n items": a["n_items"], "people": a["n_humans"],
            "quadratic kappa": [c.num(v) for v in a["kappa_quadratic"]],
            "judge prompt version": a["example_judge_version"],
        }),
        hide_index=True, width="stretch",
    )
    labels = [f"{c.iso_week(c.to_date(w))} · {j} · {d}" for w, j, d in
              zip(a["week_start"], a["judge_id"], a["dimension"])]
    picked = st.selectbox("The item that shows an alert best", range(len(labels)), format_func=lambda i: labels[i],
                          key="judge_drift.alert") or 0
    row = a.iloc[picked]
    version = c.text_or(row["example_judge_version"], "version n/a")
    st.caption(f"Task {row['example_task_id']}, model {row['example_model_id']}: the judge "
               f"({version}) gave {c.num(row['example_judge_score'], 0)}; "
               f"{c.count(row['example_n_humans'])} people, rating independently, gave "
               f"{c.num(row['example_human_score'], 1)} on average.")
    left, right = st.columns(2)
    c.show_text("Prompt", row["example_prompt"], container=left)
    c.show_text("Response", row["example_response"], container=right)
