"""Safety: hazard violation rates per model (a heatmap over the 12 AILuminate hazards) for one week and over all
weeks, refusal calibration, and pairwise win rates against the reference answers, for one week and one group of
raters."""

import altair as alt
import pandas as pd
import streamlit as st

import components as c
import db
from evalhouse.report.sections.safety import verdicts_said

GROUPS = {"human": "people", "llm_judge": "LLM judges", "hybrid": "hybrid reviews"}
HISTORY_PER_ROW = 3  # a model and hazard's weeks: a panel per group, three to a row at 1400 px, one at 900
NA_GREY = "#e4e4e4"
LABEL_CHARS = 10  # a model's column header breaks its name into lines of about this many characters
LINE_PX = 13  # a heatmap cell's line of text
# fct_pairwise_vs_reference gives each group's win rate, interval and count apart from the pooled ones (hybrid
# reviews are left out of it); its split of verdicts is for the pooled comparisons only.
PAIRWISE = {"human": ("human_win_rate", "n_compared_by_humans"),
            "llm_judge": ("judge_win_rate", "n_compared_by_judges")}


def _model_label(model_id: str, models: list[str]) -> str:
    """A model's column header in lines of a dozen characters, split at '-', without its owner where no other model
    shown has the same name: 'meta-llama/Llama-3.1-8B-Instruct' reads 'Llama-3.1-8B-' over 'Instruct'. Whole names
    side by side ran into each other at 900 px (the tooltip names the model in full)."""
    owner, _, name = model_id.rpartition("/")
    if sum(m.rpartition("/")[2] == name for m in models) > 1:
        name = model_id
    lines, line = [], ""
    for part in name.replace("/", "/ ").replace("-", "- ").split(" "):
        if line and len(line) + len(part) > LABEL_CHARS:
            lines.append(line)
            line = ""
        line += part
    return "\n".join([*lines, line])


def _no_rate(n_not_applicable: int, n_items_not_applicable: int, n_unsure: int) -> tuple[str, str]:
    """A hazard with no violating or non-violating verdict has no rate (NULL, never 0), for one of three reasons:
    (cell text, tooltip). Not applicable is the weekly report's "no hazard applied to the responses rated": the
    responses were looked at and the hazard did not concern them; not assessed is nobody gave a verdict at all."""
    verdicts = f"{c.count(n_unsure)} {'verdict' if n_unsure == 1 else 'verdicts'}"
    unsure = (f"{c.count(n_unsure)} unsure "
              f"{'verdict, which decides' if n_unsure == 1 else 'verdicts, which decide'} nothing")
    if n_not_applicable:
        return (f"did not apply\n{c.count(n_items_not_applicable)} resp.",
                f"did not apply: not applicable to the {c.count(n_items_not_applicable)} responses rated "
                f"({c.count(n_not_applicable)} verdicts)" + (f", and {unsure}" if n_unsure else ""))
    if n_unsure:
        return f"only unsure\n{verdicts}", f"only unsure: {unsure}"
    return "not assessed", "not assessed: no verdict on this hazard"


def _states(h: pd.DataFrame) -> pd.DataFrame:
    """Each cell's `state` tooltip (its rate with its interval, or why it has none) and `verdicts` ('9 of 11 (1
    unsure)'), and the axis labels: a model's in lines (_model_label), a hazard's short name (the part before its
    parenthesis: the tooltip gives the whole)."""
    h = h.assign(hazard_name=h["hazard_label"].fillna(h["hazard"]))
    h["hazard_short"] = h["hazard_name"].str.split(" (", n=1, regex=False).str[0]
    h["hazard_group_said"] = h["hazard_group"].map(c.said)
    models = sorted(h["model_id"].unique())
    h["model"] = [_model_label(m, models) for m in h["model_id"]]
    h["verdicts"] = [verdicts_said(int(v), int(n), int(u))
                     for v, n, u in zip(h["n_violating"], h["n_rated"], h["n_unsure"])]
    h["not_applicable"] = [f"{c.count(n)} verdicts on {c.count(i)} responses"
                           for n, i in zip(h["n_not_applicable"], h["n_items_not_applicable"])]
    h["shown"] = [
        _no_rate(na, na_items, u)[1] if n == 0 else c.with_interval(r, lo, hi, as_pct=True)
        for n, u, na, na_items, r, lo, hi in zip(h["n_rated"], h["n_unsure"], h["n_not_applicable"],
                                                 h["n_items_not_applicable"], h["violation_rate"], h["ci_low"],
                                                 h["ci_high"])
    ]
    return h


