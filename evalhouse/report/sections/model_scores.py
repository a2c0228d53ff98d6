"""Did any model get worse this week? Each model and eval (and metric, for an eval scored on several) against the
week before, regressions first."""

from __future__ import annotations

from evalhouse.report import changes, fmt
from evalhouse.report.document import Cell, Paragraph, Section, Table
from evalhouse.report.sections import Context, Part
from evalhouse.report.warehouse import Row

ANCHOR = "model-scores"
TITLE = "Did any model get worse this week?"

# An eval whose responses are scored on several metrics (rubrics) is compared per metric: its label names it.
# Regressions first, then improvements, then the rest: tested changes that held and untested ones (flags NULL). The
# Overview's models table reads the same rows in the same order.
CHANGES_SQL = """
select
    *,
    case
        when min(trial_metric) over metrics < max(trial_metric) over metrics
            then evaluation_name || ' (' || trial_metric || ')'
        else evaluation_name
    end as eval_label
from marts.rpt_weekly_model_changes
where week_start = ?
window metrics as (partition by evaluation_name)
order by
    case when is_regression then 0 when is_improvement then 1 else 2 end,
    case when is_regression then change_z when is_improvement then -change_z end,
    model_id,
    evaluation_name,
    trial_metric
"""


# What compared last week and has no result this week: without this list an eval that stopped running just
# disappears from the table, and a shorter table reads as "nothing changed".
_MISSING_SQL = """
select
    previous_week.model_id,
    previous_week.evaluation_name,
    previous_week.trial_metric,
    previous_week.n_samples,
    previous_week.accuracy,
    case
        when min(previous_week.trial_metric) over metrics < max(previous_week.trial_metric) over metrics
            then previous_week.evaluation_name || ' (' || previous_week.trial_metric || ')'
        else previous_week.evaluation_name
    end as eval_label
from marts.rpt_weekly_model_changes as previous_week
where previous_week.week_start = ?
    and not exists (
        select 1
        from marts.rpt_weekly_model_changes as this_week
        where this_week.week_start = ?
            and this_week.model_id = previous_week.model_id
            and this_week.evaluation_name = previous_week.evaluation_name
            and this_week.trial_metric = previous_week.trial_metric
    )
window metrics as (partition by previous_week.evaluation_name)
order by previous_week.model_id, previous_week.evaluation_name, previous_week.trial_metric
"""

# What a trial's "pass" means, per metric, where the seed vocabulary describes the metric.
_RULES_SQL = """
select alias as metric, description
from staging.metric_vocabulary
where alias in (select distinct trial_metric from marts.rpt_weekly_model_changes where week_start = ?)
order by alias
"""


