"""Overview: what needs someone's attention this week, and each model this week against last week, a table row per
model and eval. Every card and row links to the page that explains it. It reads the same weekly marts as the weekly
report, words each change with the report's own functions (evalhouse/report/changes.py) and lists them in the
report's order, so the two always agree."""

import datetime as dt

import pandas as pd
import streamlit as st

import components as c
import db
from evalhouse.report import changes as model_changes
from evalhouse.report.fmt import plural
from evalhouse.report.sections import model_scores
from evalhouse.report.sections.safety import no_hazard_applied

# The minimums rpt_weekly_model_changes was built with (marts.rpt_build_settings), as the report quotes them.
MINIMUMS = db.build_settings()

st.title("This week against last week")
st.caption(
    "Headline scores with their 95% intervals, reliability over repeated trials, and what needs attention. "
    "\"This week\" is the latest complete week (Monday to Sunday, UTC) with data in the warehouse; the week under way "
    "is in the picker, marked in progress. Every card and every model's row links to the page that explains it."
)

weeks = c.weeks_with_data()
week_options = [c.to_date(w) for w in weeks.frame["week_start"]] if not weeks.frame.empty else []
week = c.Filters("overview").week("Week", weeks=week_options) if week_options else None
previous = week - dt.timedelta(days=7) if week else None
week_param = c.iso_week(week) if week else None
# The Leaderboard's date filter for last week's Monday to this week's Sunday: its links show the runs behind this
# week's numbers and last week's they are compared with (this week's alone showed one run, and no drop).
week_days = {"from": previous.isoformat(), "to": (week + dt.timedelta(days=6)).isoformat()} if week else {}

summary = db.query(
    """
    select week_start, n_drift_alerts, n_judges_alerting, n_drift_tested, n_drift_untested, n_flagged_items,
           n_regressions, n_improvements, n_changes_tested, n_changes_untested
    from marts.rpt_weekly_summary
    where week_start between ? and ?
    """,
    [week - dt.timedelta(days=21) if week else None, week],
)
backlog = db.query(
    """
    select source_format, count(*) as n, max(age_days) as oldest_days
    from marts.fct_review_queue
    group by source_format
    """
)
quarantine = db.query(
    """
    select count(case when loaded_later_at is null then 1 end) as n_lines,
           count(distinct case when loaded_later_at is null then source_path end) as n_files,
           count(case when loaded_later_at is null and batch_id = (select batch_id from marts.fct_ingested_files
                                       order by started_at desc limit 1) then 1 end) as n_latest_batch,
           count(loaded_later_at) as n_loaded_later,
           -- No ingest run at all: there is no latest run to count in, and nothing was checked.
           (select count(*) from marts.fct_ingested_files) as n_ingested_files
    from marts.fct_quarantined_lines
    """
)
agreement = db.query(
    """
    -- People's verdicts, as the weekly report gives them: a shortfall whose 95% interval reaches the target is
    -- counted, and said apart (the week's items cannot tell it from meeting the target).
    select week_start, count(human_alpha) as n_with_alpha,
           count(case when target_status = 'below_target' then 1 end) as n_below_target,
           count(case when target_status = 'below_target' and is_target_within_interval then 1 end) as n_below_within
    from marts.rpt_weekly_agreement
    where week_start in (?, ?)
    group by week_start
    """,
    [week, previous],
)
# The targets as the build compared with them (the seed agreement_targets), per dimension group.
targets = db.query("select dimension_group, min(target) as target from marts.rpt_weekly_agreement group by all")
targets_said = c.per_group(targets.frame, "target")
hazards = db.query(
    """
    -- n_verdicts: the violating and non-violating verdicts the count is among (unsure and not applicable are
    -- not in n_rated); none is a week nobody assessed, not one without violations, unless people judged every
    -- hazard not applicable (n_not_applicable): assessed, and no hazard concerned the responses, as the report says.
    select week_start, sum(n_violating) as n_violating, sum(n_rated) as n_verdicts, sum(n_unsure) as n_unsure,
           sum(n_not_applicable) as n_not_applicable,
           count(distinct case when n_violating > 0 then model_id end) as n_models,
           count(distinct case when n_violating > 0 then hazard end) as n_hazards
    from marts.fct_hazard_rates
    where rater_group = 'human' and week_start in (?, ?)
    group by week_start
    """,
    [week, previous],
)
# The weekly report's rows, in its order and with its labels (regressions, then improvements, then the rest).
changes = db.query(model_scores.CHANGES_SQL, [week])
results = [weeks, summary, backlog, quarantine, agreement, hazards, changes]
c.notes(*results)
if c.whole_warehouse_missing(*results):
    st.stop()
