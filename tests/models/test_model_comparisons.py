"""fct_model_comparisons on the demo warehouse, held to a pandas recomputation from fct_trials: two models' scores
on the samples both answered in a week (each sample's trials averaged first), the paired difference with SE =
sqrt(var(d)/n) and its t interval (scipy's quantile), the exact sign test for 0/1 scores (math.comb), and a verdict
only where there are enough shared samples that differ."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from scipy.stats import t

pytestmark = pytest.mark.slow

TOLERANCE = 1e-9
KEYS = ["evaluation_name", "trial_metric", "week_start"]


def _close(got, expected) -> bool:
    if expected is None:
        return got is None or (isinstance(got, float) and math.isnan(got))
    return got is not None and not pd.isna(got) and abs(got - expected) <= TOLERANCE


def _sign_test_p(up: int, down: int) -> float:
    n = up + down
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(min(up, down) + 1)) / 2 ** n)


@pytest.fixture(scope="module")
def comparisons(demo_warehouse) -> pd.DataFrame:
    frame = demo_warehouse.frame("select * from marts.fct_model_comparisons")
    frame["week_start"] = pd.to_datetime(frame["week_start"]).dt.date
    return frame


@pytest.fixture(scope="module")
def sample_scores(demo_warehouse) -> pd.DataFrame:
    """Each model's score per eval, metric, week and sample. The demo's runs each lie within one week, so a trial's
    week is its run's (fct_model_comparisons counts a run in the week it started)."""
    trials = demo_warehouse.frame(
        "select model_id, evaluation_name, trial_metric, week_start, sample_id, is_correct from marts.fct_trials "
        "where is_correct is not null")
    trials["score"] = trials["is_correct"].astype(float)
    scores = trials.groupby(["model_id", *KEYS, "sample_id"], as_index=False)["score"].mean()
    scores["week_start"] = pd.to_datetime(scores["week_start"]).dt.date
    return scores


def test_every_pair_of_models_with_two_shared_samples_has_a_row_from_each_side(comparisons, sample_scores):
    pairs = sample_scores.merge(sample_scores, on=[*KEYS, "sample_id"], suffixes=("", "_other"))
    pairs = pairs[pairs.model_id != pairs.model_id_other]
    counts = pairs.groupby([*KEYS, "model_id", "model_id_other"]).size()
    expected = {key for key, n in counts.items() if n >= 2}
    got = {tuple(row) for row in comparisons[[*KEYS, "model_id", "other_model_id"]].itertuples(index=False)}
    assert got == expected and len(got) > 50
    assert len(comparisons) == len(got)  # the key (eval, metric, week, model, other model) is unique
    mirrored = comparisons.merge(comparisons, left_on=[*KEYS, "model_id", "other_model_id"],
                                 right_on=[*KEYS, "other_model_id", "model_id"], suffixes=("", "_mirror"))
    assert len(mirrored) == len(comparisons)
    assert ((mirrored.mean_difference + mirrored.mean_difference_mirror).abs() <= TOLERANCE).all()
    assert (mirrored.is_better.astype(object).fillna("untested")
            == mirrored.is_worse_mirror.astype(object).fillna("untested")).all()


def test_each_comparison_matches_the_paired_recomputation(comparisons, sample_scores):
    by_cell = {key: frame.set_index("sample_id")["score"]
               for key, frame in sample_scores.groupby(["model_id", *KEYS])}
    tested = {"sign test": 0, "paired t": 0}
    for row in comparisons.itertuples():
        mine = by_cell[(row.model_id, row.evaluation_name, row.trial_metric, row.week_start)]
        theirs = by_cell[(row.other_model_id, row.evaluation_name, row.trial_metric, row.week_start)]
        shared = mine.index.intersection(theirs.index)
        d = mine[shared] - theirs[shared]
        n = len(d)
        se = d.std(ddof=1) / math.sqrt(n)
        critical = float(t.ppf(0.975, n - 1))
        up, down = int((d > 0).sum()), int((d < 0).sum())
        binary = bool(mine[shared].isin([0, 1]).all() and theirs[shared].isin([0, 1]).all())
        assert row.n_shared_samples == n and (row.n_better, row.n_worse) == (up, down), row
        assert _close(row.score, mine[shared].mean()) and _close(row.other_score, theirs[shared].mean()), row
        assert _close(row.mean_difference, d.mean()) and _close(row.difference_se, se), row
        assert _close(row.critical_value, critical), row
        assert _close(row.difference_ci_low, max(-1.0, d.mean() - critical * se) if se > 0 else None), row
        assert _close(row.difference_ci_high, min(1.0, d.mean() + critical * se) if se > 0 else None), row
        assert _close(row.t_statistic, d.mean() / se if se > 0 else None), row
        assert _close(row.sign_test_p, _sign_test_p(up, down)), row
        assert row.comparison_test == ("sign test" if binary else "paired t"), row
        if n < 10 or up + down < 6:
            assert pd.isna(row.is_significant) and pd.isna(row.is_better) and pd.isna(row.is_worse), row
            continue
        significant = _sign_test_p(up, down) < 0.05 if binary else abs(d.mean() / se) > critical
        assert bool(row.is_significant) == significant, row
        assert bool(row.is_better) == (significant and d.mean() > 0), row
        assert bool(row.is_worse) == (significant and d.mean() < 0), row
        tested[row.comparison_test] += 1
    assert tested["sign test"] > 5 and tested["paired t"] > 5, tested  # both tests reached a verdict somewhere


def test_some_pairs_differ_and_some_do_not(comparisons):
    """The demo's models differ on some evals and not on others: the verdicts are not all one way."""
    verdicts = comparisons.is_significant.dropna()
    assert verdicts.any() and not verdicts.all()