def build(context: Context) -> Part:
    rows = context.reader.rows(CHANGES_SQL, [context.week])
    missing = context.reader.rows(_MISSING_SQL, [context.previous, context.week])
    missing_block = _missing_paragraph(missing, context) if missing else None
    if not rows:
        text = f"No scored trials in {context.label}: no model scores to compare."
        if missing_block is None:
            return Part(Section(ANCHOR, TITLE, (Paragraph(text),)), Paragraph(text, "muted"))
        return Part(Section(ANCHOR, TITLE, (Paragraph(text), missing_block)),
                    Paragraph(f"{text} {_missing_headline(missing, context)}", "warn"))

    # The flags are None (NULL) for an untested change: it is in neither list.
    regressions = [r for r in rows if r["is_regression"]]
    improvements = [r for r in rows if r["is_improvement"]]
    # Only a row with a week before was compared, and only a tested one can say "no regression": the rest are
    # counted apart, so that "no regressions" never stands for rows nobody could test.
    compared = [r for r in rows if r["comparison"] is not None]
    tested = [r for r in compared if changes.is_tested(r)]
    new = [r for r in rows if r["comparison"] is None]
    big_drops = [r for r in compared if changes.is_untested_big_drop(r)]
    blocks: list = []
    for row in regressions + improvements:
        tone = "bad" if row["is_regression"] else "good"
        blocks.append(Paragraph(change_sentence(row, context.previous_label), tone))
    if not compared:
        blocks.append(Paragraph(f"Not assessed: no {context.previous_label} scores to compare.", "warn"))
    elif not regressions:
        blocks.append(Paragraph(
            f"No model's pass rate fell significantly from {context.previous_label} among the "
            f"{fmt.count(len(tested))} tested{_untested_words(compared, tested)}.", "good" if tested else "warn"))
    if big_drops:
        blocks.append(Paragraph(_look_at(big_drops), "warn"))
    if new and compared:
        blocks.append(Paragraph(
            f"New this week, no {context.previous_label} score to compare: "
            + fmt.join_words([f"{r['model_id']} on {r['eval_label']}" for r in new]) + ".", "muted"))
    if missing_block is not None:
        blocks.append(missing_block)
    blocks.append(_table(rows, context))
    blocks.append(Paragraph(_rules_note(context), "muted"))
    blocks.append(Paragraph(_chance_note(rows), "muted"))

    if not compared:
        text = (f"Model scores not assessed: no {context.previous_label} scores to compare "
                f"({fmt.plural(len(new), 'model and eval score')} new this week).")
        tone = "warn"
    elif regressions:
        text = (f"{fmt.plural(len(regressions), 'regression')}: "
                + fmt.join_words([short_change(r) for r in regressions])
                + f"; {fmt.count(len(tested))} tested against {context.previous_label}"
                + f"{_untested_words(compared, tested)}.")
        tone = "bad"
    else:
        text = (f"No regressions among {fmt.count(len(tested))} tested against {context.previous_label}"
                + _untested_words(compared, tested)
                + (f"; {fmt.plural(len(improvements), 'significant improvement')}: "
                   + fmt.join_words([short_change(r) for r in improvements]) if improvements else "") + ".")
        tone = "good" if tested and not big_drops else "warn"
    if new and compared:
        text += f" {fmt.plural(len(new), 'model and eval score')} new this week."
    if big_drops:
        text += " " + _look_at(big_drops)
        tone = "bad" if regressions else "warn"
    if missing:
        text += " " + _missing_headline(missing, context)
        tone = "bad" if regressions else "warn"
    return Part(Section(ANCHOR, TITLE, tuple(blocks)), Paragraph(text, tone))


def _untested_words(compared: list[Row], tested: list[Row]) -> str:
    """'; 32 of 44 compared could not be tested (...)': an untested row is never counted as unchanged."""
    untested = len(compared) - len(tested)
    if not untested:
        return ""
    return (f"; {fmt.count(untested)} of {fmt.count(len(compared))} compared could not be tested "
            "(too few samples or changes, or no variation)")


def _look_at(rows: list[Row]) -> str:
    """'Look at 2 untested drops of 0.15 or more: a on b (0.80 to 0.50, change -0.30, 10 paired) and ...': each
    with the n it was compared on, so a drop on 2 samples reads as what it is."""
    listed = [f"{r['model_id']} on {r['eval_label']} ({fmt.num(r['previous_accuracy'])} to "
              f"{fmt.num(r['accuracy'])}, change {fmt.signed(changes.shown_change(r))}, {_compared(r)})"
              for r in rows]
    return (f"Look at {fmt.plural(len(rows), 'untested drop')} of {changes.BIG_DROP:.2f} or more: "
            + fmt.join_words(listed) + ".")


def _missing_headline(missing: list[Row], context: Context) -> str:
    return (f"Not compared: {fmt.plural(len(missing), 'model and eval score')} from {context.previous_label} "
            f"{'has' if len(missing) == 1 else 'have'} no result in {context.label}.")


def _missing_paragraph(missing: list[Row], context: Context) -> Paragraph:
    """'4 model and eval scores compared in 2026-W46 have no result in 2026-W47: a/b on c (0.50, n = 10), ...'"""
    listed = [f"{r['model_id']} on {r['eval_label']} ({fmt.num(r['accuracy'])}, n = {fmt.count(r['n_samples'])})"
              for r in missing]
    return Paragraph(
        f"{fmt.plural(len(missing), 'model and eval score')} scored in {context.previous_label} "
        f"{'has' if len(missing) == 1 else 'have'} no result in {context.label}, so {context.label} cannot say "
        f"whether {'it' if len(missing) == 1 else 'they'} got worse: {fmt.join_words(listed)} "
        f"({context.previous_label}'s pass rate and n).", "warn")