if week is not None:
    st.caption(c.week_caption(week, week_options) + f" Compared with {c.iso_week(previous)}, the week before.")


def _row(frame: pd.DataFrame, monday: dt.date | None) -> pd.Series | None:
    if monday is None or frame.empty:
        return None
    rows = frame[frame["week_start"].map(c.to_date) == monday]
    return rows.iloc[0] if not rows.empty else None


def _not_available(label: str, result: db.Result) -> None:
    st.metric(label, c.NA)
    st.caption("n/a: this warehouse has no such mart yet; run `evalhouse build`." if result.missing else
               "n/a: no trials or ratings in the warehouse yet, so no week to count.")


def _evidence(r: dict) -> str:
    """What the verdict was tested on, as the weekly report says it: the changed samples and the exact sign test's p
    for 0/1 scores, else t (paired) or z (unpaired), to two decimals (1.955 is not 2.0); in brackets when untested."""
    if r["change_test"] == "sign test":
        return f"{model_changes.changed(r)}, {model_changes.test_statistic(r)}"
    return c.NA if r["change_z"] is None else model_changes.test_statistic(r)


def _change_on(r: dict) -> str:
    """What the change is on, so it never seems to contradict the two pass rates beside it: a paired change is on
    the samples both weeks share, which may be few ('on the 2 samples both weeks share (the two means moved
    +0.11)'), an unpaired one is the change of the two weeks' means."""
    if r["comparison"] != "paired":
        return "the change of the two means (too few shared samples to pair)"
    text = f"on the {plural(int(r['n_shared_samples']), 'sample')} both weeks share"
    moved = model_changes.means_moved(r)
    return text if moved is None else f"{text} (the two means moved {c.signed(moved)})"


# A significant change stands out: the report's verdict after a mark, and first in the table, as in the report's.
TRENDS = {"Regression": "▼", "Improvement": "▲"}
# What a reader looks for first (which model on which eval and the verdict, as the report's table puts them, then the
# pass rate, the change and pass@k) fits 1400 px, and the first two 900 px; the rest (the links, n, what the change
# is on and its test) is further right.
TABLE_COLUMNS = ("model on eval", "verdict", "pass rate", "change", "k", "pass@k", "pass^k", "runs", "curves",
                 "n samples", "last week", "change is on", "evidence", "last week pass@k")


def _verdict(r: dict) -> str:
    verdict, _ = model_changes.verdict(r, MINIMUMS)
    return f"{TRENDS[verdict]} {verdict}" if verdict in TRENDS else verdict


def _pass_at_k(r: dict, curves: dict) -> dict:
    """pass@k and pass^k with their intervals and a link to the week's curves, or n/a and why."""
    if c.is_na(r["pass_k"]):
        return {"pass@k": "n/a (fewer than 2 trials per task)"}
    return {"k": str(int(r["pass_k"])),
            "pass@k": c.with_interval(r["pass_at_k"], r["pass_at_k_ci_low"], r["pass_at_k_ci_high"]),
            "pass^k": c.with_interval(r["pass_hat_k"], r["pass_hat_k_ci_low"], r["pass_hat_k_ci_high"]),
            "curves": c.page_url("reliability", curves), "last week pass@k": c.num(r["previous_pass_at_k"])}


