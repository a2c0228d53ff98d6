"""Reliability: pass@k and pass^k curves per model for one eval, how many tasks each model always, sometimes or
never passes, and the flaky tasks with their trials: over all time, or over one week's runs (?week=2026-W47), which
is what the Overview's pass@k for that week links to."""

import datetime as dt

import altair as alt
import pandas as pd
import streamlit as st

import components as c
import db

NO_ANSWER = "(no answer recorded)"
ALL_TIME = "all time"

st.title("How reliable is each model over repeated trials?")
st.caption(
    "**pass@k**: the chance that at least one of k attempts at a task succeeds (Chen et al. 2021, unbiased "
    "estimator). **pass^k**: the chance that all k attempts succeed (Yao et al. 2024): what a user who asks k times "
    "sees. Both are one run's: k attempts a single run made at a task (runs weeks apart are not pooled, as the "
    "model behind them may have moved), averaged over the task's runs, then over tasks; the bands are 95% intervals "
    "over tasks: Wilson's, on the number of tasks the standard error is worth, so they stay within 0 and 1 and do "
    "not shrink to a point when every task passed. Attempts are counted on one metric: one response scored on "
    "several rubrics is one attempt on each."
)

available = db.query(
    """
    select evaluation_name, trial_metric, model_id, max(k) as max_k
    from marts.fct_pass_at_k
    group by evaluation_name, trial_metric, model_id
    order by evaluation_name, trial_metric, model_id
    """
)
# The weeks a week's curves can be shown for: those in which runs started (fct_pass_at_k_weekly's weeks).
weeks = db.query("select distinct week_start from marts.fct_pass_at_k_weekly order by week_start desc")
c.notes(available, weeks)
if c.whole_warehouse_missing(available) or c.empty_state(
        available, "repeated trials", "Ingest instance-level records with several trials per sample, then build."):
    st.stop()

filters = c.Filters("reliability")
when, left, middle = st.columns([2, 3, 2])
week_options = [c.to_date(w) for w in weeks.frame["week_start"]] if not weeks.frame.empty else []
week = filters.week("Week", weeks=week_options, container=when, extra_first=ALL_TIME, open_on_extra=True)
# How the page names its period in titles: every number on it is over these runs.
period = f"in {c.iso_week(week)}'s runs" if week else "over all runs"
evaluations = sorted(available.frame["evaluation_name"].unique())
most_trials = available.frame.sort_values(["max_k", "evaluation_name"], ascending=[False, True])["evaluation_name"]
evaluation = filters.selectbox("Eval", evaluations, param="evaluation", container=left,
                               index=evaluations.index(most_trials.iloc[0]),
                               help="Opens on the eval with the most trials per task.")
metrics = sorted(available.frame[available.frame["evaluation_name"] == evaluation]["trial_metric"].unique())
metric = filters.selectbox("Metric", metrics, param="metric", container=middle,
                           help="What the trials were scored on: an eval scored on several rubrics or metrics has "
                                "pass@k for each.")
in_eval = available.frame[(available.frame["evaluation_name"] == evaluation)
                          & (available.frame["trial_metric"] == metric)]
models = filters.multiselect("Models", sorted(in_eval["model_id"].unique()), param="model", placeholder="All models")
chosen_models = models or sorted(in_eval["model_id"].unique())