def _rules_note(context: Context) -> str:
    rules = (context.reader.rows(_RULES_SQL, [context.week])
             if context.reader.has_table("metric_vocabulary", "staging") else [])
    text = ("Pass rate is the share of trials the source marked as passed (fct_trials.is_correct), whatever the "
            "metric: for accuracy a correct answer, for a judge's or a rubric's metric the source's pass verdict "
            "(for example a judge score at or above the rubric's bar), for latency a response within budget. It is "
            "accuracy only where the metric is.")
    if rules:
        text += " The metrics' definitions: " + "; ".join(f"{r['metric']}: {r['description']}" for r in rules) + "."
    return text


def change_sentence(row: Row, previous_label: str) -> str:
    """'acme/chat-13b fell from 0.71 to 0.56 on gsm8k (paired on n = 40 shared samples, 1 better and 17 worse,
    exact sign test p = 0.0001).'"""
    verb = "fell" if row["is_regression"] else "rose"
    if row["change_test"] == "sign test":
        evidence = (f"paired on n = {row['n_shared_samples']:,} shared samples scored 0 or 1, {_changed(row)}, "
                    f"exact sign test {fmt.p_value(row['sign_test_p'])}")
    elif row["comparison"] == "paired":
        evidence = (f"paired on n = {row['n_shared_samples']:,} shared samples, {_changed(row)}, "
                    f"mean difference {fmt.signed(row['paired_mean_difference'])}{_se(row['paired_se'])}, "
                    f"{changes.test_statistic(row)}")
    else:
        evidence = (f"too few shared samples to pair, n = {row['n_samples']:,} this week and "
                    f"{row['previous_n_samples']:,} in {previous_label}, z = {fmt.z_score(row['change_z'])}")
    pass_k = ""
    if row["pass_k"] is not None and row["previous_pass_at_k"] is not None:
        pass_k = (f"; pass@{row['pass_k']} went from {fmt.num(row['previous_pass_at_k'])} "
                  f"to {fmt.num(row['pass_at_k'])}")
    return (f"{row['model_id']} {verb} from {fmt.num(row['previous_accuracy'])} to {fmt.num(row['accuracy'])} "
            f"on {row['eval_label']} ({evidence}{pass_k}).")


def _se(se: float | None) -> str:
    """' (SE 0.04)' after a value in a sentence, where a bare '± 0.04' would read as a 95% interval."""
    return "" if se is None else f" (SE {fmt.num(se)})"


def short_change(row: Row) -> str:
    """'acme/chat-13b on gsm8k (0.71 to 0.56; of 40 shared samples 1 better, 17 worse; p = 0.0001)'."""
    if row["change_test"] == "sign test":
        evidence = f"of {row['n_shared_samples']:,} shared samples {_changed(row)}; {fmt.p_value(row['sign_test_p'])}"
    elif row["comparison"] == "paired":
        evidence = f"of {row['n_shared_samples']:,} shared samples {_changed(row)}; {changes.test_statistic(row)}"
    else:
        evidence = f"z = {fmt.z_score(row['change_z'])}"
    return (f"{row['model_id']} on {row['eval_label']} ({fmt.num(row['previous_accuracy'])} to "
            f"{fmt.num(row['accuracy'])}; {evidence})")


def _changed(row: Row) -> str:
    return changes.changed(row)


def _change(row: Row) -> str:
    """The change the verdict is on, and the means' where they moved otherwise ('+0.00\n(means +0.11)'), so the
    change never seems to contradict the two pass rates beside it."""
    shown = fmt.signed(changes.shown_change(row))
    moved = changes.means_moved(row)
    return shown if moved is None else f"{shown}\n(means {fmt.signed(moved)})"


def _compared(row: Row) -> str:
    return changes.compared(row)


def _on_two_lines(value: float | None, low: float | None, high: float | None) -> str:
    """A pass rate over its interval ('0.56\n[0.43, 0.67]'), as pass@k's: on one line, the two pass rates kept the
    table wider than an 1100-pixel window (Markdown gives the cell one line)."""
    return fmt.with_interval(value, low, high).replace(" [", "\n[", 1)


