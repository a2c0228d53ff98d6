"""Agreement: Krippendorff's alpha and Fleiss' kappa per dimension and rater group against the targets (people's
first: whether people read a rubric the same way), how it moves week by week, the items people disagree on, flagged
for rubric clarification, with their ratings side by side, and how close raters come to the known answers of gold
items."""

import altair as alt
import pandas as pd
import streamlit as st

import components as c
import db

ALL_TIME = "all time"
# People first: the target is about whether people read a rubric the same way. All raters pool the LLM judges in, so
# a judge that disagrees with people (judge drift, its own page) pulls that alpha down.
GROUPS = {"human": "people", "all": "all raters (people and judges)", "llm_judge": "LLM judges"}
# The picker's options say it short: pills do not wrap, and the long one was cut off in its column.
GROUP_OPTIONS = {"human": "people", "all": "all raters", "llm_judge": "LLM judges"}
# The fct_ratings.rater_group values each group's agreement is over.
COUNTED = {"human": ("human",), "all": ("human", "llm_judge"), "llm_judge": ("llm_judge",)}
# fct_ratings.rater_group as the empty states say who rated (hybrid reviews count in no group's agreement).
RATED_BY = {"human": "people", "llm_judge": "LLM judges", "hybrid": "hybrid reviews (left out of agreement)"}
KAPPA_COLOUR = "Fleiss' kappa (no target)"
BELOW_WITHIN = "alpha below target, within its interval"
# Each kind of point with its colour and shape, as the legend draws it: alpha's circles in its verdict's colour,
# kappa's diamonds light grey (opaque: the legend draws no opacity, and a faint dark grey read dark there).
POINT_KINDS = {"alpha meets target": (c.GOOD, "circle"), BELOW_WITHIN: (c.WARN, "circle"),
               "alpha below target": (c.BAD, "circle"), KAPPA_COLOUR: ("#b4b4b4", "diamond")}
# Why a dimension has no alpha, as its cell says it.
NO_PAIRS, ALL_ALIKE = "n/a: no item rated twice", "n/a: every rating the same"
# fct_item_disagreement.item_agreement, on the scale a reader needs for "-3.86".
ITEM_AGREEMENT_HELP = (
    "1 minus the people's disagreement on the item over the disagreement expected between two of the dimension's "
    "ratings drawn at random. 1: they agree; 0: chance level; below 0, no lower bound: -3.86 means their ratings "
    "are 4.86 times as far apart as chance would put them. Flagged below the threshold the caption above gives. "
    "Compare items within a dimension: on one whose ratings are nearly all one label, one dissenting rater takes an "
    "item far below 0.")


st.title("Do our raters agree?")
# The targets as fct_rater_agreement compared with them (the seed agreement_targets): written in, they went stale
# when a team set its own.
targets = db.query(
    "select dimension_group, min(target) as target from marts.fct_rater_agreement group by dimension_group")
st.caption(
    "**Krippendorff's alpha**: agreement beyond chance (1 perfect, 0 chance level, below 0 systematic "
    "disagreement), ordinal on 1 to 5 scales, nominal on labels. **Fleiss' kappa**: the same idea, counting only "
    f"exact matches. Targets: alpha {c.per_group(targets.frame, 'target') or 'as the seed agreement_targets sets them'}"
    ", "
    "met or not by **people** (human, SME and end-user raters): whether people read the rubric the same way. All "
    "raters pool people with the LLM judges; "
    "a judge that disagrees with people pulls that alpha down, which the Judge drift page measures. Reviews of a "
    "judge's verdict (hybrid forms, CogniBench completed reviews) are left out: they start from the judge's answer. "
    "On a hazard, raters agree or not on the verdict the Safety page's violation rates count (violating or not: "
    "not applicable and non-violating are one answer); an **unsure** verdict says the rater cannot judge, so it is "
    "no answer and counts nowhere here (the Safety page counts it)."
)

