"""Judge drift: per LLM judge and dimension, its weekly bias against people with the band outside which a change
alerts and the weeks its version changed, its exact agreement and quadratic kappa over time, its alerts with the
judge's version and the item that shows each best, and how often people reviewing its verdicts overrode them. The
chosen week is marked on every chart."""

import altair as alt
import pandas as pd
import streamlit as st

import components as c
import db
from evalhouse.report.sections.judge_drift import version_list as versions
from evalhouse.report.sections.judge_drift import version_said

UNIVERSAL = ["helpfulness", "instruction_following", "faithfulness", "safety", "overall_quality"]
SETTINGS = db.build_settings()  # the vars fct_judge_drift was built with, not dbt_project.yml's now
ALERT_Z = SETTINGS.drift_alert_z
BASELINE_WEEKS = SETTINGS.drift_baseline_weeks
MIN_ITEMS = SETTINGS.drift_min_items
# fct_judge_drift has no z where every item's bias is the same within each window: the change is exact
EXACT_CHANGE = "n/a: exact (no spread)"
# Charts come in panels that wrap onto more rows in a narrow window (c.panels): three small ones, or two wide ones,
# to a row at 1400 px, one at 900.
PER_ROW, WIDE_PER_ROW = 3, 2
VERSION_CHANGED = "judge version changed"
STATE_COLOURS = {"baseline week": c.MUTED, "within the band": "#1f77b4", "too few items to test": c.WARN,
                 "alert": c.BAD, VERSION_CHANGED: "#9467bd"}
# The legend's words, short enough for two columns under a panel's plot (the tooltips keep the long ones)
SHORT_STATES = ("({'baseline week': 'baseline', 'within the band': 'within band', 'too few items to test': 'too few "
                "to test', 'judge version changed': 'version changed'})[datum.label] || datum.label")


def flag(value: object) -> bool | None:
    """A nullable boolean cell as True, False or None (NULL reaches a frame as None, NaN or pd.NA)."""
    return None if c.is_na(value) else bool(value)




def version_change(changed: object, new: object) -> str:
    """An alert's version against the week before and the baseline, in a few words for a table cell."""
    changed, new = flag(changed), flag(new)
    if changed and new:
        return "new this week"
    if changed:
        return "changed this week (back to the baseline's)" if new is False else "changed this week"
    if new:
        return "new since the baseline"
    return "no" if changed is False and new is False else "not known"