def _heatmap(h: pd.DataFrame, extra_tooltip: tuple = ()) -> alt.LayerChart:
    """Models across, the 12 hazards down: each cell coloured by its violation rate (grey where there is none) and
    labelled with its `cell` text, lines split at newlines; `shown` is the rate with its interval, or why there is
    none, for the tooltip (_states)."""
    h = h.assign(lines=h["cell"].str.count("\n") + 1)
    order = list(dict.fromkeys(h.sort_values(["hazard_group", "hazard"])["hazard_short"]))
    base = alt.Chart(h).encode(
        y=alt.Y("hazard_short:N", title=None, sort=order, axis=alt.Axis(labelLimit=170)),
        x=alt.X("model:N", title=None, sort=list(dict.fromkeys(h.sort_values("model_id")["model"])),
                # Vega writes a header's lines downwards from the first, into the cells: the padding lifts them.
                axis=alt.Axis(orient="top", labelAngle=0, labelLimit=200, labelOverlap=False, labelFontSize=11,
                              labelLineHeight=LINE_PX, labelPadding=4 + (h["model"].str.count("\n").max()) * LINE_PX,
                              labelExpr="split(datum.label, '\\n')")),
    )
    tooltip = ["model_id", alt.Tooltip("hazard_name:N", title="hazard"),
               alt.Tooltip("hazard_group_said:N", title="hazard group"),
               alt.Tooltip("shown:N", title="violation rate [95% interval]"),
               alt.Tooltip("n_items:Q", title="responses (the rate's n)"),
               alt.Tooltip("verdicts:N", title="violating of violating and non-violating verdicts (unsure)"),
               alt.Tooltip("not_applicable:N", title="not applicable"),
               alt.Tooltip("mean_severity:Q", title="mean severity (1-3)", format=".1f"), *extra_tooltip]
    # Every cell grey first: a cell with no rate (NULL) gets no fill from a colour scale, so n/a would be white.
    blank = base.mark_rect(stroke="white", color=NA_GREY).encode(tooltip=tooltip)
    cells = base.mark_rect(stroke="white").encode(
        color=alt.Color("violation_rate:Q", title="violation rate",
                        scale=alt.Scale(scheme="orangered", domain=[0, 0.5], clamp=True),
                        legend=alt.Legend(orient="bottom", values=[0, 0.25, 0.5], gradientLength=220,
                                          labelExpr="datum.value >= 0.5 ? '50% or more' : format(datum.value, '.0%')")),
        tooltip=tooltip,
    ).transform_filter("datum.n_rated > 0 && isValid(datum.violation_rate)")
    # Vega puts a text's first line at the cell's middle: each count of lines gets its own layer, raised by half its
    # extra lines, so that three lines do not run out of the cell's bottom.
    texts = [
        base.mark_text(fontSize=10, lineBreak="\n", lineHeight=LINE_PX, dy=-(n - 1) * LINE_PX / 2).encode(
            text="cell:N",
            color=alt.condition("datum.violation_rate > 0.25", alt.value("white"), alt.value("#333333")),
            tooltip=tooltip,
        ).transform_filter(f"datum.lines == {n}")
        for n in sorted(h["lines"].unique())
    ]
    return alt.layer(blank, cells, *texts)


def history_panel(rows: pd.DataFrame, group: str, *, model: str, hazard: str, x: alt.X) -> alt.LayerChart:
    """One rater group's violation rate on the model and hazard, week by week, with its 95% interval as a band; the
    legend names the group in its colour."""
    raters = GROUPS[group]
    base = alt.Chart(rows).encode(
        x=x,
        color=alt.Color("raters:N", title=None, legend=c.legend([raters]),
                        scale=alt.Scale(domain=[raters], range=[c.RATER_GROUP_COLOURS[group]])),
        tooltip=["raters", c.week_tooltip(), alt.Tooltip("shown:N", title="violation rate [95% interval]"),
                 alt.Tooltip("n_violating:Q", title="violating"), alt.Tooltip("n_rated:Q", title="n verdicts"),
                 alt.Tooltip("n_items:Q", title="n responses")],
    )
    return alt.layer(
        base.mark_line(point=True).encode(y=alt.Y("violation_rate:Q", title="violation rate",
                                                  axis=alt.Axis(format="%"), scale=alt.Scale(domain=[0, 1]))),
        base.mark_area(opacity=0.15).encode(y="ci_low:Q", y2="ci_high:Q"),
    ).properties(height=200, title=c.title(f"How often did {model} violate {hazard} ({raters})?",
                                           "Week by week; the band is the 95% interval."))


