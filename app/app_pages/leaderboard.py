"""Leaderboard: benchmark results per model with their 95% intervals (a chart per eval, on its own scale), what the
harness reported beside what the warehouse computed from the trials, filtered by eval, model and date, with a CSV of
what is shown; one eval's computed score run by run (a chart per model, each as wide as the page); and whether one
model is ahead of another on the samples both answered in a week (fct_model_comparisons, app/model_comparison.py),
which scores side by side cannot tell."""

import altair as alt
import pandas as pd
import streamlit as st

import components as c
import db
import model_comparison

# The weekly report's name for the computed accuracy: the share of trials marked as passed, which is accuracy only
# where the metric is (a latency within budget, a judge's pass verdict...).
PASS_RATE = model_comparison.PASS_RATE

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
        ci_high, interval_method, min_score, max_score, n_samples, dataset_n_samples, lower_is_better, evaluated_at,
        week_start
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


def samples_of(n: object, dataset_n: object) -> str:
    """'3 of 2,376': the samples a score is over, of its dataset's (a reported run's, when the record says)."""
    return c.count(n) if c.is_na(dataset_n) else f"{c.count(n)} of {c.count(dataset_n)}"


runs["samples"] = [samples_of(n, d) for n, d in zip(runs["n_samples"], runs["dataset_n_samples"])]

# -- the latest run in the range, per model and eval (and metric): a chart per eval --------------------------------
latest_run = (runs.sort_values("evaluated_at").groupby(["eval", "model_id"])["run_id"].last()
              .rename("latest_run_id").reset_index())
latest = runs.merge(latest_run, on=["eval", "model_id"])
latest = latest[latest["run_id"] == latest["latest_run_id"]].copy()
latest["shown"] = latest.apply(lambda r: c.with_interval(r["score"], r["ci_low"], r["ci_high"]), axis=1)
latest["run_day"] = latest["evaluated_at"].dt.strftime("%Y-%m-%d")


def scale_of(frame: pd.DataFrame) -> tuple[float, float] | None:
    """The eval's scale (min_score to max_score) when every result shown of it has the same one, else None (the
    axis then spans the scores): 0 to 1 for a pass rate, 1 to 5 for a rubric's mean_score."""
    lows, highs = frame["min_score"].dropna().unique(), frame["max_score"].dropna().unique()
    if len(lows) != 1 or len(highs) != 1 or frame["min_score"].isna().any() or frame["max_score"].isna().any():
        return None
    return float(lows[0]), float(highs[0])


def latest_runs_said(frame: pd.DataFrame) -> str:
    """Which run each point is from, by its day, and the samples it is over: "Each model's latest run, of 20 Nov
    2026, over 10 samples each", or by day where they differ ("Each model's latest run: 20 Nov 2026 (acme/chat-13b,
    acme/chat-7b); 14 Nov 2026 (meta-llama/Llama-3.1-8B-Instruct), over 4 to 8 samples")."""
    days = frame.groupby("model_id")["evaluated_at"].max().dt.date
    by_day: dict = {}
    for model, day in days.sort_values(ascending=False, kind="stable").items():
        by_day.setdefault(day, []).append(model)
    if len(days) == 1:
        said = f"{days.index[0]}'s latest run, of {days.iloc[0]:%d %b %Y}"
    elif len(by_day) == 1:
        said = f"Each model's latest run, of {days.iloc[0]:%d %b %Y}"
    else:
        said = "Each model's latest run: " + "; ".join(f"{day:%d %b %Y} ({', '.join(models_of_day)})"
                                                        for day, models_of_day in by_day.items())
    n = frame["n_samples"].dropna()
    if n.empty:
        return f"{said}; its samples not stated"
    if n.nunique() == 1:
        return f"{said}, over {c.count(n.iloc[0])} samples{' each' if len(days) > 1 else ''}"
    return f"{said}, over {c.count(n.min())} to {c.count(n.max())} samples"


st.subheader(f"Which model scores best on each eval ({metric_label})?")
st.caption(f"A chart per eval, each on the eval's own scale: the latest run in the range ({start:%d %b} to "
           f"{end:%d %b %Y}) of each model, its score on {metric_label} with the 95% interval; **reported** (grey) "
           "beside **computed** (blue) where the run has both. Few samples make a wide interval.")
for evaluation_shown, of_eval in latest.groupby("eval", sort=True):
    scale = scale_of(of_eval)
    lower = bool(of_eval["lower_is_better"].fillna(False).any())
    chart = c.interval_chart(
        of_eval, value="score", low="ci_low", high="ci_high", y="model_id", y_title=None, question="",  # titled below
        x_title=f"{metric_label} (95% interval)" if scale in (None, (0.0, 1.0)) else
        f"{metric_label}, {scale[0]:g} to {scale[1]:g} (95% interval)",  # short: a narrow chart cuts a long one
        color="origin", color_title="result",
        color_scale=alt.Scale(domain=["reported", "computed"], range=["#9aa5b1", "#1f77b4"]), offset="origin",
        domain=scale,
        tooltip=["eval", "model_id", "origin", alt.Tooltip("shown:N", title=metric_label),
                 alt.Tooltip("samples:N", title="n samples"), alt.Tooltip("interval_method:N", title="interval"),
                 alt.Tooltip("run_day:N", title="evaluated"), "run_id"],
    ).properties(title=c.title(
        # The eval first: were a title cut, a dozen charts cut to "Which model scores best on acme_gr..." could not be
        # told apart.
        f"{evaluation_shown}: which model scores best ({metric_label})?",
        f"{latest_runs_said(of_eval)}; bars are 95% intervals. {'Lower' if lower else 'Higher'} is better."))
    if of_eval["origin"].nunique() == 1:  # a legend only where the eval has both results: the caption says the colours
        for layer in chart.layer:
            layer.encoding.color.legend = None
    c.show_chart(chart)