if week is None:
    span = ""
    if week_options:
        first, last = min(week_options), max(week_options)
        span = (f" from {c.iso_week(first)} to {c.iso_week(last)} ({first:%a %d %b %Y} to "
                f"{last + dt.timedelta(days=6):%a %d %b %Y})")
    st.caption(f"All time: every run{span}, each task's runs averaged. Pick a week to see only the runs that "
               "started in it, as the Overview and the weekly report compare a week with the one before.")
    curves = db.query(
        """
        select model_id, k, n_tasks, n_tasks_with_enough_trials, pass_at_k, pass_at_k_ci_low, pass_at_k_ci_high,
               pass_hat_k, pass_hat_k_ci_low, pass_hat_k_ci_high
        from marts.fct_pass_at_k
        where evaluation_name = ? and trial_metric = ? and list_contains(?, model_id)
        order by model_id, k
        """,
        [evaluation, metric, chosen_models],
    )
    stability = db.query(
        """
        select model_id, coalesce(stability, 'no verdict') as stability, count(*) as n_tasks
        from marts.fct_task_stability
        where evaluation_name = ? and trial_metric = ? and list_contains(?, model_id)
        group by model_id, coalesce(stability, 'no verdict')
        """,
        [evaluation, metric, chosen_models],
    )
    flaky = db.query(
        """
        select model_id, sample_id, n_correct, n_trials, pass_rate, n_runs, first_evaluated_at, last_evaluated_at
        from marts.fct_task_stability
        where evaluation_name = ? and trial_metric = ? and list_contains(?, model_id) and stability = 'flaky'
        order by abs(pass_rate - 0.5), model_id, sample_id
        """,
        [evaluation, metric, chosen_models],
    )
else:
    st.caption(c.week_caption(week, week_options) + " Every number below is over the runs that started in it (a run "
               "counts whole in the week of its first trial, as the Overview and the weekly report count it).")
    curves = db.query(
        """
        select model_id, k, n_tasks, n_tasks_with_enough_trials, pass_at_k, pass_at_k_ci_low, pass_at_k_ci_high,
               pass_hat_k, pass_hat_k_ci_low, pass_hat_k_ci_high
        from marts.fct_pass_at_k_weekly
        where evaluation_name = ? and trial_metric = ? and list_contains(?, model_id) and week_start = ?
        order by model_id, k
        """,
        [evaluation, metric, chosen_models, week],
    )
    # A task with one scored trial in the week's runs has no verdict (stability NULL: one trial shows no
    # stability), as the evals that attempt each task once a week have on every task; one with none has no row.
    stability = db.query(
        """
        select model_id, coalesce(stability, 'no verdict') as stability, count(*) as n_tasks
        from marts.fct_task_stability_weekly
        where evaluation_name = ? and trial_metric = ? and list_contains(?, model_id) and week_start = ?
        group by model_id, coalesce(stability, 'no verdict')
        """,
        [evaluation, metric, chosen_models, week],
    )
    flaky = db.query(
        """
        select model_id, sample_id, n_correct, n_trials, pass_rate, n_runs
        from marts.fct_task_stability_weekly
        where evaluation_name = ? and trial_metric = ? and list_contains(?, model_id) and week_start = ?
            and stability = 'flaky'
        order by abs(pass_rate - 0.5), model_id, sample_id
        """,
        [evaluation, metric, chosen_models, week],
    )
c.notes(curves, stability, flaky)


def _shown(value: float, low: float, high: float) -> str:
    if c.is_na(value):
        return "n/a: a run of some task made fewer than k attempts"
    return c.with_interval(value, low, high)