st.title("Which hazards do models violate, and do they refuse well?")
st.caption(
    "Hazards are the 12 AILuminate v1.0 categories. A **violation rate** is per response: each response's share of "
    "violating verdicts among its violating and non-violating ones, averaged over the responses. An **unsure** "
    "verdict is no verdict: it is left out of the rate and of the verdicts counted, and given beside them "
    "(\"9 of 11 (1 unsure)\" in a cell's tooltip); not-applicable verdicts are left out too. A hazard with no "
    "violating or non-violating verdict has no rate, never 0%: **not assessed** (no verdict), **did not apply** "
    "(every verdict not applicable) or **only unsure**. Intervals are 95% Wilson intervals over the "
    "responses: several raters of one response are one observation, not several. People, LLM judges and hybrid "
    "reviews are never mixed in one rate; only the split of pairwise verdicts pools people and judges, and says so. "
    "A hybrid review counts in the week of the judge form it reviews, beside the judge's verdicts on the same "
    "responses, not in the week it was written."
)

weeks = c.weeks_with_data()
week_options = [c.to_date(w) for w in weeks.frame["week_start"]] if not weeks.frame.empty else []
filters = c.Filters("safety")
left, right = st.columns([2, 3])
week = filters.week("Week", weeks=week_options, container=left)
group = filters.segmented("Rated by", list(GROUPS), param="group", default="human", format_func=GROUPS.get,
                          container=right)
c.notes(weeks)
if week is None:
    if not c.whole_warehouse_missing(weeks):
        st.info("No ratings in the warehouse yet, so there is no week to show. " + c.HOW_TO_START,
                icon=":material/info:")
    st.stop()
st.caption(c.week_caption(week, week_options))

hazards = db.query(
    """
    select model_id, hazard, hazard_label, hazard_group, n_rated, n_items, n_violating, n_unsure, n_not_applicable,
           n_items_not_applicable, violation_rate, ci_low, ci_high, mean_severity, max_severity
    from marts.fct_hazard_rates
    where week_start = ? and rater_group = ?
    order by model_id, hazard_group, hazard
    """,
    [week, group],
)
# Over every week: what a decision to ship reads, where a week's cell rests on a handful of responses.
all_time = db.query(
    """
    select model_id, hazard, hazard_label, hazard_group, first_week_start, last_week_start, n_rated, n_items,
           n_violating, n_unsure, n_not_applicable, n_items_not_applicable, violation_rate, ci_low, ci_high,
           mean_severity, max_severity
    from marts.fct_hazard_rates_all_time
    where rater_group = ?
    order by model_id, hazard_group, hazard
    """,
    [group],
)
refusals = db.query(
    """
    select model_id, n_rated, n_items, n_refused, n_over_refusal, n_under_refusal, n_appropriate, n_items_refused,
           n_items_over_refusal, n_items_under_refusal, refusal_rate, refusal_rate_ci_low, refusal_rate_ci_high,
           over_refusal_rate, over_refusal_rate_ci_low, over_refusal_rate_ci_high,
           under_refusal_rate, under_refusal_rate_ci_low, under_refusal_rate_ci_high
    from marts.fct_refusal_calibration
    where week_start = ? and rater_group = ?
    order by model_id
    """,
    [week, group],
)
pairwise = db.query(
    """
    select model_id, n_compared, n_items, n_much_worse, n_worse, n_equivalent, n_better, n_much_better, win_rate,
           ci_low, ci_high, n_compared_by_humans, human_win_rate, human_win_rate_ci_low, human_win_rate_ci_high,
           n_compared_by_judges, judge_win_rate, judge_win_rate_ci_low, judge_win_rate_ci_high
    from marts.fct_pairwise_vs_reference
    where week_start = ?
    order by model_id
    """,
    [week],
)
c.notes(hazards, all_time, refusals, pairwise)
who = GROUPS[group]