# -- scores over the range: a chart per model, each as wide as the page ------------------------------------------


def time_axis(frame: pd.DataFrame) -> alt.X:
    """A tick on each week's Monday (c.week_x), from the first run to the last of every model's, so that each chart
    spans the same days and a run on one lines up with a run on another; a few pixels either side, for the points
    at the ends."""
    ends = (frame["evaluated_at"].min(), frame["evaluated_at"].max())
    # Local DateTimes, as c.week_x's ticks and as the chart reads the data's times (they carry no time zone).
    domain = [alt.DateTime(year=t.year, month=t.month, date=t.day, hours=t.hour, minutes=t.minute, seconds=t.second)
              for t in ends]
    return c.week_x(frame["week_start"], field="evaluated_at", title="evaluated (UTC)").scale(domain=domain,
                                                                                            padding=8)


def score_domain(frame: pd.DataFrame) -> tuple[float, float]:
    """The eval's scale (scale_of), else the span of the scores and their intervals: one y axis for every model."""
    return scale_of(frame) or (float(frame[["score", "ci_low"]].min().min()),
                               float(frame[["score", "ci_high"]].max().max()))


def trend_chart(rows: pd.DataFrame, model: str, *, evaluation: str, x: alt.X,
                y_domain: tuple[float, float]) -> alt.LayerChart:
    """One model's computed score on one eval, run by run, with its 95% interval as a band."""
    days = rows["evaluated_at"]
    base = alt.Chart(rows).encode(
        x=x,
        tooltip=["model_id", alt.Tooltip("evaluated_at:T", title="evaluated"),
                 alt.Tooltip("shown:N", title=metric_label), alt.Tooltip("n_samples:Q", title="n samples"), "run_id"],
    )
    y_scale = alt.Scale(domain=list(y_domain), clamp=True)
    band = base.mark_area(opacity=0.2).encode(y=alt.Y("ci_low:Q", title=f"{metric_label} (computed)", scale=y_scale,
                                                      axis=alt.Axis(tickCount=5)), y2="ci_high:Q")
    line = base.mark_line(point=True).encode(y=alt.Y("score:Q", title=f"{metric_label} (computed)", scale=y_scale))
    runs_said = (f"{c.plural(len(rows), 'run')}, {days.min():%d %b} to {days.max():%d %b %Y}" if len(rows) > 1
                 else f"one run, of {days.min():%d %b %Y}")
    return alt.layer(band, line).properties(height=110, title=c.title(
        f"{model}: has its {metric_label} moved?",
        f"{evaluation}: {runs_said}; computed from each run's trials, the band its 95% interval."))


computed = runs[runs["result_origin"] == "computed"]
if computed["run_id"].nunique() > computed["model_id"].nunique():
    st.subheader(f"Has any model's score moved over time ({metric_label})?")
    eval_for_trend = filters.selectbox("Trend of", sorted(computed["eval"].unique()), param="trend",
                                       help="Which eval's runs to follow over time.")
    trend = computed[computed["eval"] == eval_for_trend].copy()
    trend["shown"] = trend.apply(lambda r: c.with_interval(r["score"], r["ci_low"], r["ci_high"]), axis=1)
    scale = scale_of(trend)
    st.caption(f"A chart per model, on the same days and the same {metric_label} axis"
               + (f" ({scale[0]:g} to {scale[1]:g}, the eval's scale)" if scale else "")
               + f": each run of {eval_for_trend} in the range, its score computed from its trials, with its 95% "
               "interval as a band.")
    x, y_domain = time_axis(trend), score_domain(trend)
    for model, of_model in trend.groupby("model_id", sort=True):
        c.show_chart(trend_chart(of_model, model, evaluation=eval_for_trend, x=x, y_domain=y_domain))

# -- two models on the same samples (app/model_comparison.py) -------------------------------------------------------
model_comparison.show(filters, evaluations=evaluations, models=models, metric=metric)

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
st.caption(f"{c.plural(len(shown), 'run')} of {c.plural(shown['model_id'].nunique(), 'model')} on "
           f"{c.plural(shown['eval'].nunique(), 'eval')}, "
           f"{metric_label if metric_label == metric else f'{metric_label} ({metric})'}.")
# The model pinned (an eval's name too would take more room than Streamlit pins at 900 px), then which run, then the two
# scores and how far apart they are.
c.table(table, key=["model", "eval", "scored on", "evaluated (UTC)"],
        first=["reported [95% interval]", "computed [95% interval]", "computed - reported"])
c.csv_download(shown, file_name=f"evalhouse_leaderboard_{metric}_{start:%Y%m%d}_{end:%Y%m%d}.csv", key="csv")