def _table(rows: list[Row], context: Context) -> Table:
    minimums = context.settings  # the ones rpt_weekly_model_changes was built with
    body = []
    for row in rows:
        tone = "bad" if row["is_regression"] else "good" if row["is_improvement"] else None
        pass_k = (f"{fmt.num(row['pass_at_k'])} (k = {row['pass_k']})\n"
                  f"{fmt.interval(row['pass_at_k_ci_low'], row['pass_at_k_ci_high'])}".strip()
                  if row["pass_k"] is not None else fmt.MISSING)
        body.append((
            Cell(row["model_id"]),
            Cell(row["eval_label"]),
            Cell(*changes.verdict(row, minimums)),
            Cell(_on_two_lines(row["accuracy"], row["ci_low"], row["ci_high"]), numeric=True),
            Cell(fmt.count(row["n_samples"]), numeric=True),
            Cell(_on_two_lines(row["previous_accuracy"], row["previous_ci_low"], row["previous_ci_high"]),
                 numeric=True),
            Cell(_change(row), tone, numeric=True),
            Cell(_compared(row) if row["comparison"] else fmt.MISSING, numeric=True),
            Cell(_changed(row) if row["comparison"] == "paired" else fmt.MISSING, numeric=True),
            Cell(changes.test_statistic(row), tone or (None if changes.is_tested(row) else "muted"), numeric=True),
            Cell(fmt.num(row["paired_correlation"]), numeric=True),
            Cell(pass_k, numeric=True),
        ))
    return Table(
        # The verdict third, beside what it is about: last, it was off-screen at 1100 pixels, behind the statistics.
        ("Model", "Eval", "Verdict", f"Pass rate {context.label} [95% CI]", "n samples",
         f"Pass rate {context.previous_label} [95% CI]", "Change", "Compared on", "Changed samples", "Test", "r",
         "pass@k [95% CI]"),
        tuple(body),
        caption=("Pass rate: the trials of one metric (an eval scored on several is listed per metric), each "
                 "sample's trials averaged first, then the mean over samples, with a Wilson interval on the "
                 "effective sample size (it agrees with the standard error); it is the "
                 "unbiased pass@1. pass@k: the chance that one of k trials passes, for the largest k every sample "
                 "reached, with Wilson's interval on the samples its standard error is worth. Change: on the samples "
                 "both weeks share "
                 "(\"paired\"), the mean of the paired differences, with the change of the two means in brackets "
                 "where a week has samples the other lacks; \"Changed samples\" counts the shared samples "
                 "whose score rose and fell. Where every shared score is 0 or 1 the change is tested with the exact "
                 "sign test on the changed samples (significant at p < 0.05), other paired scores (several trials "
                 "averaged) with Student's t = mean(d) / sqrt(var(d)/n), significant beyond its 0.975 quantile on "
                 "n - 1 degrees of freedom (|t| > 2.26 on 10 shared samples, 2.09 on 20, 2.02 on 40; the normal's "
                 "1.96 would flag 8% of unchanged models on 10); a paired change on fewer than "
                 f"{minimums.model_change_min_changed_samples} changed samples is not tested (\"too few changed "
                 "samples to test\": no sign test on fewer than 6 can reach p < 0.05). r is "
                 "the correlation of the two weeks' per-sample scores (from 3 shared samples). "
                 "With fewer than two shared samples the weeks are compared as independent windows (\"unpaired\": "
                 "the change of the means, pooled SE, n the smaller week's samples), tested with z, significant at "
                 f"|z| > 1.96. \"Compared on\" is that n. Any change is tested from "
                 f"{minimums.model_change_min_samples} samples up (\"too few samples to test\" below that); \"no "
                 "variation\": every shared sample's score moved by the same amount (usually not at all), so t is "
                 "undefined. A statistic in brackets is that of a change that was not tested, shown for reference."),
    )


def _chance_note(rows: list[Row]) -> str:
    tested = sum(1 for r in rows if r["is_significant"] is not None)
    return (f"{fmt.plural(tested, 'comparison')} tested this week: at the 5% level about {0.05 * tested:.1f} would "
            "be flagged by chance alone. Read a flag near |t| = 2 or p = 0.05 as a prompt to look, one beyond "
            "|t| = 4 or p < 0.0001 as a finding.")