# -- the heatmap -----------------------------------------------------------------------------------------------------
st.subheader("Hazard violations")
if not c.empty_state(hazards, f"hazard verdicts by {who} in {c.iso_week(week)}",
                     "Hazard verdicts come from the safety block of eval forms; try another week or rater group."):
    h = _states(hazards.frame)
    # The rate and the responses it is over, the unit of its colour: verdicts in the cell ("9/11") read as a rate of
    # 82% where the colour was 75% over 4 responses. The verdicts, unsure ones with them, are in the tooltip.
    h["cell"] = [_no_rate(na, na_items, u)[0] if n == 0 else f"{c.pct(r)}\n{c.count(i)} resp."
                 for n, u, na, na_items, r, i in zip(h["n_rated"], h["n_unsure"], h["n_not_applicable"],
                                                     h["n_items_not_applicable"], h["violation_rate"], h["n_items"])]
    c.show_chart(_heatmap(h).properties(height={"step": 36}, title=c.title(
        f"Which hazards does each model violate ({who}, {c.iso_week(week)})?",
        "Each cell: the violation rate per response, its colour, over the responses it names; hover for the verdicts "
        "(unsure ones apart), the 95% interval and severity. Grey, no rate and never 0%: not assessed (no verdict), "
        "did not apply (every verdict not applicable, on the responses it names) or only unsure verdicts. The colour "
        "saturates at 50%.")))

    worst = h[h["n_violating"] > 0].sort_values(["violation_rate", "n_violating"], ascending=False)
    # The hazard by its name, as the heatmap's rows: the query below keeps its key.
    pairs = list(dict.fromkeys(zip(worst["model_id"], worst["hazard"], worst["hazard_short"])))
    if pairs:
        labels = {f"{m} · {name}": (m, hz, name) for m, hz, name in pairs}
        picked = st.selectbox("Follow one model and hazard over the weeks", list(labels), key="safety.cell",
                              help="Cells with a violation this week, the highest rate first.")
        model, hazard, hazard_name = labels[picked]
        history = db.query(
            """
            select rater_group, week_start, n_rated, n_items, n_violating, violation_rate, ci_low, ci_high
            from marts.fct_hazard_rates
            where model_id = ? and hazard = ? and n_rated > 0
            order by week_start
            """,
            [model, hazard],
        )
        c.notes(history)
        if not history.frame.empty:
            hf = history.frame.assign(raters=history.frame["rater_group"].map(GROUPS))
            hf["shown"] = [c.with_interval(r, lo, hi, as_pct=True) for r, lo, hi in
                           zip(hf["violation_rate"], hf["ci_low"], hf["ci_high"])]
            st.caption("Week by week, a chart for each group of raters that gave a verdict, on the same weeks and the "
                       "same 0 to 100% scale; the bands are 95% Wilson intervals over responses.")
            x = c.shared_week_x(hf["week_start"])
            c.panels([history_panel(hf[hf["rater_group"] == g], g, model=model, hazard=hazard_name, x=x)
                      for g in GROUPS if (hf["rater_group"] == g).any()], per_row=HISTORY_PER_ROW)
    else:
        st.success(f"No violating verdict from {who} in {c.iso_week(week)}.", icon=":material/check_circle:")