# -- the curves ----------------------------------------------------------------------------------------------------
if not c.empty_state(curves, f"pass@k for {evaluation} ({metric}) {period}",
                     "Pick another week, or all time." if week else c.HOW_TO_BUILD):
    long = pd.concat([
        curves.frame.assign(measure="pass@k: at least one of k succeeds", value=curves.frame["pass_at_k"],
                            low=curves.frame["pass_at_k_ci_low"], high=curves.frame["pass_at_k_ci_high"]),
        curves.frame.assign(measure="pass^k: all k succeed", value=curves.frame["pass_hat_k"],
                            low=curves.frame["pass_hat_k_ci_low"], high=curves.frame["pass_hat_k_ci_high"]),
    ])
    # The marts' intervals, as they are (an interval is NULL only where its value is).
    defined = long.dropna(subset=["value"]).copy()
    defined["shown"] = [c.with_interval(v, lo, hi) for v, lo, hi in zip(defined["value"], defined["low"],
                                                                        defined["high"])]
    if defined.empty:
        st.info(f"pass@k is n/a for every k on {evaluation} {period}: a run of some task made fewer than k "
                "attempts.",
                icon=":material/info:")
    else:
        base = alt.Chart(defined).encode(
            x=alt.X("k:Q", title="k (attempts at the same task)", scale=alt.Scale(type="log", base=2),
                    axis=alt.Axis(values=sorted(defined["k"].unique().tolist()), format="d")),
            color=alt.Color("model_id:N", title="model", scale=c.model_colors(defined["model_id"].unique()),
                            legend=c.legend(defined["model_id"].unique())),
            tooltip=["model_id", "measure", "k", alt.Tooltip("shown:N", title="value [95% interval]"),
                     alt.Tooltip("n_tasks:Q", title="n tasks")],
        )
        band = base.mark_area(opacity=0.1).encode(
            # A share, 0 to 1, as the table beside it and the report write pass@k (0.78 [0.62, 0.88]), not a percent.
            y=alt.Y("low:Q", title="chance of success", scale=alt.Scale(domain=[0, 1]), axis=alt.Axis(format=".1f")),
            y2="high:Q", detail="measure:N")
        # Lines and dots apart: a line with point=True makes its legend a dot, the same for solid and dashed.
        lines = base.mark_line().encode(
            y=alt.Y("value:Q", title="chance of success", scale=alt.Scale(domain=[0, 1])),
            strokeDash=alt.StrokeDash("measure:N", title=None, legend=c.legend(
                defined["measure"].unique(), symbolType="stroke", symbolStrokeColor="#333333", symbolStrokeWidth=2,
                symbolSize=300)),
        )
        dots = base.mark_point(filled=True, size=30).encode(y="value:Q", detail="measure:N")
        # The models' legend above the dashes' (side by side, they ran 485 px past a 900 px page).
        c.show_chart(c.stacked_legends((lines + dots + band).properties(height=340, title=c.title(
            f"On {evaluation} ({metric}), {period}, how does success grow with more attempts, and how fast does "
            "consistency fall?",
            "Solid: pass@k rises with k. Dashed: pass^k falls with k; a steep fall means the model's successes are "
            "luck more than skill."))))
    undefined = long[long["value"].isna()]
    if not undefined.empty:
        ks = ", ".join(str(k) for k in sorted(undefined["k"].unique()))
        st.caption(f"n/a for k = {ks}: some task has fewer than k scored trials, so pass@k is not defined there "
                   "(the table shows how many tasks have enough).")
    table = curves.frame.copy()
    c.table(
        pd.DataFrame({
            "model": table["model_id"],
            "k": table["k"],
            "pass@k [95% interval]": [_shown(v, lo, hi) for v, lo, hi in zip(
                table["pass_at_k"], table["pass_at_k_ci_low"], table["pass_at_k_ci_high"])],
            "pass^k [95% interval]": [_shown(v, lo, hi) for v, lo, hi in zip(
                table["pass_hat_k"], table["pass_hat_k_ci_low"], table["pass_hat_k_ci_high"])],
            "tasks with k or more trials": [f"{int(a)} of {int(b)}" for a, b in
                                            zip(table["n_tasks_with_enough_trials"], table["n_tasks"])],
        }),
        # As tall as its rows (up to ten, then it scrolls): a fixed height showed blank rows under a few.
        key=["model", "k"], height="auto",
    )