weeks = c.weeks_with_data()
week_options = [c.to_date(w) for w in weeks.frame["week_start"]] if not weeks.frame.empty else []
filters = c.Filters("agreement")
left, middle, right = st.columns([2, 3, 2])
# The latest complete week first, as every week picker opens; all time pools every week's ratings.
week = filters.week("Week", weeks=week_options, container=left, extra_first=ALL_TIME)
week_label = ALL_TIME if week is None else c.iso_week(week)
group = filters.segmented("Rater group", list(GROUPS), param="group", default="human", format_func=GROUP_OPTIONS.get,
                          container=middle, help="All raters: people and LLM judges pooled.")
dimension_groups = right.segmented_control("Dimensions", ["quality", "safety"], selection_mode="multi",
                                           default=["quality", "safety"], key="agreement.dimension_group") or [
    "quality", "safety"]

agreement = db.query(
    """
    -- People's weekly alpha has a 95% interval (rpt_weekly_agreement's bootstrap over the week's items, what the
    -- weekly report shows); other groups and all time have none.
    select a.dimension, a.dimension_group, a.scale, a.agreement_level, a.n_ratings, a.n_items, a.n_raters, a.n_units,
           a.n_pairable_ratings, a.percent_agreement, a.top_value_share, a.alpha, a.fleiss_kappa, a.gwet_ac1,
           a.target, a.meets_target, r.human_alpha_ci_low as alpha_ci_low, r.human_alpha_ci_high as alpha_ci_high,
           r.is_target_within_interval
    from marts.fct_rater_agreement as a
    left join marts.rpt_weekly_agreement as r
        on a.rater_group = 'human'
        and a.dimension = r.dimension
        and a.week_start = r.week_start
    where a.rater_group = ?
        and list_contains(?, a.dimension_group)
        and (a.week_start = ? or (a.week_start is null and ? is null))
    order by a.dimension_group, a.dimension
    """,
    [group, dimension_groups, week, week],
)
ratings = db.query(
    """
    -- What the chosen week (or all time) holds per rater group: why a group has no agreement to show.
    select rater_group, count(*) as n_ratings
    from marts.fct_ratings
    where week_start = ? or ? is null
    group by rater_group
    """,
    [week, week],
)
c.notes(weeks, agreement, ratings)
if c.whole_warehouse_missing(agreement):
    st.stop()
if week is None:
    span = (f" from {c.iso_week(min(week_options))} to {c.iso_week(max(week_options))}" if week_options else "")
    st.caption(f"All time: every week's ratings pooled{span}, each rater's latest rating of an item. Pick a week "
               "to see the agreement on the items first rated in it.")
else:
    st.caption(c.week_caption(week, week_options) + " Agreement on the items first rated in that week; an item's "
               "later ratings count in its week. A week holds fewer items than all time: where no item has two "
               "raters, or every rating is the same, alpha is n/a and the table says why.")


def ratings_said(ratings: object) -> str:
    """'h-ana: non-violating  |  h-bo: violating': each rater's label in words, where the query lists the stored
    labels ('h-ana: non_violating')."""
    return "  |  ".join(f"{rater}{colon}{c.said(label) if colon else ''}" for rater, colon, label in (
        r.rpartition(": ") for r in c.text_or(ratings).split("  |  ") if r))


def why_no_agreement(counts: dict[str, int], scope: str) -> str:
    """Why the group has no agreement in the scope: no ratings at all, or none of the group's own (whose they are
    said), rather than a hint to ingest what is there already."""
    if not sum(counts.values()):
        return ("No ratings yet. Ingest eval forms or CogniBench records, then build." if week is None else
                f"No ratings in {scope}: its data are trials only. Pick another week, or all time.")
    own = sum(counts.get(g, 0) for g in COUNTED[group])
    if own and week is not None:
        # Agreement counts an item in the week of its first rating: these rate items first rated before.
        return (f"No agreement for {GROUPS[group]} in {scope}: their {own:,} ratings that week are of items first "
                "rated in an earlier week, where agreement counts them.")
    if own:
        return f"No agreement for {GROUPS[group]} yet. {c.HOW_TO_BUILD}"
    others = ", ".join(f"{n:,} by {RATED_BY.get(g, g)}" for g, n in sorted(counts.items()) if n)
    return (f"No ratings by {GROUPS[group]} in {scope}, so no agreement among them: the {sum(counts.values()):,} "
            f"ratings there are {others}. Pick another rater group" + (" or week." if week is not None else "."))


