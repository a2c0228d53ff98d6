"""How a model's change against the week before reads: its verdict, the statistic it rests on and the change shown.

The weekly report's model table and the app's Overview both read rpt_weekly_model_changes through these functions,
so the two say the same of every change: a change that was never tested reads "too few ... to test", never "no
significant change" or "within noise", its statistic in brackets, and a paired change is the mean of the paired
differences the test is on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evalhouse.build_settings import BuildSettings
from evalhouse.report import fmt

Tone = str  # "bad", "good" or "muted", as the report's cells take it

# An untested change this large is worth a person's look: with too few samples to test, a fall of 0.15 is as likely
# a real regression as noise, and "no regression" alone would hide it.
BIG_DROP = 0.15


def plain(row: Mapping[str, Any]) -> dict[str, Any]:
    """A row with every undefined value as None and numpy scalars as Python ones: what these functions expect. The
    app's rows come from pandas, where a NULL is NaN or pd.NA and a count column with a NULL is a float."""
    out = {}
    for column, value in row.items():
        if hasattr(value, "item") and not isinstance(value, (str, bytes)):
            value = value.item()  # numpy scalar -> int, float, bool
        try:
            undefined = value is None or bool(value != value)  # NaN is the one value unequal to itself
        except TypeError:  # pd.NA: its comparisons are NA, which has no truth value
            undefined = True
        out[column] = None if undefined else value
    return out


def shown_change(row: Mapping[str, Any]) -> float | None:
    """The change the verdict is on: the paired mean difference when paired (it differs from the change of the two
    weeks' means when not every sample is shared), else the change of the means."""
    return row["paired_mean_difference"] if row["comparison"] == "paired" else row["accuracy_change"]


def means_moved(row: Mapping[str, Any]) -> float | None:
    """The change of the two weeks' means where it is not the change shown: a paired change on fewer samples than
    a week has (the pass rates beside it moved by another amount: 0.75 to 0.86 is +0.00 on the 2 shared samples).
    None where the change shown is the means' (unpaired, or every sample of both weeks shared)."""
    if row["comparison"] != "paired":
        return None
    if int(row["n_shared_samples"]) >= max(int(row["n_samples"]), int(row["previous_n_samples"])):
        return None
    return row["accuracy_change"]


def statistic_name(row: Mapping[str, Any]) -> str:
    """'t' for the paired t (averaged scores), 'z' for the unpaired two-proportion z."""
    return "t" if row["change_test"] == "paired t" else "z"


def test_statistic(row: Mapping[str, Any]) -> str:
    """The statistic the verdict rests on: 'p = 0.03' (sign test, 0/1 scores), 't = +2.13' or 'z = -1.00'; in
    brackets, '(t = -1.43)', when the change was not tested (is_significant NULL), so that a number beside "too few
    ... to test" does not read as evidence."""
    if row["change_test"] == "sign test":
        text = fmt.p_value(row["sign_test_p"])
    elif row["change_z"] is None:
        return fmt.MISSING
    else:
        text = f"{statistic_name(row)} = {fmt.z_score(row['change_z'])}"
    return text if text == fmt.MISSING or is_tested(row) else f"({text})"


def is_tested(row: Mapping[str, Any]) -> bool:
    return row["is_significant"] is not None


def is_untested_big_drop(row: Mapping[str, Any]) -> bool:
    """Compared with the week before, not tested, and fell by BIG_DROP or more."""
    change = shown_change(row) if row["comparison"] is not None else None
    return not is_tested(row) and change is not None and round(change, 9) <= -BIG_DROP  # 0.80 - 0.65 is -0.1499...


def changed(row: Mapping[str, Any]) -> str:
    """'1 better, 17 worse': the shared samples whose score rose and fell."""
    return f"{int(row['n_improved']):,} better, {int(row['n_worsened']):,} worse"


def compared(row: Mapping[str, Any]) -> str:
    """The n the change was tested on, and how: '40 paired' (shared samples) or '7 unpaired' (the smaller week's
    samples, when fewer than two are shared)."""
    return f"{fmt.count(int(row['n_compared']))} {row['comparison']}"


# Why a paired comparison has no verdict (why_untested), for each caller to put in its own words.
NO_CHANGE, FEW_SAMPLES, FEW_CHANGED, NO_VARIATION = "no change", "few samples", "few changed", "no variation"


def why_untested(*, n_compared: int, n_changed: int, is_sign_test: bool, statistic: float | None,
                 settings: BuildSettings) -> str | None:
    """Why a paired comparison, of one model's two weeks or of two models on the same samples, has no verdict, by
    the rule change_is_significant (macros/stats/paired_differences.sql) applies with the build's minimums, first
    reason first: no sample changed, too few samples, too few changed samples, no variation (Student's t undefined:
    every sample moved by the same amount). None when none of them holds."""
    if n_changed == 0:
        return NO_CHANGE
    if n_compared < settings.model_change_min_samples:
        return FEW_SAMPLES
    if n_changed < settings.model_change_min_changed_samples:
        return FEW_CHANGED
    if not is_sign_test and statistic is None:
        return NO_VARIATION
    return None


def verdict(row: Mapping[str, Any], settings: BuildSettings) -> tuple[str, Tone]:
    """'Regression', 'Improvement', 'no significant change' (tested: the statistic is beside it), or why the change
    was not tested (is_significant NULL), by the minimums the build that tested it used (`settings`: the
    warehouse's marts.rpt_build_settings). An untested change has is_regression and is_improvement NULL (None),
    neither true nor false: it passes the first two tests to the reason it was not tested."""
    if row["is_regression"]:
        return "Regression", "bad"
    if row["is_improvement"]:
        return "Improvement", "good"
    if row["comparison"] is None:
        return "new this week", "muted"
    if row["comparison"] == "paired":
        n_changed = int(row["n_improved"]) + int(row["n_worsened"])
        why = why_untested(n_compared=int(row["n_compared"]), n_changed=n_changed,
                           is_sign_test=row["change_test"] == "sign test", statistic=row["change_z"],
                           settings=settings)
        if why == NO_CHANGE:
            return "no sample changed", "muted"
        if row["is_significant"] is None and why == FEW_SAMPLES:
            return f"too few samples to test ({compared(row)})", "muted"
        if row["is_significant"] is None and why == FEW_CHANGED:
            return f"too few changed samples to test ({n_changed} changed)", "muted"
    if row["change_test"] != "sign test" and row["change_z"] is None:
        return "no variation", "muted"
    if row["is_significant"] is None:
        return f"too few samples to test ({compared(row)})", "muted"
    return "no significant change", "muted"