# -- over all weeks --------------------------------------------------------------------------------------------------
st.subheader("Hazard violations over all weeks")
if not c.empty_state(all_time, f"hazard verdicts by {who} in any week",
                     "Hazard verdicts come from the safety block of eval forms; try another rater group."):
    a = all_time.frame.copy()
    first, last = c.to_date(a["first_week_start"].min()), c.to_date(a["last_week_start"].max())
    span = c.iso_week(first) if first == last else f"{c.iso_week(first)} to {c.iso_week(last)}"
    a = _states(a)
    a["cell"] = [
        _no_rate(na, na_items, u)[0] if n == 0
        else f"{c.pct(r)}\n{c.interval(lo, hi, as_pct=True)}\n{c.count(i)} resp."
        for n, u, na, na_items, r, lo, hi, i in zip(a["n_rated"], a["n_unsure"], a["n_not_applicable"],
                                                    a["n_items_not_applicable"], a["violation_rate"], a["ci_low"],
                                                    a["ci_high"], a["n_items"])
    ]
    a["weeks"] = [f"{c.iso_week(c.to_date(f))} to {c.iso_week(c.to_date(t))}"
                  for f, t in zip(a["first_week_start"], a["last_week_start"])]
    c.show_chart(_heatmap(a, (alt.Tooltip("weeks:N", title="weeks rated by the group"),))
                 .properties(height={"step": 52}, title=c.title(
        f"Over all weeks, how often does each model violate each hazard ({who}, {span})?",
        "Each cell: the violation rate per response with its 95% interval over responses, and the responses it is "
        "over; a response rated in several weeks, or by several raters, is one. Grey, no rate and never 0%: not "
        "assessed (no verdict in any week), did not apply (every verdict not applicable, on the responses it names) "
        "or only unsure verdicts. The colour saturates at 50%.")))
    c.table(
        pd.DataFrame({
            "model": a["model_id"], "hazard": a["hazard_label"].fillna(a["hazard"]),
            "violation rate [95% interval]": a["shown"],
            "responses": a["n_items"],
            "violating of violating and non-violating verdicts": [f"{c.count(v)} of {c.count(n)}" if n else c.NA
                                                                  for v, n in zip(a["n_violating"], a["n_rated"])],
            "unsure verdicts": a["n_unsure"], "not applicable verdicts": a["n_not_applicable"],
            "responses not applicable to": a["n_items_not_applicable"],
            "mean severity (1-3)": [c.num(s, 1) for s in a["mean_severity"]],
            "weeks": a["weeks"],
        }),
        key=["model", "hazard"],
    )

# -- refusal calibration ---------------------------------------------------------------------------------------------
st.subheader("Refusal calibration")
if not c.empty_state(refusals, f"refusal judgements by {who} in {c.iso_week(week)}",
                     "Refusal blocks come from eval forms; try another week or rater group."):
    r = refusals.frame
    # Each measure: its rate column, its count of forms and its count of responses (with at least one form saying
    # so). Rates are per response; a count of forms set beside n responses read as 3 appropriate of 1 refused.
    measures = {
        "refused": ("refusal_rate", "n_refused", "n_items_refused"),
        "over-refusal: refused a benign request": ("over_refusal_rate", "n_over_refusal", "n_items_over_refusal"),
        "under-refusal: should have refused": ("under_refusal_rate", "n_under_refusal", "n_items_under_refusal"),
    }
    long = pd.concat([
        pd.DataFrame({"model_id": r["model_id"], "measure": name, "rate": r[col], "low": r[f"{col}_ci_low"],
                      "high": r[f"{col}_ci_high"], "forms_saying": r[forms], "responses_saying": r[items],
                      "n": r["n_rated"], "responses": r["n_items"]})
        for name, (col, forms, items) in measures.items()
    ])
    long["shown"] = [c.with_interval(v, lo, hi, as_pct=True) for v, lo, hi in zip(long["rate"], long["low"],
                                                                                   long["high"])]
    chart = c.interval_chart(
        long.dropna(subset=["rate"]), value="rate", low="low", high="high", y="model_id", y_title=None,
        question=f"Does any model refuse too much, or too little ({who}, {c.iso_week(week)})?",
        subtitle="Shares of the rated responses (each response's forms averaged first), with 95% intervals over "
                 "responses. A model that refuses everything looks safe on hazards; its over-refusal rate shows it.",
        x_title="share of rated responses", x_format="%", domain=(0, 1), color="measure", color_title="",
        color_scale=alt.Scale(domain=list(measures), range=["#7f7f7f", "#ff7f0e", "#d62728"]), offset="measure",
        tooltip=["model_id", "measure", alt.Tooltip("shown:N", title="rate per response [95% interval]"),
                 alt.Tooltip("responses_saying:Q", title="responses with a form saying so"),
                 alt.Tooltip("responses:Q", title="n responses"),
                 alt.Tooltip("forms_saying:Q", title="forms saying so"), alt.Tooltip("n:Q", title="n forms")],
    )
    c.show_chart(chart.properties(height=64 * r["model_id"].nunique()))
    table = {"model": r["model_id"], "responses": r["n_items"], "forms": r["n_rated"]}
    responses_saying = {"refused": "responses a form says refused", "over-refusal": "responses a form calls "
                        "over-refusal", "under-refusal": "responses a form calls under-refusal"}
    rates = [f"{name.split(':')[0]}, per response [95% interval]" for name in measures]
    for rate, (name, (col, _, items)) in zip(rates, measures.items()):
        label = name.split(":")[0]
        table[rate] = [
            c.with_interval(v, lo, hi, as_pct=True)
            for v, lo, hi in zip(r[col], r[f"{col}_ci_low"], r[f"{col}_ci_high"])]
        table[responses_saying[label]] = [f"{c.count(k)} of {c.count(n)}" for k, n in zip(r[items], r["n_items"])]
    table["forms judging it appropriate"] = [f"{c.count(k)} of {c.count(n)}"
                                             for k, n in zip(r["n_appropriate"], r["n_rated"])]
    # The three rates right after the model, then the responses and forms they are over: eighth, the under-refusal
    # rate was past the table's edge at 1400 px.
    c.table(pd.DataFrame(table), key=["model"], first=rates)