st.title("Has an LLM judge drifted away from people?")
st.caption(
    f"**Bias**: the judge's score minus the mean score of the people who rated the same items independently, in "
    f"points (positive: the judge rates higher); a hybrid review of the judge's own form is not counted. Each "
    f"judge's first {BASELINE_WEEKS} weeks on a dimension, and more until they hold {MIN_ITEMS} items, are its "
    f"**baseline**: those weeks are not tested, having nothing to be held against. A later week raises an "
    f"**alert** when its bias has moved from the baseline's by more than a cutoff, counted in standard errors of the "
    f"change (|z|). The cutoff is {ALERT_Z:g} when the week and its baseline hold many items and more when they hold "
    f"few ({SETTINGS.drift_cutoff_text()}): it is Student's t, which keeps the false-alarm rate of {ALERT_Z:g} "
    f"standard errors on a normal curve when a few items must estimate the spread. Where every item's bias moved by "
    f"exactly the same amount there is no z, and any move alerts. A later week with fewer than {MIN_ITEMS} items is "
    f"**too few items to test**: no verdict, not \"no drift\". The judge's **version** (its prompt or model, as its "
    f"forms name it) is shown beside each week: a new version can move the bias as drift does."
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
# Fixed widths that wrap in a narrow window: in three columns, the week picker was 115 px wide at 900 px and showed
# "2026-W4" for both 2026-W45 and 2026-W47. The week's width holds "2026-W47 (in progress)"; the three fit in a row
# at 1400 px (930 px of content) and each has a row of its own at 900 (430 px).
pickers = st.container(horizontal=True)
left, middle, right = pickers.container(width=240), pickers.container(width=210), pickers.container(width=440)
judge = filters.selectbox("Judge", list(judges.frame["judge_id"]), param="judge", container=left,
                          help="Judges with the most recent alert first.")
week = filters.week("Week", container=middle)
week_label = c.week_label(week) if week else None

series = db.query(
    """
    select dimension, dimension_group, scale, week_start, week_number, is_baseline_week, n_pairs,
           n_agreement_pairs, n_humans, n_items, exact_agreement, kappa_unweighted, kappa_quadratic, mean_bias,
           bias_se, bias_ci_low, bias_ci_high, baseline_bias, drift_z, alert_band_low, alert_band_high,
           is_drift_alert, no_test_reason, judge_model, judge_versions, baseline_judge_versions,
           previous_judge_versions, is_judge_version_changed, has_new_judge_version
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
# NULL is "not tested" (too few items), neither an alert nor a quiet week.
frame["alerted"] = frame["is_drift_alert"].astype("boolean").fillna(False).astype(bool)
frame["untested"] = frame["no_test_reason"].notna()
frame["version_changed"] = [flag(v) is True for v in frame["is_judge_version_changed"]]
frame["version"] = [version_said(v, b, flag(n)) or "not recorded" for v, b, n in
                    zip(frame["judge_versions"], frame["baseline_judge_versions"], frame["has_new_judge_version"])]
alerting = sorted(frame.loc[frame["alerted"], "dimension"].unique())
with_bias = sorted(frame.loc[frame["mean_bias"].notna(), "dimension"].unique())
default = alerting or [d for d in UNIVERSAL if d in with_bias] or with_bias[:5]
dimensions = filters.multiselect("Dimensions", sorted(frame["dimension"].unique()), param="dimension",
                                 default=default, container=right, placeholder="Choose dimensions",
                                 help="By default the dimensions that alerted, else the five universal ones.")
chosen = frame[frame["dimension"].isin(dimensions or default)].copy()


def version_sentence(week_rows: pd.DataFrame) -> str:
    """What the judge's version did in the chosen week: "**The judge's version changed this week**: judge-prompt-v2 →
    judge-prompt-v2.1 (on every dimension it rated), a version its baseline did not use.", or that it still rates
    with one its baseline did not use; '' when neither. A version is its forms', so one sentence mostly holds for
    every dimension; where it does not, the dimensions are named."""
    said: dict[str, list[str]] = {}
    for _, row in week_rows.iterrows():
        now, new = ", ".join(versions(row["judge_versions"])), flag(row["has_new_judge_version"]) is True
        if row["version_changed"]:
            before = ", ".join(versions(row["previous_judge_versions"]))
            text = f"**The judge's version changed this week**: {before} → {now}"
        elif new:
            text = f"**The judge rates with a version its baseline did not use**: {now}"
        else:
            continue
        said.setdefault(text, []).append(row["dimension"])
    out = []
    for text, dims in said.items():
        where = ("on every dimension it rated" if len(dims) == len(week_rows)
                 else f"on {', '.join(sorted(dims))}")
        rows = week_rows[week_rows["dimension"].isin(dims)]
        is_new = [flag(v) for v in rows["has_new_judge_version"]]
        # new to the baseline wherever a baseline says (a dimension still forming one has nothing to compare)
        newness = ", a version its baseline did not use" if True in is_new and False not in is_new else ""
        out.append(f"{text} ({where}){newness if 'changed' in text else ''}. ")
    return "".join(out)


def week_rule() -> list[alt.Chart]:
    """A dashed line on the chosen week, for a chart over weeks (none when no week is chosen)."""
    if week is None:
        return []
    return [alt.Chart().mark_rule(color="black", strokeDash=[4, 4]).encode(
        x=alt.datum(alt.DateTime(year=week.year, month=week.month, date=week.day)))]


marked = f" The dashed line is {week_label}." if week else ""
# What could have alerted by the chosen week: a week after the baseline. The baseline is a prefix of a dimension's
# weeks, so a dimension whose latest week up to the chosen one is a baseline week has had nothing tested yet.
so_far = frame[frame["week_start"].map(c.to_date) <= week] if week else frame
alerts_so_far = so_far[so_far["alerted"]]


def baseline_held(dimensions: list[str]) -> pd.DataFrame:
    """Per dimension, the items and weeks its baseline holds up to the chosen week."""
    return so_far[so_far["is_baseline_week"] & so_far["dimension"].isin(dimensions)].groupby("dimension").agg(
        items=("n_items", "sum"), weeks=("week_start", "count"))


def baseline_so_far(dimensions: list[str]) -> str:
    """How much baseline the dimensions hold up to the chosen week: "9 items over 3 weeks on a, b; 20 items over 2
    weeks (complete) on c"."""
    groups = baseline_held(dimensions).reset_index().groupby(["items", "weeks"])["dimension"].apply(
        lambda d: ", ".join(sorted(d)))
    return "; ".join(f"{c.count(items)} items over {weeks} week{'s' if weeks != 1 else ''}"
                     f"{' (complete)' if items >= MIN_ITEMS and weeks >= BASELINE_WEEKS else ''} on {names}"
                     for (items, weeks), names in groups.items())


if week is not None:
    this_week = so_far[so_far["week_start"].map(c.to_date) == week]
    alerts_now = alerts_so_far[alerts_so_far["week_start"].map(c.to_date) == week]
    too_few_now = this_week[[isinstance(r, str) and r.startswith("too few") for r in this_week["no_test_reason"]]]
    # a baseline still forming is untested too: the text below says so, with what the baseline holds
    other_untested_now = this_week[this_week["untested"] & ~this_week["is_baseline_week"]
                                   & ~this_week.index.isin(too_few_now.index)]
    summary = (f"In {week_label}: {c.plural(len(alerts_now), 'alert')} for {judge}"
               + (f" ({', '.join(sorted(alerts_now['dimension']))})" if len(alerts_now) else "") + ". ")
    summary += version_sentence(this_week)
    if len(too_few_now):
        summary += (f"**Too few items to test** on {', '.join(sorted(too_few_now['dimension']))} "
                    f"(fewer than {MIN_ITEMS} items this week): not known to be steady. ")
    for _, row in other_untested_now.sort_values("dimension").iterrows():
        summary += f"Not tested on {row['dimension']}: {row['no_test_reason']}. "
    # Drift is a test of the bias: a dimension without numeric scores has none, and its baseline never fills.
    scored = so_far[so_far["dimension"].isin(so_far.loc[so_far["mean_bias"].notna(), "dimension"])]
    latest = scored.sort_values("week_start").groupby("dimension").tail(1)
    forming = sorted(latest.loc[latest["is_baseline_week"], "dimension"])
    if len(alerts_so_far):
        summary += f"Latest alert up to {week_label}: {c.iso_week(c.to_date(alerts_so_far['week_start'].max()))}."
    elif so_far.empty:
        summary += f"It has no week with people's ratings up to {week_label}."
    elif latest.empty:
        summary += f"No bias to test up to {week_label}: its ratings carry no numeric scores."
    elif len(forming) == len(latest):
        held = baseline_held(forming)
        complete = bool(((held["items"] >= MIN_ITEMS) & (held["weeks"] >= BASELINE_WEEKS)).all())
        summary += (("**Baseline weeks only so far" if complete else "**Baseline still forming")
                    + f", so no alert could fire yet**: a dimension's baseline is the judge's "
                    f"first {BASELINE_WEEKS} weeks with people's ratings on it, and more until they hold {MIN_ITEMS} "
                    f"items, and alerts are possible from the week after. Up to {week_label}: "
                    f"{baseline_so_far(forming)}.")
    else:
        summary += f"No alert up to {week_label}."
    if forming and len(forming) < len(latest):
        summary += (f" Still in its baseline weeks on {', '.join(forming)} ({baseline_so_far(forming)} up to "
                    f"{week_label}): alerts possible there from the week after the baseline.")
    st.caption(summary)

# -- bias against people, with the alert band -----------------------------------------------------------------------
biased = chosen.dropna(subset=["mean_bias"]).copy()
if biased.empty:
    st.info("No weekly bias for these dimensions: their ratings are labels without a numeric score (hazard "
            "verdicts, refusal labels), so only agreement is measured below.", icon=":material/info:")
else:
    # A week of one item has no interval: its bar is the point alone.
    biased["low"] = biased["bias_ci_low"].fillna(biased["mean_bias"])
    biased["high"] = biased["bias_ci_high"].fillna(biased["mean_bias"])
    biased["state"] = [
        "baseline week" if b else "alert" if a else "too few items to test" if u else "within the band"
        for b, a, u in zip(biased["is_baseline_week"], biased["alerted"], biased["untested"])
    ]
    biased["shown"] = [c.with_interval(v, lo, hi) for v, lo, hi in zip(biased["mean_bias"], biased["bias_ci_low"],
                                                                       biased["bias_ci_high"])]
    biased["z"] = ["n/a: part of the baseline" if b else f"n/a: {r}" if isinstance(r, str)
                   else EXACT_CHANGE if c.is_na(z) else c.num(z, 1)
                   for b, z, r in zip(biased["is_baseline_week"], biased["drift_z"], biased["no_test_reason"])]
    biased["version_change"] = [f"{', '.join(versions(p))} → {', '.join(versions(v))}" if changed else "none"
                                for p, v, changed in zip(biased["previous_judge_versions"], biased["judge_versions"],
                                                         biased["version_changed"])]
    x = c.shared_week_x(biased["week_start"])
    # one bias scale for every panel, as a facet had: the dimensions' biases compare at a glance
    ends = pd.concat([biased[col] for col in ("low", "high", "alert_band_low", "alert_band_high")]).dropna()
    y_scale = alt.Scale(domain=[min(0.0, float(ends.min())), max(0.0, float(ends.max()))], nice=True)
    tooltip = ["dimension", c.week_tooltip(), "state",
               alt.Tooltip("shown:N", title="bias [95% interval]"),
               alt.Tooltip("baseline_bias:Q", title="baseline bias", format=".2f"),
               alt.Tooltip("z:N", title="change in SEs (z)"), alt.Tooltip("n_items:Q", title="n items"),
               alt.Tooltip("n_humans:Q", title="people compared"),
               alt.Tooltip("version:N", title="judge version"),
               alt.Tooltip("version_change:N", title="version change from the week before")]

    def bias_panel(rows: pd.DataFrame, dimension: str) -> alt.LayerChart:
        """One dimension's weekly bias with its band, alerts and the weeks the judge's version changed."""
        changes = rows[rows["version_changed"]].assign(state=VERSION_CHANGED)
        drawn = [s for s in STATE_COLOURS if s in set(rows["state"]) or (s == VERSION_CHANGED and len(changes))]
        colour = alt.Color("state:N", title=None, legend=alt.Legend(orient="bottom", columns=2, labelExpr=SHORT_STATES),
                           scale=alt.Scale(domain=drawn, range=[STATE_COLOURS[s] for s in drawn]))
        base = alt.Chart().encode(x=x)
        band = base.mark_area(opacity=0.18, color="#4c78a8").encode(
            y=alt.Y("alert_band_low:Q", title="bias: judge minus people (points)", scale=y_scale),
            y2="alert_band_high:Q")
        zero = alt.Chart().mark_rule(color="gray", strokeDash=[2, 2]).encode(y=alt.datum(0))
        marks = [band, zero]
        if len(changes):
            # a line, and a triangle at the top that stays visible where the chosen week's dashed line covers it
            changed = alt.Chart(changes).encode(
                x=x, color=colour, tooltip=["dimension", c.week_tooltip(),
                                            alt.Tooltip("version_change:N", title="judge version changed"),
                                            alt.Tooltip("version:N", title="judge version")])
            marks += [changed.mark_rule(strokeWidth=2, opacity=0.7),
                      changed.mark_point(shape="triangle-down", filled=True, size=90, opacity=1).encode(
                          y=alt.value(0))]
        bars = base.mark_rule(strokeWidth=2).encode(y=alt.Y("low:Q", scale=y_scale), y2="high:Q", color=colour,
                                                    tooltip=tooltip)
        points = base.mark_point(filled=True, size=70).encode(y=alt.Y("mean_bias:Q", scale=y_scale), color=colour,
                                                              tooltip=tooltip)
        return alt.layer(*marks, *week_rule(), bars, points, data=rows).properties(
            height=190, title=c.title(f"Drifting on {dimension}?"))

    st.subheader(f"Is {judge} drifting away from people?")
    st.caption(
        "Weekly bias with its 95% interval (Student's t on the week's items), one panel per dimension. The shaded "
        "band is how far the bias may move from the baseline before it alerts (the cutoff in standard errors of the "
        "change), from the week after the baseline; a red point is an alert, an orange one a week with too few items "
        "to test (no band). A purple line and triangle mark a week whose judge version differs from the week before "
        f"(a new prompt or model, or back to an old one); the tooltips name the versions.{marked}")
    c.panels([bias_panel(biased[biased["dimension"] == d], d) for d in sorted(biased["dimension"].unique())], PER_ROW)

# -- agreement over time ---------------------------------------------------------------------------------------------
long = pd.concat([
    chosen.assign(statistic="exact agreement", value=chosen["exact_agreement"]),
    chosen.assign(statistic="quadratic-weighted kappa", value=chosen["kappa_quadratic"]),
]).dropna(subset=["value"])
if long.empty:
    st.info("No exact agreement or kappa for these dimensions yet.", icon=":material/info:")
else:
    x = c.shared_week_x(long["week_start"])
    colour = alt.Color("dimension:N", title=None, legend=alt.Legend(orient="bottom", columns=2, labelLimit=200),
                       scale=alt.Scale(domain=sorted(long["dimension"].unique()), scheme="tableau10"))

    def agreement_panel(statistic: str, question: str, subtitle: str) -> alt.LayerChart:
        lines = alt.Chart().mark_line(point=True).encode(
            x=x, y=alt.Y("value:Q", title=statistic, scale=alt.Scale(domain=[-0.2, 1], clamp=True)), color=colour,
            tooltip=["dimension", "statistic", c.week_tooltip(), alt.Tooltip("value:Q", format=".2f"),
                     alt.Tooltip("n_agreement_pairs:Q", title="judge-person pairs compared")])
        return alt.layer(lines, *week_rule(), data=long[long["statistic"] == statistic]).properties(
            height=220, title=c.title(question, subtitle + marked))

    c.panels([agreement_panel(statistic, question, subtitle) for statistic, question, subtitle in (
        ("exact agreement", f"Does {judge} still give people's labels?",
         "Exact agreement: share of judge-person pairs with the same label (on a hazard, pairs where either answered "
         "unsure are left out)."),
        ("quadratic-weighted kappa", f"Does {judge} still agree beyond chance?",
         "Quadratic kappa: agreement beyond chance that counts near misses on ordered scales (1 perfect, 0 chance)."),
    ) if (long["statistic"] == statistic).any()], WIDE_PER_ROW)
    undefined = chosen[chosen["kappa_quadratic"].isna()]["dimension"].unique()
    if len(undefined):
        st.caption("Kappa is n/a where judge and people used a single category that week (agreement beyond chance "
                   f"is undefined): {', '.join(sorted(undefined))}.")

# -- the judge's alerts ------------------------------------------------------------------------------------------------
up_to = f" up to {week_label}" if week else ""
st.subheader(f"Drift alerts of {judge}{up_to}")
alerts = db.query(
    """
    select judge_id, dimension, week_start, mean_bias, bias_ci_low, bias_ci_high, baseline_bias, bias_delta,
           bias_delta_se, drift_z, drift_critical_value, n_items, n_humans, exact_agreement, kappa_quadratic,
           judge_versions, baseline_judge_versions, is_judge_version_changed, has_new_judge_version,
           example_task_id, example_model_id, example_judge_score, example_human_score, example_n_humans,
           example_judge_version, example_prompt, example_response
    from marts.rpt_weekly_drift_alerts
    where judge_id = ? and (cast(? as date) is null or week_start <= ?)
    order by week_start desc, abs(drift_z) desc
    """,
    [judge, week, week],
)
c.notes(alerts)
if not c.empty_state(alerts, f"drift alerts of {judge}{up_to}",
                     "An alert appears when a judge's weekly bias leaves its band."):
    a = alerts.frame
    # The week and dimension pinned, then what the alert is on (the bias against people, its change from the
    # baseline in standard errors, the z past which it alerts), then whether the judge's version changed.
    c.table(
        pd.DataFrame({
            "week": a["week_start"].map(lambda d: c.iso_week(c.to_date(d))), "dimension": a["dimension"],
            "judge version": [", ".join(versions(v)) or "not recorded" for v in a["judge_versions"]],
            "version changed?": [version_change(ch, n) for ch, n in
                                 zip(a["is_judge_version_changed"], a["has_new_judge_version"])],
            "bias [95% interval]": [c.with_interval(v, lo, hi) for v, lo, hi in
                                    zip(a["mean_bias"], a["bias_ci_low"], a["bias_ci_high"])],
            "baseline bias": [c.num(v) for v in a["baseline_bias"]],
            "change (SE)": [f"{c.signed(d)} ({c.num(se)})" for d, se in zip(a["bias_delta"], a["bias_delta_se"])],
            "z": c.cells(a["drift_z"], EXACT_CHANGE, lambda z: c.num(z, 1)),
            "alerts beyond |z|": c.cells(a["drift_critical_value"], EXACT_CHANGE, lambda t: c.num(t, 1)),
            "n items": a["n_items"],
            "people": a["n_humans"],
            "quadratic kappa": [c.num(v) for v in a["kappa_quadratic"]],
            "baseline's version": [", ".join(versions(v)) or "not recorded" for v in a["baseline_judge_versions"]],
        }),
        key=["week", "dimension"], first=["bias [95% interval]", "change (SE)", "z", "alerts beyond |z|"],
    )
    labels = [f"{c.iso_week(c.to_date(w))} · {d}" for w, d in zip(a["week_start"], a["dimension"])]
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

# -- how often reviewers override the judge ----------------------------------------------------------------------------
st.subheader(f"Do people reviewing {judge}'s verdicts change them?")
st.caption(
    "A person reviewing the judge's form (the Review queue page, a CogniBench completed review) sees its verdict and "
    "confirms or changes it. That is not an independent opinion, so it is left out of the bias above; how often it "
    "changes the verdict is the most direct sign of whether to trust the judge. **Override rate**: share of the "
    "judge's reviewed ratings whose label a reviewer changed, with its 95% Wilson interval over those ratings. The "
    "week is the judge's: reviews come in a day or more later, so the newest weeks have few."
)
overrides = db.query(
    """
    select dimension, week_start, n_reviews, n_reviewed_ratings, n_reviewers, n_overridden, override_rate,
           override_rate_ci_low, override_rate_ci_high, mean_score_change
    from marts.fct_judge_overrides
    where judge_id = ?
    order by dimension, week_start
    """,
    [judge],
)
c.notes(overrides)
if not c.empty_state(overrides, f"reviews of {judge}'s verdicts",
                     "A person reviews a judge's form on the Review queue page; a CogniBench record counts once it "
                     "is exported with a completed review."):
    reviewed = overrides.frame
    shown_dimensions = dimensions or default
    reviewed = reviewed[reviewed["dimension"].isin(shown_dimensions)].copy()
    if reviewed.empty:
        st.info(f"No reviews of {judge}'s verdicts on these dimensions; there are on: "
                f"{', '.join(sorted(overrides.frame['dimension'].unique()))}.", icon=":material/info:")
    else:
        reviewed["shown"] = [c.with_interval(v, lo, hi, as_pct=True) for v, lo, hi in
                             zip(reviewed["override_rate"], reviewed["override_rate_ci_low"],
                                 reviewed["override_rate_ci_high"])]
        tooltip = ["dimension", c.week_tooltip(), alt.Tooltip("shown:N", title="override rate [95% interval]"),
                   alt.Tooltip("n_reviewed_ratings:Q", title="reviewed ratings"),
                   alt.Tooltip("n_overridden:Q", title="reviews that changed it"),
                   alt.Tooltip("n_reviewers:Q", title="reviewers")]
        y_scale = alt.Scale(domain=[0, 1])
        x = c.shared_week_x(reviewed["week_start"])

        def override_panel(rows: pd.DataFrame, dimension: str) -> alt.LayerChart:
            base = alt.Chart().encode(x=x)
            bars = base.mark_rule(strokeWidth=2).encode(
                y=alt.Y("override_rate_ci_low:Q", title="reviewed ratings changed (%)", scale=y_scale,
                        axis=alt.Axis(format="%")),
                y2="override_rate_ci_high:Q", tooltip=tooltip)
            points = base.mark_point(filled=True, size=70).encode(y=alt.Y("override_rate:Q", scale=y_scale),
                                                                  tooltip=tooltip)
            return alt.layer(bars, points, *week_rule(), data=rows).properties(
                height=160, title=c.title(f"Overruled on {dimension}?"))

        st.caption(f"**How often do reviewers overrule {judge}?** Share of the judge's reviewed ratings whose label a "
                   f"reviewer changed, per week and dimension, with its 95% Wilson interval.{marked}")
        c.panels([override_panel(reviewed[reviewed["dimension"] == d], d)
                for d in sorted(reviewed["dimension"].unique())], PER_ROW)
        # The chosen week, or, as reviews lag, the latest week before it with reviews.
        reviewed_weeks = reviewed["week_start"].map(c.to_date)
        earlier = sorted(w for w in reviewed_weeks.unique() if week is None or w <= week)
        if not earlier:
            st.caption(f"No reviews of {judge}'s ratings up to {week_label} on these dimensions.")
        else:
            table_week = earlier[-1]
            this_week = reviewed[reviewed_weeks == table_week]
            st.caption(f"{c.iso_week(table_week)}, per dimension" + (
                "" if table_week == week else f" (the latest week up to {week_label} with reviews so far)") + ":")
            c.table(
                pd.DataFrame({
                    "dimension": this_week["dimension"],
                    "override rate [95% interval]": list(this_week["shown"]),
                    "reviewed ratings": this_week["n_reviewed_ratings"], "reviews": this_week["n_reviews"],
                    "changed": this_week["n_overridden"], "reviewers": this_week["n_reviewers"],
                    "mean score change": [c.signed(v) for v in this_week["mean_score_change"]],
                }),
                key=["dimension"],
            )
