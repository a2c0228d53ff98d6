"""Did any model get worse this week? Each model and eval (and metric, for an eval scored on several) against the
week before, regressions first."""

from __future__ import annotations

from evalhouse.report import fmt
from evalhouse.report.document import Cell, Paragraph, Section, Table
from evalhouse.report.sections import Context, Part
from evalhouse.report.warehouse import Row

ANCHOR = "model-scores"
TITLE = "Did any model get worse this week?"

# An eval whose responses are scored on several metrics (rubrics) is compared per metric: its label names it.
_SQL = """
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


def build(context: Context) -> Part:
    rows = context.reader.rows(_SQL, [context.week])
    if not rows:
        text = f"No scored trials in {context.label}: no model scores to compare."
        return Part(Section(ANCHOR, TITLE, (Paragraph(text),)), Paragraph(text, "muted"))

    regressions = [r for r in rows if r["is_regression"]]
    improvements = [r for r in rows if r["is_improvement"]]
    blocks: list = []
    for row in regressions + improvements:
        tone = "bad" if row["is_regression"] else "good"
        blocks.append(Paragraph(change_sentence(row, context.previous_label), tone))
    if not regressions:
        blocks.append(Paragraph(
            f"No model's accuracy fell significantly from {context.previous_label} "
            f"({fmt.plural(len(rows), 'model and eval score')} compared).", "good"))
    blocks.append(_table(rows, context))
    blocks.append(Paragraph(_chance_note(rows), "muted"))

    if regressions:
        headline = Paragraph(f"{fmt.plural(len(regressions), 'regression')}: "
                             + fmt.join_words([short_change(r) for r in regressions]) + ".", "bad")
    else:
        headline = Paragraph(
            f"No regressions: {fmt.plural(len(rows), 'model and eval score')} compared with {context.previous_label}"
            + (f"; {fmt.plural(len(improvements), 'significant improvement')}: "
               + fmt.join_words([short_change(r) for r in improvements]) if improvements else "") + ".", "good")
    return Part(Section(ANCHOR, TITLE, tuple(blocks)), headline)


def change_sentence(row: Row, previous_label: str) -> str:
    """'acme/chat-13b fell from 0.71 to 0.56 on gsm8k (n = 40 shared samples, z = -4.3).'"""
    verb = "fell" if row["change_z"] < 0 else "rose"
    if row["comparison"] == "paired":
        evidence = (f"paired on n = {row['n_shared_samples']:,} shared samples, "
                    f"mean difference {fmt.plus_minus(row['paired_mean_difference'], row['paired_se'])}, "
                    f"z = {fmt.z_score(row['change_z'])}")
    else:
        evidence = (f"too few shared samples to pair, n = {row['n_samples']:,} this week and "
                    f"{row['previous_n_samples']:,} in {previous_label}, z = {fmt.z_score(row['change_z'])}")
    pass_k = ""
    if row["pass_k"] is not None and row["previous_pass_at_k"] is not None:
        pass_k = (f"; pass@{row['pass_k']} went from {fmt.num(row['previous_pass_at_k'])} "
                  f"to {fmt.num(row['pass_at_k'])}")
    return (f"{row['model_id']} {verb} from {fmt.num(row['previous_accuracy'])} to {fmt.num(row['accuracy'])} "
            f"on {row['eval_label']} ({evidence}{pass_k}).")


def short_change(row: Row) -> str:
    """'acme/chat-13b on gsm8k (0.71 to 0.56, z = -4.3)'."""
    return (f"{row['model_id']} on {row['eval_label']} ({fmt.num(row['previous_accuracy'])} to "
            f"{fmt.num(row['accuracy'])}, z = {fmt.z_score(row['change_z'])})")


def _verdict(row: Row) -> Cell:
    if row["is_regression"]:
        return Cell("Regression", "bad")
    if row["is_improvement"]:
        return Cell("Improvement", "good")
    if row["comparison"] is None:
        return Cell("new this week", "muted")
    if row["change_z"] is None:
        return Cell("no variation", "muted")
    if row["is_significant"] is None:
        return Cell(f"too few samples to test ({_compared(row)})", "muted")
    return Cell("steady", "muted")


def _compared(row: Row) -> str:
    """The n the change's z was computed on, and how: '40 paired' (shared samples) or '7 unpaired' (the smaller
    week's samples, when fewer than two are shared)."""
    return f"{fmt.count(row['n_compared'])} {row['comparison']}"


def _table(rows: list[Row], context: Context) -> Table:
    body = []
    for row in rows:
        tone = "bad" if row["is_regression"] else "good" if row["is_improvement"] else None
        pass_k = (f"{fmt.num(row['pass_at_k'])} (k = {row['pass_k']})" if row["pass_k"] is not None else fmt.MISSING)
        body.append((
            Cell(row["model_id"]),
            Cell(row["eval_label"]),
            Cell(fmt.with_interval(row["accuracy"], row["ci_low"], row["ci_high"]), numeric=True),
            Cell(fmt.count(row["n_samples"]), numeric=True),
            Cell(fmt.with_interval(row["previous_accuracy"], row["previous_ci_low"], row["previous_ci_high"]),
                 numeric=True),
            Cell(fmt.signed(row["accuracy_change"]), tone, numeric=True),
            Cell(_compared(row) if row["comparison"] else fmt.MISSING, numeric=True),
            Cell(fmt.z_score(row["change_z"]), tone, numeric=True),
            Cell(fmt.num(row["paired_correlation"]), numeric=True),
            Cell(fmt.num(row["pass_at_1"]), numeric=True),
            Cell(pass_k, numeric=True),
            _verdict(row),
        ))
    return Table(
        ("Model", "Eval", f"Accuracy {context.label} [95% CI]", "n samples",
         f"Accuracy {context.previous_label} [95% CI]", "Change", "Compared on", "z", "r", "pass@1", "pass@k",
         "Verdict"),
        tuple(body),
        caption=("Accuracy: the trials of one metric (an eval scored on several is listed per metric), each sample's "
                 "trials averaged first, then the mean over samples, with a Wilson interval on the effective sample "
                 "size (it agrees with the standard error). Change tested on the samples both weeks share "
                 "(\"paired\": paired differences, SE = sqrt(var(d)/n)); r is the correlation of the two weeks' "
                 "per-sample scores. With fewer than two shared samples the weeks are compared as independent "
                 "windows (\"unpaired\": pooled SE, n the smaller week's samples). \"Compared on\" is that n. A "
                 "change is significant at |z| > 1.96, tested from 10 samples up (\"too few samples to test\" below "
                 "that); \"no variation\": every shared sample's score moved by the same amount (usually not at all), "
                 "so z is undefined."),
    )


def _chance_note(rows: list[Row]) -> str:
    tested = sum(1 for r in rows if r["is_significant"] is not None)
    return (f"{fmt.plural(tested, 'comparison')} this week: at |z| > 1.96 about {0.05 * tested:.1f} would be flagged "
            "by chance alone. Read a flag near |z| = 2 as a prompt to look, one beyond |z| = 4 as a finding.")