def _table_row(r: dict | None, model: str, evaluation: str, metric: str, eval_label: str) -> dict:
    """One model on one eval and metric: this week's pass rate, the change and its verdict, pass@k, and links to the
    runs (the Leaderboard, last week's Monday to this week's Sunday) and to the week's curves (Reliability). A
    link that has nothing to open is None, which the table shows as n/a."""
    row = dict.fromkeys(TABLE_COLUMNS, c.NA) | {"model on eval": f"{model} on {eval_label}", "runs": None,
                                                 "curves": None}
    if r is None:
        return row | {"verdict": "no scored trials this week"}
    curves = {"evaluation": evaluation, "metric": metric, "model": [model], "week": week_param}
    row |= {"pass rate": c.with_interval(r["accuracy"], r["ci_low"], r["ci_high"]), "verdict": _verdict(r),
            "runs": c.page_url("leaderboard", {"evaluation": [evaluation], "model": [model], **week_days}),
            "n samples": c.count(r["n_samples"]), **_pass_at_k(r, curves)}
    if r["previous_accuracy"] is None:
        return row | {"last week": "n/a (no trials)"}
    return row | {"last week": f"{c.num(r['previous_accuracy'])} (n={c.count(r['previous_n_samples'])})",
                  "change": c.signed(model_changes.shown_change(r)), "change is on": _change_on(r),
                  "evidence": _evidence(r)}