# -- alpha and kappa against the targets --------------------------------------------------------------------------
scope = "all time" if week is None else week_label
rating_counts = {} if ratings.frame.empty else dict(zip(ratings.frame["rater_group"],
                                                        ratings.frame["n_ratings"].astype(int)))
if agreement.frame.empty and not (agreement.missing or agreement.busy or ratings.missing or ratings.busy):
    st.info(why_no_agreement(rating_counts, scope), icon=":material/info:")
elif not c.empty_state(agreement, "ratings", "Ingest eval forms or CogniBench records, then build."):
    frame = agreement.frame.copy()
    # Short enough to read whole in the alpha column; its help and the caption above say what they mean.
    frame["why_na"] = ["" if not c.is_na(a) else NO_PAIRS if units == 0 else ALL_ALIKE
                       for a, units in zip(frame["alpha"], frame["n_units"])]
    # A verdict whose 95% interval holds the target is no firm one: the week's items cannot tell the two apart.
    frame["verdict"] = [
        "n/a" if c.is_na(m) else ("meets target" if m else "below target")
        + (", but within its interval" if not c.is_na(w) and w else "")
        for m, w in zip(frame["meets_target"], frame["is_target_within_interval"])
    ]
    frame["interval"] = [c.interval(lo, hi, digits=3) if not c.is_na(lo) else "" for lo, hi in
                         zip(frame["alpha_ci_low"], frame["alpha_ci_high"])]
    # Only alpha has a target: its points take their colour from the verdict, kappa's are grey. A shortfall whose
    # interval reaches the target is amber, as the weekly report marks it: no firm failure.
    # Kappa's rows first: its diamonds are drawn under alpha's points where the two meet.
    long = pd.concat([
        frame.assign(statistic="Fleiss' kappa", value=frame["fleiss_kappa"], colour=KAPPA_COLOUR),
        frame.assign(statistic="Krippendorff's alpha", value=frame["alpha"],
                     colour=["alpha n/a" if c.is_na(m) else "alpha meets target" if m
                             else BELOW_WITHIN if not c.is_na(w) and w else "alpha below target"
                             for m, w in zip(frame["meets_target"], frame["is_target_within_interval"])]),
    ]).dropna(subset=["value"])
    if long.empty:
        st.info(f"No alpha is defined for {GROUPS[group]} in {scope}: "
                + ("no item was rated by two or more of them." if not frame["n_units"].fillna(0).sum() else
                   "where two or more of them rated an item, every rating was the same, so agreement beyond chance "
                   "is undefined.") + " The table says why for each dimension.", icon=":material/info:")
    else:
        order = list(frame.sort_values(["dimension_group", "dimension"])["dimension"])
        y = alt.Y("dimension:N", sort=order, title=None, axis=alt.Axis(labelLimit=320))
        tooltip = ["dimension", "statistic", alt.Tooltip("value:Q", format=".3f"),
                   alt.Tooltip("interval:N", title="95% interval (people's weekly alpha)"), alt.Tooltip("target:Q"),
                   "verdict", alt.Tooltip("n_units:Q", title="items rated 2+ times"),
                   alt.Tooltip("n_raters:Q", title="raters")]
        # Colour and shape on one field make one legend whose entries look like the points: a dark circle stood
        # for kappa's light grey diamonds when the shape had a legend of its own.
        points = alt.Chart(long).mark_point(filled=True, size=90).encode(
            y=y, x=alt.X("value:Q", title="agreement (1 = perfect, 0 = chance)", scale=alt.Scale(domain=[-0.5, 1],
                                                                                              clamp=True)),
            # Room for every label whole ("alpha below target, within its interval"), in the columns a narrow plot
            # holds: two ran 127 px past a 900 px page.
            color=alt.Color("colour:N", title=None, legend=c.legend(POINT_KINDS),
                            scale=alt.Scale(domain=list(POINT_KINDS), range=[k for k, _ in POINT_KINDS.values()])),
            shape=alt.Shape("colour:N", title=None, legend=c.legend(POINT_KINDS),
                            scale=alt.Scale(domain=list(POINT_KINDS), range=[s for _, s in POINT_KINDS.values()])),
            tooltip=tooltip,
        )
        targets = alt.Chart(frame).mark_tick(color="black", thickness=2, size=16).encode(
            y=y, x="target:Q", tooltip=["dimension", alt.Tooltip("target:Q", title="target")])
        # People's weekly alpha: its 95% interval as a bar; where the bar crosses the target tick, the week's items
        # cannot tell the verdict from its opposite.
        bars = alt.Chart(frame.dropna(subset=["alpha_ci_low"])).mark_rule(color="#888888", strokeWidth=2).encode(
            y=y, x="alpha_ci_low:Q", x2="alpha_ci_high",
            tooltip=["dimension", alt.Tooltip("interval:N", title="95% interval"), "verdict"])
        chart = (bars + targets + points).properties(
            height={"step": 20},
            title=c.title(f"Which dimensions do {GROUPS[group]} agree on well enough ({scope})?",
                          "Black tick: the dimension's alpha target; kappa has none, so its diamonds are light grey. "
                          + ("Grey bar: people's alpha's 95% interval over the week's items; an amber point is "
                             "below target but within it. "
                             if frame["alpha_ci_low"].notna().any() else "")
                          + "Dimensions with no defined alpha are listed in the table with the reason."))
        c.show_chart(chart)
    c.table(
        pd.DataFrame({
            # The verdict and what it is on first, then the two shares the caption below compares: ninth, the most
            # common value's share was past the table's edge at 1400 px. Kappa, AC1 and the counts follow.
            "dimension": frame["dimension"], "verdict": frame["verdict"],
            # Three decimals: at two, 0.5976 read "0.60" beside its target 0.6 and "below target".
            "alpha": [c.with_interval(a, lo, hi, digits=3) if not c.is_na(a) else why
                      for a, lo, hi, why in zip(frame["alpha"], frame["alpha_ci_low"], frame["alpha_ci_high"],
                                                frame["why_na"])],
            "target": frame["target"],
            "raw agreement": [c.pct(v) for v in frame["percent_agreement"]],
            "most common value's share": [c.pct(v) for v in frame["top_value_share"]],
            "Fleiss' kappa": [c.num(v) for v in frame["fleiss_kappa"]],
            "Gwet's AC1": [c.num(v) for v in frame["gwet_ac1"]],
            "items rated 2+ times": frame["n_units"], "raters": frame["n_raters"], "ratings": frame["n_ratings"],
            "group": frame["dimension_group"], "level": frame["agreement_level"],
        }),
        # Sized to its rows: every dimension of a week at once (19 on the demo), a longer list scrolls.
        key=["dimension"], height=c.table_height(len(frame), max_rows=20),
        column_config={
            "verdict": st.column_config.TextColumn(
                help="Krippendorff's alpha against the dimension's target; \"but within its interval\" where "
                     "people's weekly alpha has a 95% interval that holds the target: no firm verdict."),
            "alpha": st.column_config.TextColumn(
                width=180, help="Krippendorff's alpha, its 95% interval in brackets where it has one. n/a where "
                     + ("no item was rated by two or more raters" if week is None else
                        f"no item first rated in {week_label} was rated by two or more raters")
                     + " (no item rated twice), or where every rating was the same, so agreement beyond chance is "
                       "undefined."),
            "target": st.column_config.NumberColumn("target", format="%.1f"),
            "raw agreement": st.column_config.TextColumn(
                help="The share of pairs of ratings of an item that match. Compare it with the most common "
                     "value's share."),
            "most common value's share": st.column_config.TextColumn(
                help="The share of ratings that give the dimension's most common value: the raw agreement a "
                     "rater who always gave that value would come close to."),
        },
    )
    st.caption("Raw agreement can look high on skewed data: compare it with the most common value's share, which "
               "a rater who always gave that value would reach.")
    if frame["alpha_ci_low"].notna().any():
        st.caption("People's alpha in a week has its 95% interval in brackets: a bootstrap over the week's items, "
                   "each item's ratings kept together (the weekly report's); none where people agreed on every "
                   "item, as every resample would too. Where the target lies within it, the "
                   "verdict says so (\"below target, but within its interval\"): the week has too few items to tell "
                   "a shortfall from chance, so rate more items before rewriting the rubric. All time and the other "
                   "rater groups have no interval.")

    # -- week by week --------------------------------------------------------------------------------------------
    dimensions = list(frame["dimension"])
    focus = filters.selectbox("Follow one dimension week by week", dimensions, param="dimension",
                              index=dimensions.index("helpfulness") if "helpfulness" in dimensions else 0)
    trend = db.query(
        """
        -- Every week's row, alpha or not: a dimension with no alpha in any week says why. People's alpha has its
        -- 95% interval (rpt_weekly_agreement's bootstrap over the week's items); the other groups' have none.
        select a.rater_group, a.week_start, a.alpha, a.n_units, a.target,
               r.human_alpha_ci_low as alpha_ci_low, r.human_alpha_ci_high as alpha_ci_high
        from marts.fct_rater_agreement as a
        left join marts.rpt_weekly_agreement as r
            on a.rater_group = 'human'
            and a.dimension = r.dimension
            and a.week_start = r.week_start
        where a.dimension = ? and a.week_start is not null
        order by a.week_start
        """,
        [focus],
    )
    c.notes(trend)
    weekly = trend.frame.dropna(subset=["alpha"]) if not trend.frame.empty else trend.frame
    if not trend.frame.empty and weekly.empty:
        st.info(f"No weekly alpha for {focus}: " + (
            "in no week did two or more raters rate the same item." if not trend.frame["n_units"].fillna(0).sum()
            else "in the weeks where two or more raters rated an item, every rating was the same, so agreement "
                 "beyond chance is undefined."), icon=":material/info:")
    elif not c.empty_state(trend, f"weekly alpha for {focus}"):
        tf = weekly.assign(raters=weekly["rater_group"].map(GROUPS))
        tf["interval"] = [c.interval(lo, hi) for lo, hi in zip(tf["alpha_ci_low"], tf["alpha_ci_high"])]
        base = alt.Chart(tf).encode(x=c.week_x(tf["week_start"]))
        lines = base.mark_line(point=True).encode(
            y=alt.Y("alpha:Q", title="Krippendorff's alpha", scale=alt.Scale(domain=[-0.2, 1], clamp=True)),
            color=alt.Color("raters:N", title=None, legend=c.legend(GROUPS.values()),
                            scale=alt.Scale(domain=list(GROUPS.values()),
                                            range=[c.RATER_GROUP_COLOURS[g] for g in GROUPS])),
            tooltip=["raters", c.week_tooltip(), alt.Tooltip("alpha:Q", format=".2f"),
                     alt.Tooltip("interval:N", title="95% interval (people's)"),
                     alt.Tooltip("n_units:Q", title="items rated 2+ times")],
        )
        # People's weekly alpha with its 95% interval as an error bar: a dip within it is no change.
        people = tf.dropna(subset=["alpha_ci_low", "alpha_ci_high"])
        bars = alt.Chart(people).mark_rule(color=c.RATER_GROUP_COLOURS["human"], strokeWidth=2,
                                           opacity=0.6).encode(
            x=c.week_x(tf["week_start"]),
            y=alt.Y("alpha_ci_low:Q", scale=alt.Scale(domain=[-0.2, 1], clamp=True)), y2="alpha_ci_high:Q",
            tooltip=["raters", c.week_tooltip(), alt.Tooltip("alpha:Q", format=".2f"),
                     alt.Tooltip("interval:N", title="95% interval"),
                     alt.Tooltip("n_units:Q", title="items rated 2+ times")])
        layers = [bars, lines,
                  alt.Chart(tf.head(1)).mark_rule(strokeDash=[4, 4], color="black").encode(y="target:Q")]
        if week is not None:  # the week the page shows, among the others
            layers.append(alt.Chart(tf.head(1)).mark_rule(color="gray", opacity=0.5, strokeWidth=4).encode(
                x=alt.datum(alt.DateTime(year=week.year, month=week.month, date=week.day))))
        c.show_chart(alt.layer(*layers).properties(height=260, title=c.title(
            f"Has agreement on {focus} changed week by week?",
            "Dashed: the target."
            + (" Orange bars: people's alpha's 95% interval over the week's items (a bootstrap, the weekly report's): "
               "a dip within them is not a change. All raters and LLM judges have none." if not people.empty else "")
            + (f" Grey band: {week_label}, the week shown above." if week else ""))))