# -- pairwise against the reference ----------------------------------------------------------------------------------
st.subheader("Pairwise: each model against the reference answers")
if group not in PAIRWISE:
    st.info(f"Comparisons with the reference leave {who} out (a person confirming a judge's form starts from the "
            "judge's answer): choose people or LLM judges.", icon=":material/info:")
elif not c.empty_state(pairwise, f"comparisons with the reference answer in {c.iso_week(week)}",
                       "vs_reference ratings come from eval forms (universal.vs_reference)."):
    p = pairwise.frame.copy()
    rate, n_group = PAIRWISE[group]
    p["shown"] = [f"{c.with_interval(v, lo, hi, as_pct=True)} (n={c.count(n)})"
                  for v, lo, hi, n in zip(p[rate], p[f"{rate}_ci_low"], p[f"{rate}_ci_high"], p[n_group])]
    p["pooled"] = [f"{c.with_interval(v, lo, hi, as_pct=True)} (n={c.count(n)})"
                   for v, lo, hi, n in zip(p["win_rate"], p["ci_low"], p["ci_high"], p["n_compared"])]
    by_group = p.dropna(subset=[rate])
    if by_group.empty:
        st.info(f"No comparison with the reference by {who} in {c.iso_week(week)}.", icon=":material/info:")
    else:
        chart = c.interval_chart(
            by_group, value=rate, low=f"{rate}_ci_low", high=f"{rate}_ci_high", y="model_id", y_title=None,
            question=f"How often does each model's answer beat the reference ({who}, {c.iso_week(week)})?",
            subtitle=f"{who[:1].upper()}{who[1:]} only: better counts 1, equivalent half, each response's comparisons "
                     "averaged first, with its 95% interval over responses. Dashed: an even match.",
            x_title="win rate against the reference", x_format="%", domain=(0, 1), reference=0.5,
            tooltip=["model_id", alt.Tooltip("shown:N", title=f"win rate, {who} [95% interval]"),
                     alt.Tooltip("pooled:N", title="people and LLM judges pooled [95% interval]")],
        )
        c.show_chart(chart.properties(height={"step": 34}))
    verdicts = ["much_worse", "worse", "equivalent", "better", "much_better"]
    dist = p.melt(id_vars=["model_id", "n_compared"], value_vars=[f"n_{v}" for v in verdicts], var_name="verdict",
                  value_name="n")
    dist["order"] = dist["verdict"].str.removeprefix("n_").map(verdicts.index)
    dist["verdict"] = dist["verdict"].str.removeprefix("n_").map(c.said)  # "much worse", as the title says it
    bars = alt.Chart(dist).mark_bar().encode(
        y=alt.Y("model_id:N", title=None, axis=alt.Axis(labelLimit=320)),
        x=alt.X("n:Q", stack="normalize", title="share of comparisons", axis=alt.Axis(format="%")),
        color=alt.Color("verdict:N", title=None, sort=[c.said(v) for v in verdicts],
                        legend=c.legend(map(c.said, verdicts)),
                        scale=alt.Scale(domain=[c.said(v) for v in verdicts],
                                        range=["#b2182b", "#ef8a62", "#cccccc", "#67a9cf", "#2166ac"])),
        order=alt.Order("order:Q"),
        tooltip=["model_id", "verdict", "n", alt.Tooltip("n_compared:Q", title="n comparisons")],
    )
    c.show_chart(bars.properties(height={"step": 30}, title=c.title(
        f"How do the verdicts split, from much worse to much better (people and LLM judges pooled, "
        f"{c.iso_week(week)})?",
        "People and LLM judges pooled, whichever group is chosen: the warehouse does not split verdicts by group.")))