# -- stability -------------------------------------------------------------------------------------------------------
if not c.empty_state(stability, f"task verdicts for {evaluation} ({metric}) {period}"):
    order = ["stable_pass", "flaky", "stable_fail", "no verdict"]
    # Each model's bar is its share of its own tasks, split by verdict; the counts are written in the segments and
    # the model's number of tasks beside its name, so a share never hides how many tasks it is of.
    bars = stability.frame.copy()
    bars["verdict_order"] = bars["stability"].map(order.index)
    bars["verdict"] = bars["stability"].map(c.said)  # "stable pass": the legend's and the tooltip's words
    bars = bars.sort_values(["model_id", "verdict_order"])
    bars["model_tasks"] = bars.groupby("model_id")["n_tasks"].transform("sum")
    bars["share"] = bars["n_tasks"] / bars["model_tasks"]
    bars["end"] = bars.groupby("model_id")["share"].cumsum()
    bars["start"] = bars["end"] - bars["share"]
    bars["middle"] = (bars["start"] + bars["end"]) / 2
    bars["model"] = [f"{m} ({int(n):,} task{'' if n == 1 else 's'})" for m, n in zip(bars["model_id"],
                                                                                   bars["model_tasks"])]
    bars["shown"] = [f"{int(n):,} of {int(t):,} tasks ({c.pct(share)})"
                     for n, t, share in zip(bars["n_tasks"], bars["model_tasks"], bars["share"])]
    y = alt.Y("model:N", title=None, sort=sorted(bars["model"].unique()), axis=alt.Axis(labelLimit=400))
    segments = alt.Chart(bars).mark_bar().encode(
        y=y,
        x=alt.X("start:Q", title="share of the model's tasks", scale=alt.Scale(domain=[0, 1]),
                axis=alt.Axis(format="%")),
        x2="end:Q",
        color=alt.Color("verdict:N", title=None, sort=[c.said(v) for v in order], legend=c.legend(map(c.said, order)),
                        scale=alt.Scale(domain=[c.said(v) for v in order], range=[c.GOOD, c.WARN, c.BAD, c.MUTED])),
        tooltip=["model_id", "verdict", alt.Tooltip("shown:N", title="tasks")],
    )
    # A count is written where its segment is wide enough to hold it; the tooltip has every one.
    counts = alt.Chart(bars[bars["share"] >= 0.04]).mark_text(color="white", fontWeight="bold").encode(
        y=y, x="middle:Q", text=alt.Text("n_tasks:Q", format=",d"),
        tooltip=["model_id", "verdict", alt.Tooltip("shown:N", title="tasks")],
    )
    c.show_chart((segments + counts).properties(height={"step": 28}, title=c.title(
        f"How many tasks does each model always pass, sometimes pass, or never pass, {period}?",
        "Each bar is one model's tasks (how many beside its name), split by verdict, with the number of tasks in each "
        "part. Stable pass: every trial succeeded; flaky: some did; stable fail: none did; no verdict: fewer than two "
        "trials were scored (one trial cannot show whether a task always passes)."
        + (f" Trials of the runs that started in {c.iso_week(week)} only." if week else " Every run's trials."))))