# -- items flagged for rubric clarification --------------------------------------------------------------------------


def flag_threshold(thresholds: pd.DataFrame) -> str:
    """'below 0.4', or 'below 0.4 on quality dimensions and 0.3 on safety dimensions' where the groups' thresholds
    (the seed agreement_targets.flag_below, as the build flagged with it) differ; the seed's name where no item of
    the groups was rated by two people."""
    said = c.per_group(thresholds, "flag_below")
    return f"below {said}" if said else "below its dimension group's threshold (the seed agreement_targets, flag_below)"


st.subheader("Items people disagree on: flagged for rubric clarification")
thresholds = db.query(
    """
    -- The threshold each dimension group's items were flagged below (fct_item_disagreement.is_flagged)
    select dimension_group, min(flag_below) as flag_below
    from marts.fct_item_disagreement
    where list_contains(?, dimension_group)
    group by dimension_group
    """,
    [dimension_groups],
)
c.notes(thresholds)
st.caption("An item is flagged when the people's agreement on it (1 minus their disagreement over the dimension's "
           f"expected disagreement among people) is {flag_threshold(thresholds.frame)}: the people who rated it "
           "read the rubric differently. "
           "1 is perfect and 0 chance level; below 0 the raters disagree more than chance would make them, and there "
           "is no lower bound (an item's disagreement can be many times the expected one). Only items two or more "
           "people rated; the LLM judges' ratings are shown beside the people's but do not count (a judge that "
           "disagrees with people is judge drift, not a rubric to clarify, whatever the rater group chosen above).")