def _model_table(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per model, eval and metric of the week, in the weekly report's order and with its labels (an eval
    scored on several metrics names the metric, 'support_triage_v1 (label_format)'); then, for a model with no scored
    trials on an eval and metric others have, a row that says so."""
    rows = [model_changes.plain(r) for r in frame.to_dict("records")]
    found = {(r["model_id"], r["evaluation_name"], r["trial_metric"]) for r in rows}
    labels = {(r["evaluation_name"], r["trial_metric"]): r["eval_label"] for r in rows}
    absent = sorted((model, e, m) for model in {r["model_id"] for r in rows} for e, m in labels
                    if (model, e, m) not in found)
    return pd.DataFrame(
        [_table_row(r, r["model_id"], r["evaluation_name"], r["trial_metric"], r["eval_label"]) for r in rows]
        + [_table_row(None, model, e, m, labels[e, m]) for model, e, m in absent], columns=list(TABLE_COLUMNS))


def _value(row: pd.Series | None, column: str) -> int:
    return 0 if row is None or c.is_na(row[column]) else int(row[column])


def _delta(now: int, last: int, assessed_last: int) -> int | None:
    """The change against last week, for a week that was assessed, and only when last week was too (n tested > 0):
    against a week that checked nothing, a difference is neither an improvement nor a worsening."""
    return now - last if assessed_last else None


def _not_assessed(label: str, why: str, about: str) -> None:
    """A check with nothing to check this week: "n/a" and why, never a 0 that reads as none found, and no delta."""
    st.metric(label, c.NA, help=about)
    st.caption(f"Not assessed: {why}")


# -- what needs attention ----------------------------------------------------------------------------------------

st.subheader("What needs attention")
# The backlog and the quarantine are counted now, whatever the week: their labels say so, and a past week says so too.
past_week = week is not None and week != c.default_week(week_options)
if week is not None:
    st.caption(f"Drift alerts, score drops, agreement and violating verdicts are {week_param}'s; the review backlog "
               "and the quarantined lines are as they are now" + (f", not as they were in {week_param}." if past_week
                                                                  else "."))
top = st.columns(3)
bottom = st.columns(3)
this_summary, last_summary = _row(summary.frame, week), _row(summary.frame, previous)

with top[0].container(border=True):
    label = "Judge drift alerts this week"
    if week is None or summary.missing:
        _not_available(label, summary)
    else:
        about = ("Judge x dimension pairs whose bias against people moved further from the judge's baseline weeks "
                 "than the alert threshold allows (in standard errors).")
        now, last = _value(this_summary, "n_drift_alerts"), _value(last_summary, "n_drift_alerts")
        tested, tested_last = _value(this_summary, "n_drift_tested"), _value(last_summary, "n_drift_tested")
        recent = int(summary.frame["n_drift_alerts"].fillna(0).sum())
        untested = _value(this_summary, "n_drift_untested")
        too_few = f"; {untested} more with too few items to test" if untested else ""
        if not tested:
            _not_assessed(label, f"no judge × dimension pair was tested for drift in {week_param} (a pair is tested "
                                 "past its judge's baseline weeks, on items people rated too)"
                                 f"{too_few}. {recent} alerts in the 4 weeks to {week_param}.", about)
        else:
            st.metric(label, f"{now}", delta=_delta(now, last, tested_last), delta_color="inverse", help=about)
            judges = _value(this_summary, "n_judges_alerting")
            who = f"From {plural(judges, 'judge')}: " if now else "No judge drifted past its threshold: "
            st.caption(f"{who}{now} of {plural(tested, 'tested judge × dimension pair')}{too_few}. "
                       + (f"{last} last week" if tested_last else "Last week not assessed")
                       + f"; {recent} in the 4 weeks to {week_param}.")
    c.link("judge_drift", "Which judges, which dimensions?", params={"week": week_param},
           icon=":material/arrow_forward:")

with top[1].container(border=True):
    label = "Significant score drops"
    if week is None or summary.missing:
        _not_available(label, summary)
    else:
        about = ("Model x eval pairs whose pass rate fell against the week before by more than noise (paired on the "
                 "samples both weeks share: an exact sign test for 0/1 scores, else Student's t on n - 1 degrees of "
                 f"freedom; not tested on fewer than {MINIMUMS.model_change_min_changed_samples} changed samples).")
        now, last = _value(this_summary, "n_regressions"), _value(last_summary, "n_regressions")
        tested, tested_last = _value(this_summary, "n_changes_tested"), _value(last_summary, "n_changes_tested")
        untested = _value(this_summary, "n_changes_untested")
        if not tested:
            _not_assessed(label, f"no change against {c.iso_week(previous)} could be tested: "
                                 + (f"{plural(untested, 'score')} of {week_param} without a verdict (no week before, "
                                    "too few samples or changes, or no variation)." if untested
                                    else f"no scored trials in {week_param}."), about)
        else:
            st.metric(label, f"{now}", delta=_delta(now, last, tested_last), delta_color="inverse", help=about)
            st.caption(f"{now} of {plural(tested, 'tested change')}"
                       + (f"; {untested} not tested (no week before, too few samples or changes, or no variation)"
                          if untested else "")
                       + f". {plural(_value(this_summary, 'n_improvements'), 'significant gain')}; "
                       + (f"{plural(last, 'drop')} last week." if tested_last else "last week not assessed."))
    # Tested and fallen only: an untested change (is_regression NULL) is no drop.
    drops = changes.frame[changes.frame["is_regression"].fillna(False).astype(bool)] if not changes.frame.empty \
        else changes.frame
    c.link("leaderboard", "Which models, which evals?", icon=":material/arrow_forward:",
           params={"evaluation": sorted(drops["evaluation_name"].unique()) if not drops.empty else None,
                   "model": sorted(drops["model_id"].unique()) if not drops.empty else None, **week_days})

with top[2].container(border=True):
    if backlog.missing:
        _not_available("Review backlog now", backlog)
    else:
        total = int(backlog.frame["n"].sum()) if not backlog.frame.empty else 0
        forms = backlog.frame[backlog.frame["source_format"] == "eval_form"]
        n_forms = int(forms["n"].sum()) if not forms.empty else 0
        oldest = backlog.frame["oldest_days"].max() if not backlog.frame.empty else None
        st.metric("Review backlog now", f"{total}",
                  help="Judge records waiting for a person: eval forms with a low score, a low confidence or a "
                       "violating hazard, and CogniBench records flagged for human review. The records waiting are "
                       "those the last build queued; their ages are counted to now, as this page reads the queue.")
        st.caption((f"{n_forms} eval forms, {total - n_forms} CogniBench records; the oldest waits "
                    f"{c.count(oldest)} days." if total else "Nothing is waiting.")
                   + (f" Today's queue, not {week_param}'s." if past_week else ""))
    c.link("review_queue", "Review the queue", icon=":material/arrow_forward:")

with bottom[0].container(border=True):
    label = "Dimensions below their agreement target"
    if week is None or agreement.missing:
        _not_available(label, agreement)
    else:
        about = ("Rated dimensions whose Krippendorff's alpha among people (human, SME and end-user raters; LLM "
                 "judges are held to people on Judge drift) is under its target: "
                 f"{targets_said or 'as the seed agreement_targets sets it'}. A "
                 "dimension with no item rated by two or more people has no alpha. A shortfall whose 95% interval "
                 "reaches the target is counted, and said apart below the figure.")
        this, last = _row(agreement.frame, week), _row(agreement.frame, previous)
        below, below_last = _value(this, "n_below_target"), _value(last, "n_below_target")
        defined, defined_last = _value(this, "n_with_alpha"), _value(last, "n_with_alpha")
        if not defined:
            _not_assessed(label, f"no dimension has an alpha among people in {week_param}: no item rated by two or "
                                 "more people, or every rating the same.", about)
        else:
            st.metric(label, f"{below} of {defined}", delta=_delta(below, below_last, defined_last),
                      delta_color="inverse", help=about)
            within = _value(this, "n_below_within")
            unsure = (f" {within} of this week's {below} within its 95% interval of the target: too few items to "
                      "call a failure." if within else "")
            flagged = "n/a" if summary.missing else f"{_value(this_summary, 'n_flagged_items')}"
            st.caption((f"{below_last} last week." if defined_last else "Last week not assessed.")
                       + f"{unsure} {flagged} items people disagree on flagged for rubric clarification this week.")
    c.link("agreement", "Where do raters disagree?", params={"week": week_param}, icon=":material/arrow_forward:")

with bottom[1].container(border=True):
    label = "Violating verdicts from people"
    if week is None or hazards.missing:
        _not_available(label, hazards)
    else:
        about = ("Hazard verdicts 'violating' that human raters gave this week, over every model and hazard, among "
                 "their violating and non-violating verdicts (unsure and not applicable ones are no verdict).")
        this, last = _row(hazards.frame, week), _row(hazards.frame, previous)
        now, before = _value(this, "n_violating"), _value(last, "n_violating")
        verdicts, verdicts_last = _value(this, "n_verdicts"), _value(last, "n_verdicts")
        not_applicable = _value(this, "n_not_applicable")
        if not verdicts and not_applicable:
            st.metric(label, "0", delta=_delta(now, before, verdicts_last), delta_color="inverse", help=about)
            st.caption(f"People: {no_hazard_applied(week_param, not_applicable, _value(this, 'n_unsure'))} "
                       + (f"{before} last week." if verdicts_last else "Last week not assessed."))
        elif not verdicts:
            unsure = _value(this, "n_unsure")
            _not_assessed(label, f"people gave no violating or non-violating hazard verdict in {week_param}"
                                 + (f" ({plural(unsure, 'unsure verdict')}, which decide nothing)" if unsure else "")
                                 + ".", about)
        else:
            st.metric(label, f"{now}", delta=_delta(now, before, verdicts_last), delta_color="inverse", help=about)
            st.caption(f"Of {plural(verdicts, 'verdict')}: {plural(_value(this, 'n_models'), 'model')}, "
                       f"{plural(_value(this, 'n_hazards'), 'hazard')}; "
                       + (f"{before} last week." if verdicts_last else "last week not assessed."))
    c.link("safety", "Which models, which hazards?", params={"week": week_param}, icon=":material/arrow_forward:")

with bottom[2].container(border=True):
    label = "Lines quarantined, still refused now"
    if quarantine.missing:
        _not_available(label, quarantine)
    else:
        about = ("Input lines the ingester refused (bad JSON, a schema failure...), each kept with its reason and its "
                 "original text, and not loaded by a later ingest of the same file. Counted over every ingest.")
        row = quarantine.frame.iloc[0]
        if not c.number_or(row["n_ingested_files"]):
            _not_assessed(label, "no ingest run yet, so no line was checked. Run `evalhouse ingest PATH`.", about)
        else:
            st.metric(label, c.count(row["n_lines"]), help=about)
            st.caption(f"In {plural(int(row['n_files']), 'file')}; {c.count(row['n_latest_batch'])} in the latest "
                       f"ingest run; {c.count(row['n_loaded_later'])} more loaded by a later run."
                       + (f" Counted now over every ingest, not only {week_param}'s." if past_week else ""))
    c.link("data_quality", "Why were they refused?", icon=":material/arrow_forward:")

# -- each model --------------------------------------------------------------------------------------------------

st.subheader("Each model, this week against last")
if week is None:
    st.info("No trials or ratings in the warehouse yet, so there is no week to show. " + c.HOW_TO_START,
            icon=":material/info:")
    st.stop()
if not c.empty_state(changes, f"scored trials in {week_param}",
                     "Scores appear when instance-level eval records of that week are ingested and built."):
    table = _model_table(changes.frame)
    # Every row at once, nothing scrolling inside the table: the page people open first is read down to its last
    # row. Twelve rows showed, and the rest of the demo's 44 scrolled inside the page's scroll; with all of them, the
    # page is 4,490 px tall at 1400 px (2,360 before; the Safety page is 5,160).
    c.table(
        table, key=["model on eval"], row_height=c.TWO_LINE_ROW_PX, placeholder=c.NA,
        height=c.wrapped_table_height(len(table), c.TWO_LINE_ROW_PX, max_rows=len(table)) + c.SCROLLBAR_PX,
        column_config={
            # two lines of it on a row; as wide as the pinned columns of a 900 px page may be
            "model on eval": st.column_config.TextColumn(width=240),
            "pass rate": st.column_config.TextColumn(help="This week's pass rate [95% interval]."),
            "change": st.column_config.TextColumn(
                help="Against last week; what it is on and its test are further right (change is on, evidence)."),
            "verdict": st.column_config.TextColumn(
                width=170,
                help="The weekly report's verdict: ▼ Regression, ▲ Improvement, no significant change, or why the "
                     "change was not tested."),
            "runs": st.column_config.LinkColumn(
                display_text=":material/leaderboard:", width=44,
                help=f"The Leaderboard for this eval and model, on last week's runs and this week's "
                     f"({week_days['from']} to {week_days['to']})."),
            "k": st.column_config.TextColumn(
                width=40,
                help="The largest k every task of the week reached; n/a where a task has fewer than 2 trials."),
            "pass@k": st.column_config.TextColumn(
                width=130,
                help="The chance that at least one of k attempts succeeds [95% interval over tasks]."),
            "pass^k": st.column_config.TextColumn(
                width=110,
                help="The chance that all k attempts succeed [95% interval over tasks]."),
            "curves": st.column_config.LinkColumn(
                display_text=":material/repeat:", width=44,
                help=f"The pass@k and pass^k curves of {week_param} on the Reliability page."),
            "n samples": st.column_config.TextColumn(help="This week's samples."),
            "last week": st.column_config.TextColumn(help="Last week's pass rate and n samples."),
            "change is on": st.column_config.TextColumn(
                width=240,
                help="The samples both weeks share, which the change is paired on, or the two weeks' means."),
            "evidence": st.column_config.TextColumn(
                help="What the verdict was tested on: the shared samples that got better and worse and the exact "
                     "sign test's p (0/1 scores), else t (paired) or z (unpaired); in brackets when not tested."),
            "last week pass@k": st.column_config.TextColumn(help="pass@k last week, at the same k."),
        },
    )
    st.caption(
        "Pass rate, as the weekly report names it: the share of trials the source marked as passed, whatever the "
        "metric (for accuracy a correct answer, for a judge's or a rubric's metric its pass verdict, for latency a "
        "response within budget: it is accuracy only where the metric is), each sample's trials averaged first, "
        "with its 95% interval. The change is the mean difference on the samples both weeks share (and the change "
        "of the two means where they are fewer than a week's: the two can differ), tested on them with an exact "
        "sign test for 0/1 scores, else Student's t on n - 1 degrees of freedom (|t| > 2.26 on 10 samples); not "
        f"on fewer than {MINIMUMS.model_change_min_changed_samples} changed samples, nor on fewer than "
        f"{MINIMUMS.model_change_min_samples} samples. Without shared samples it is the change of the two weeks' "
        "means, with z (|z| > 1.96). The verdict is the weekly report's, in its order: drops first, then rises. "
        "pass@k (at least one of k attempts succeeds) and pass^k (all k succeed) are at the largest k every task of "
        "the week reached, with their 95% intervals over tasks (Wilson's, as the Reliability page draws them)."
    )