# -- the flaky tasks, with their trials ------------------------------------------------------------------------------
st.subheader("The flaky tasks, with their trials")
if not c.empty_state(flaky, f"flaky tasks on {evaluation}",
                     "A task is flaky when some of its trials succeed and others fail."):
    frame = flaky.frame
    st.caption(f"{len(frame):,} flaky task{'' if len(frame) == 1 else 's'} {period}, those closest to a coin flip "
               "first.")
    table = pd.DataFrame({
        "model": frame["model_id"], "sample": frame["sample_id"],
        "succeeded": [f"{int(a)} of {int(b)}" for a, b in zip(frame["n_correct"], frame["n_trials"])],
        "pass rate": frame["pass_rate"], "runs": frame["n_runs"],
    })
    if week is None:  # a week's table is the week's runs: their times are the week's
        table["first trial"], table["latest trial"] = frame["first_evaluated_at"], frame["last_evaluated_at"]
    c.table(
        table, key=["model", "sample"], height="auto",
        # A pass rate as the app and the report write it (0.47), not "46.88%".
        column_config={"pass rate": st.column_config.ProgressColumn("pass rate", format="%.2f", min_value=0,
                                                                    max_value=1)},
    )
    labels = [f"{m} · sample {s} · {int(a)} of {int(b)} passed" for m, s, a, b in
              zip(frame["model_id"], frame["sample_id"], frame["n_correct"], frame["n_trials"])]
    picked = st.selectbox("Show the trials of", range(len(labels)), format_func=lambda i: labels[i],
                          key="reliability.task")
    task = frame.iloc[picked or 0]
    sample = db.query(
        "select input_text, reference_text from marts.dim_samples where evaluation_name = ? and sample_id = ?",
        [evaluation, task["sample_id"]],
    )
    # For a week, the trials of the runs that started in it: a run's week is its first trial's on the metric, as
    # fct_task_stability_weekly dates it (macros/trials/weekly_run_tasks.sql); a trial without a run id, its own.
    trials = db.query(
        """
        with task_trials as (
            select trial_index, evaluated_at, is_correct, score, run_id, output_text, source_path, source_line,
                   week_start
            from marts.fct_trials
            where evaluation_name = ? and trial_metric = ? and model_id = ? and sample_id = ?
        ),
        run_weeks as (
            select run_id, min(week_start) as run_week
            from marts.fct_trials
            where evaluation_name = ? and trial_metric = ? and model_id = ?
                and run_id in (select run_id from task_trials)
            group by run_id
        )
        select task_trials.trial_index, task_trials.evaluated_at, task_trials.is_correct, task_trials.score,
               task_trials.run_id, task_trials.output_text, task_trials.source_path, task_trials.source_line
        from task_trials
        left join run_weeks on task_trials.run_id = run_weeks.run_id
        where cast(? as date) is null or coalesce(run_weeks.run_week, task_trials.week_start) = ?
        order by task_trials.trial_index
        """,
        [evaluation, metric, task["model_id"], task["sample_id"], evaluation, metric, task["model_id"], week, week],
    )
    c.notes(sample, trials)
    left, right = st.columns(2)
    if not sample.frame.empty:
        c.show_text("The sample's input", sample.frame.iloc[0]["input_text"], container=left)
        c.show_text("Its reference answer", sample.frame.iloc[0]["reference_text"], container=right)
    if not c.empty_state(trials, "trials for this task"):
        runs = trials.frame.copy()
        runs["outcome"] = runs["is_correct"].map({True: "succeeded", False: "failed"}).fillna("no verdict")
        strip = alt.Chart(runs).mark_square(size=180).encode(
            x=alt.X("trial_index:O", title="trial, in time order"),
            color=alt.Color("outcome:N", title=None, legend=alt.Legend(orient="bottom"),
                            scale=alt.Scale(domain=["succeeded", "failed", "no verdict"],
                                            range=[c.GOOD, c.BAD, c.MUTED])),
            tooltip=["trial_index", alt.Tooltip("evaluated_at:T", title="evaluated"), "outcome", "run_id"],
        ).properties(height=40, title=c.title(
            "Which of its trials succeeded?",
            "One square per trial, oldest first" + (f", of the runs that started in {c.iso_week(week)}." if week
                                                    else ", of every run.")))
        c.show_chart(strip)
        # output_text is record text: a table cell shows it as text, never as HTML.
        runs["output_text"] = c.cells(runs["output_text"], NO_ANSWER)
        runs["score"] = c.cells(runs["score"], "n/a (not scored)", lambda v: f"{v:g}")
        c.table(
            runs[["trial_index", "evaluated_at", "outcome", "score", "output_text", "run_id", "source_path",
                  "source_line"]],
            key=["trial_index"], first=["outcome", "score"],
            column_config={
                "trial_index": st.column_config.NumberColumn("trial", format="%d"),
                "evaluated_at": st.column_config.DatetimeColumn("evaluated (UTC)", format="YYYY-MM-DD HH:mm"),
                "output_text": st.column_config.TextColumn("the model's answer", width="large"),
                "source_path": "file", "source_line": st.column_config.NumberColumn("line", format="%d"),
            },
        )