flagged = db.query(
    """
    -- Each flagged item with each rater's latest independent rating of it, as agreement counts them: sorted by rater
    -- within a list (an ordered string_agg took twice as long on the benchmark's 14,338 flagged items).
    select
        item_id,
        dimension,
        any_value(agreement_level) as agreement_level,
        any_value(model_id) as model_id,
        any_value(task_id) as task_id,
        any_value(week_start) as week_start,
        any_value(n_ratings) as n_ratings,
        any_value(spread) as spread,
        any_value(item_agreement) as item_agreement,
        array_to_string(list_transform(
            list_sort(list({'rater': rater_id, 'label': coalesce(label, 'n/a')})
                      filter (where rater_group = 'human')),
            lambda r: r.rater || ': ' || r.label), '  |  ') as ratings,
        array_to_string(list_transform(
            list_sort(list({'rater': rater_id, 'label': coalesce(label, 'n/a')})
                      filter (where rater_group = 'llm_judge')),
            lambda r: r.rater || ': ' || r.label), '  |  ') as judge_ratings
    from marts.fct_flagged_item_ratings
    where list_contains(?, dimension_group)
        and (week_start = ? or ? is null)
    group by item_id, dimension
    order by item_agreement, week_start desc, item_id, dimension
    """,
    [dimension_groups, week, week],
)
c.notes(flagged)
if not c.empty_state(flagged, "items flagged for rubric clarification",
                     "Items are flagged when two or more people rated them and disagreed beyond the threshold."):
    fl = flagged.frame
    dims = sorted(fl["dimension"].unique())
    chosen_dims = filters.multiselect("Dimensions to list", dims, param="flagged", placeholder="All dimensions")
    if chosen_dims:
        fl = fl[fl["dimension"].isin(chosen_dims)]
    # The Overview counts items (rpt_weekly_summary.n_flagged_items); a row here is an item on one dimension.
    st.caption(f"{fl['item_id'].nunique():,} items ({len(fl):,} item x dimension pairs) flagged "
               f"({'all time' if week is None else 'first rated in ' + week_label}), the least agreed first.")
    c.table(
        pd.DataFrame({
            # The item's agreement and people's ratings after what identifies it: fifth and seventh, the ratings
            # and the agreement were past the table's edge at 1400 px. The judges' ratings, not counted, come last.
            "task": fl["task_id"], "model": fl["model_id"], "dimension": fl["dimension"],
            "item agreement, people": fl["item_agreement"],
            "people's ratings, side by side": fl["ratings"].map(ratings_said),
            # On a nominal scale the labels have no distance, though some carry a score (a violating hazard
            # verdict 1, non-violating 0): a spread of 1 there means labels that differ, not one point.
            "spread (points)": c.cells(fl["spread"].where(fl["agreement_level"] != "nominal"), "n/a (label scale)",
                                       lambda v: f"{v:g}"),
            "people": fl["n_ratings"],
            "week": [c.iso_week(c.to_date(w)) if not c.is_na(w) else c.NA for w in fl["week_start"]],
            "LLM judges' ratings (not counted)": fl["judge_ratings"].map(ratings_said),
        }).head(1000),
        key=["task", "model", "dimension"], height=c.table_height(min(len(fl), 1000)),
        column_config={
            "task": st.column_config.TextColumn(width=120),
            "people's ratings, side by side": st.column_config.TextColumn(
                width=280, help="Each person's latest rating of the item, by rater id."),
            "item agreement, people": st.column_config.NumberColumn(format="%.2f", help=ITEM_AGREEMENT_HELP),
            "spread (points)": st.column_config.TextColumn(
                help="Highest score minus lowest; n/a on scales of labels (hazard verdicts, refusals)."),
            "LLM judges' ratings (not counted)": st.column_config.TextColumn(
                width="large", help="Shown beside the people's, not counted in the item's agreement."),
            "week": st.column_config.TextColumn(
                help="The ISO week of the item's first rating; its later ratings count in that week too."),
        },
    )
    if not fl.empty:
        shown = fl.head(1000).reset_index(drop=True)
        labels = [f"{t} · {m} · {d} · agreement {c.num(a)}" for t, m, d, a in
                  zip(shown["task_id"], shown["model_id"], shown["dimension"], shown["item_agreement"])]
        picked = st.selectbox("Read one item's ratings and rationales", range(len(labels)),
                              format_func=lambda i: labels[i], key="agreement.flagged_item") or 0
        item = shown.iloc[picked]
        detail = db.query(
            """
            select rater_id, rater_group, label, score, confidence, severity, rationale, rated_at, source_path,
                   source_line
            from marts.fct_ratings
            where item_id = ? and dimension = ? and rater_group <> 'hybrid'
            order by rater_group, rater_id
            """,
            [item["item_id"], item["dimension"]],
        )
        task_text = db.query(
            """
            select prompt, example_item_id, example_response
            from marts.rpt_weekly_flagged_tasks
            where task_id = ?
            order by (example_item_id = ?) desc, week_start desc
            limit 1
            """,
            [item["task_id"], item["item_id"]],
        )
        c.notes(detail, task_text)
        if not task_text.frame.empty:
            t = task_text.frame.iloc[0]
            c.show_text(f"The task's prompt ({item['task_id']})", t["prompt"])
            if t["example_item_id"] == item["item_id"]:
                c.show_text("The rated response", t["example_response"])
        if not detail.frame.empty:
            # Rationales are record text: a table shows them as text, never as HTML.
            shown_detail = detail.frame.copy()
            shown_detail["score"] = [c.num(v, 1) for v in shown_detail["score"]]
            # The label and the group in words ("non-violating", "LLM judge"), as the ratings above say them.
            shown_detail["label"] = [c.said(v) if not c.is_na(v) else "" for v in shown_detail["label"]]
            shown_detail["rater_group"] = shown_detail["rater_group"].map(c.said)
            shown_detail["severity"] = [c.count(v) if not c.is_na(v) else "" for v in shown_detail["severity"]]
            for column in ("confidence", "rationale"):
                shown_detail[column] = shown_detail[column].fillna("")
            c.table(
                shown_detail, key=["rater_id", "rater_group"], height=c.table_height(len(shown_detail)),
                column_config={
                    "rater_id": "rater", "rater_group": "group", "label": "rating",
                    "rationale": st.column_config.TextColumn("rationale", width="large"),
                    "rated_at": st.column_config.DatetimeColumn("rated (UTC)", format="YYYY-MM-DD HH:mm"),
                    "source_path": "file", "source_line": st.column_config.NumberColumn("line", format="%d"),
                },
            )

# -- gold items ------------------------------------------------------------------------------------------------------
st.subheader("Do raters get the known answers right?")
gold = db.query(
    """
    select rater_id, rater_type, week_start, n_gold_ratings, n_gold_items, exact_match_rate, exact_match_ci_low,
           exact_match_ci_high, mean_abs_error, within_one_rate
    from marts.fct_gold_calibration
    order by rater_id, week_start
    """
)
c.notes(gold)
if not c.empty_state(gold, "ratings of gold (known-answer) items",
                     "Gold items are eval forms with a gold_item_id and a calibration_target."):
    g = gold.frame.copy()
    g["shown"] = [c.with_interval(v, lo, hi, as_pct=True) for v, lo, hi in
                  zip(g["exact_match_rate"], g["exact_match_ci_low"], g["exact_match_ci_high"])]
    g["label"] = [f"{c.pct(v)}" for v in g["exact_match_rate"]]
    g["rater_said"] = g["rater_type"].map(c.said)
    base = alt.Chart(g).encode(
        x=alt.X("week_start:O", title="week (its Monday)", timeUnit="yearmonthdate",
                axis=alt.Axis(format="%d %b", labelAngle=0)),
        y=alt.Y("rater_id:N", title=None, axis=alt.Axis(labelLimit=320)),
    )
    heat = base.mark_rect().encode(
        color=alt.Color("exact_match_rate:Q", title="exact match",
                        scale=alt.Scale(domain=[0, 1], scheme="redyellowgreen"),
                        legend=alt.Legend(format="%", orient="bottom")),
        tooltip=["rater_id", alt.Tooltip("rater_said:N", title="rater type"), c.week_tooltip(),
                 alt.Tooltip("shown:N", title="exact match [95% interval]"),
                 alt.Tooltip("n_gold_items:Q", title="n gold items (the interval's n)"),
                 alt.Tooltip("n_gold_ratings:Q", title="n gold ratings"),
                 alt.Tooltip("mean_abs_error:Q", title="mean error on the 1-5 scales (points)", format=".2f")],
    )
    text = base.mark_text(fontSize=11).encode(text="n_gold_ratings:Q")
    c.show_chart((heat + text).properties(height={"step": 26}, title=c.title(
        "How often does each rater give a gold item's expected answer?",
        "Colour: share of exact matches in the week, each gold item's dimensions averaged first; the number in each "
        "cell is the gold ratings behind it. Hover for the 95% interval over gold items.")))
