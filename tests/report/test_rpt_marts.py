"""The report's marts on the demo warehouse, rebuilt independently from finer-grained marts with pandas.

rpt_weekly_model_changes is held to 1e-9 against the documented rules: each sample's trials averaged within the
week, paired differences on shared samples with SE = sqrt(var(d)/n) tested against Student's t on n - 1 degrees of
freedom (scipy's quantile), the pooled SE without shared samples (|z| > 1.96), and for 0/1 scores the exact sign
test on the changed samples (p from math.comb)."""

from __future__ import annotations

import datetime as dt
import math

import pandas as pd
import pytest
from scipy.stats import t

from evalhouse.demo.world import REGRESSING_EVAL, REGRESSING_MODEL, SHIFTED_JUDGE_ID, SHIFTED_JUDGE_VERSION
from tests.report.conftest import LAST_WEEK, SHIFTED_WEEK

pytestmark = pytest.mark.slow

TOLERANCE = 1e-9


def _with_dates(frame: pd.DataFrame) -> pd.DataFrame:
    """DuckDB dates arrive in pandas as Timestamps: back to datetime.date, to compare with the demo's weeks."""
    for column in frame.columns:
        if column == "week_start" or column.endswith("_week_start"):
            frame[column] = pd.to_datetime(frame[column]).dt.date
    return frame


def _close(got, expected) -> bool:
    if expected is None or (isinstance(expected, float) and math.isnan(expected)):
        return got is None or (isinstance(got, float) and math.isnan(got))
    return got is not None and abs(got - expected) <= TOLERANCE


@pytest.fixture(scope="module")
def model_changes(demo_warehouse) -> pd.DataFrame:
    return _with_dates(demo_warehouse.frame("select * from marts.rpt_weekly_model_changes"))


@pytest.fixture(scope="module")
def sample_scores(demo_warehouse) -> pd.DataFrame:
    trials = demo_warehouse.frame(
        "select model_id, evaluation_name, trial_metric, week_start, sample_id, is_correct from marts.fct_trials "
        "where is_correct is not null")
    trials["score"] = trials["is_correct"].astype(float)
    scores = trials.groupby(["model_id", "evaluation_name", "trial_metric", "week_start", "sample_id"],
                            as_index=False)["score"].mean()
    return _with_dates(scores)


def test_model_changes_match_a_pandas_recomputation(model_changes, sample_scores):
    weekly = sample_scores.groupby(["model_id", "evaluation_name", "trial_metric", "week_start"])
    assert len(model_changes) == weekly.ngroups
    for row in model_changes.itertuples():
        cell = sample_scores[(sample_scores.model_id == row.model_id)
                             & (sample_scores.evaluation_name == row.evaluation_name)
                             & (sample_scores.trial_metric == row.trial_metric)]
        this = cell[cell.week_start == row.week_start].set_index("sample_id")["score"]
        before = cell[cell.week_start == row.previous_week_start].set_index("sample_id")["score"]
        assert row.n_samples == len(this)
        assert _close(row.accuracy, this.mean())
        se = this.std(ddof=1) / math.sqrt(len(this)) if len(this) > 1 else None
        assert _close(row.accuracy_se, se)
        # Wilson on the effective sample size p(1 - p) / se^2 * n / (n - 1) (on n_samples where that is undefined)
        p = this.mean()
        effective_n = p * (1 - p) / se ** 2 * len(this) / (len(this) - 1) if se and 0 < p < 1 else len(this)
        centre = (p + 1.96 ** 2 / (2 * effective_n)) / (1 + 1.96 ** 2 / effective_n)
        half = 1.96 * math.sqrt(p * (1 - p) / effective_n + 1.96 ** 2 / (4 * effective_n ** 2)) / (
            1 + 1.96 ** 2 / effective_n)
        assert _close(row.ci_low, centre - half) and _close(row.ci_high, centre + half)
        shared = this.index.intersection(before.index)
        assert row.n_shared_samples == len(shared)
        if len(before) == 0:
            assert pd.isna(row.comparison) and pd.isna(row.change_z) and pd.isna(row.n_compared)
            assert pd.isna(row.is_regression) and pd.isna(row.is_improvement)  # nothing to compare: no verdict
            continue
        assert _close(row.previous_accuracy, before.mean())
        sign_p = None
        if len(shared) >= 2:
            d = this[shared] - before[shared]
            se = d.std(ddof=1) / math.sqrt(len(d))
            assert row.comparison == "paired"
            assert _close(row.paired_mean_difference, d.mean())
            assert _close(row.paired_se, se)
            up, down = int((d > 0).sum()), int((d < 0).sum())
            assert (row.n_improved, row.n_worsened) == (up, down)
            assert _close(row.sign_test_p, _sign_test_p(up, down))
            binary = bool(this[shared].isin([0, 1]).all() and before[shared].isin([0, 1]).all())
            assert row.change_test == ("sign test" if binary else "paired t")
            if up + down < 6:
                sign_p = "too few"
            elif binary:
                sign_p = _sign_test_p(up, down)
            expected_z = d.mean() / se if se > 0 else None
            expected_change = d.mean()
            n_compared = len(shared)
            critical = None if binary else float(t.ppf(0.975, len(shared) - 1))
        else:
            pooled = (this.sum() + before.sum()) / (len(this) + len(before))
            se = math.sqrt(pooled * (1 - pooled) * (1 / len(this) + 1 / len(before)))
            assert row.comparison == "unpaired"
            assert _close(row.unpaired_se, se)
            expected_z = (this.mean() - before.mean()) / se if se > 0 else None
            expected_change = this.mean() - before.mean()
            n_compared = min(len(this), len(before))
            critical = 1.96
        assert _close(row.change_z, expected_z) and _close(row.critical_value, critical)
        assert row.n_compared == n_compared
        if n_compared < 10 or sign_p == "too few":
            expected_significant = None
        elif sign_p is not None:
            expected_significant = sign_p < 0.05
        else:
            expected_significant = None if expected_z is None else abs(expected_z) > critical
        assert (None if pd.isna(row.is_significant) else bool(row.is_significant)) == expected_significant
        # NULL when untested (no verdict either way), else the tested change's direction
        expected_flags = ((None, None) if expected_significant is None
                          else (expected_significant and expected_change < 0,
                                expected_significant and expected_change > 0))
        assert (_flag(row.is_regression), _flag(row.is_improvement)) == expected_flags, row
        if len(shared) < 3:
            assert pd.isna(row.paired_correlation)  # two points always correlate +-1


def _flag(value) -> bool | None:
    """A nullable boolean from pandas (pd.NA for NULL) as None, True or False."""
    return None if pd.isna(value) else bool(value)


def _sign_test_p(up: int, down: int) -> float:
    """The exact two-sided sign test: min(1, 2 P(X <= min(up, down))), X ~ Binomial(up + down, 1/2)."""
    n = up + down
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(min(up, down) + 1)) / 2 ** n)


def test_a_flag_on_three_changed_samples_is_not_a_regression(model_changes):
    """The review's W47 groundedness "regression": 0.80 to 0.50 on 10 shared samples, of which 3 fell and none rose.
    z = -1.96 passed the old |z| > 1.96 rule; the exact sign test gives p = 0.25, and 3 changes cannot reach 0.05."""
    row = model_changes[(model_changes.model_id == "meta-llama/Llama-3.1-8B-Instruct")
                        & (model_changes.evaluation_name == "acme_groundedness_suite/groundedness")
                        & (model_changes.week_start == LAST_WEEK)].iloc[0]
    assert row.change_z < -1.96  # what made the old rule flag it
    assert (row.n_shared_samples, row.n_improved, row.n_worsened) == (10, 0, 3)
    assert row.change_test == "sign test" and _close(row.sign_test_p, 0.25)
    assert pd.isna(row.is_significant) and pd.isna(row.is_regression) and pd.isna(row.is_improvement)


def test_an_untested_change_is_neither_a_regression_nor_not_one(demo_warehouse, model_changes):
    """is_regression and is_improvement are NULL exactly where is_significant is (no week before, too few samples or
    changed samples, no variation): they were false, a verdict nobody reached, and an analyst's `where not
    is_regression` listed the untested changes among the models that held. The demo has untested rises and falls
    and rows with no week before, so neither coalesce(..., false) nor a bare `is_significant and change < 0` (false,
    not NULL, for an untested rise) passes."""
    untested = model_changes[model_changes.is_significant.isna()]
    tested = model_changes[model_changes.is_significant.notna()]
    change = untested.paired_mean_difference.where(untested.comparison == "paired", untested.accuracy_change)
    assert untested.comparison.isna().any() and (change > 0).any() and (change < 0).any()
    assert untested.is_regression.isna().all() and untested.is_improvement.isna().all()
    assert len(tested) and tested.is_regression.notna().all() and tested.is_improvement.notna().all()
    held = demo_warehouse.rows("select count(*), count(is_significant) from marts.rpt_weekly_model_changes "
                               "where not is_regression and not is_improvement")[0]
    assert held[0] == held[1] > 0  # "the models that held" are tested ones only


def test_the_summary_counts_the_tested_regressions_and_improvements_only(demo_warehouse, model_changes):
    """rpt_weekly_summary's n_regressions and n_improvements count the significant falls and rises, whatever the
    untested rows' flags: recounted here from is_significant and the compared change, not from the flags."""
    change = model_changes.paired_mean_difference.where(model_changes.comparison == "paired",
                                                        model_changes.accuracy_change)
    significant = model_changes.is_significant.fillna(False).astype(bool)
    expected = (model_changes.assign(down=significant & (change < 0), up=significant & (change > 0))
                .groupby("week_start")[["down", "up"]].sum())
    tested = model_changes.groupby("week_start")["is_significant"].agg(["count", "size"])
    summary = _with_dates(demo_warehouse.frame(
        "select week_start, n_regressions, n_improvements, n_changes_tested, n_changes_untested "
        "from marts.rpt_weekly_summary")).set_index("week_start")
    assert expected["down"].sum() > 0 and model_changes.is_significant.isna().any()
    for week, row in summary.iterrows():
        down, up = expected.loc[week] if week in expected.index else (0, 0)
        assert (row.n_regressions, row.n_improvements) == (down, up), week
        # their n: the changes with a verdict, and those without one
        n_tested, n_rows = tested.loc[week] if week in tested.index else (0, 0)
        assert (row.n_changes_tested, row.n_changes_untested) == (n_tested, n_rows - n_tested), week



def test_the_summarys_drift_alerts_come_with_the_pairs_tested_and_not(demo_warehouse):
    """n_drift_alerts of n_drift_tested, and n_drift_untested past the baseline: recounted from fct_judge_drift (a
    full baseline's weeks say false, never tested; a week with too few items says NULL)."""
    expected = {week: (alerts, tested, untested) for week, alerts, tested, untested in demo_warehouse.rows(
        "select week_start, count(*) filter (where is_drift_alert), "
        "count(*) filter (where not is_baseline_week and is_drift_alert is not null), "
        "count(*) filter (where not is_baseline_week and is_drift_alert is null) "
        "from marts.fct_judge_drift group by week_start")}
    got = demo_warehouse.rows("select week_start, n_drift_alerts, n_drift_tested, n_drift_untested "
                              "from marts.rpt_weekly_summary")
    for week, *counts in got:
        assert tuple(counts) == expected.get(week, (0, 0, 0)), week
    assert sum(c[0] for c in expected.values()) > 0 and sum(c[2] for c in expected.values()) > 0


def test_every_paired_flag_rests_on_six_changed_samples_and_0_1_flags_on_the_sign_test(model_changes):
    flagged = model_changes[(model_changes.is_regression.fillna(False) | model_changes.is_improvement.fillna(False))
                            & (model_changes.comparison == "paired")]
    assert (REGRESSING_MODEL, REGRESSING_EVAL, LAST_WEEK) in {
        (r.model_id, r.evaluation_name, r.week_start) for r in flagged.itertuples()}  # 17 down, 1 up
    for row in flagged.itertuples():
        assert row.n_improved + row.n_worsened >= 6, row
        if row.change_test == "sign test":
            assert _sign_test_p(row.n_improved, row.n_worsened) < 0.05, row


def test_paired_correlation_is_pearsons_on_shared_samples(model_changes, sample_scores):
    row = model_changes[(model_changes.model_id == REGRESSING_MODEL)
                        & (model_changes.evaluation_name == REGRESSING_EVAL)
                        & (model_changes.week_start == LAST_WEEK)].iloc[0]
    scores = sample_scores[(sample_scores.model_id == REGRESSING_MODEL)
                           & (sample_scores.evaluation_name == REGRESSING_EVAL)]
    pivot = scores.pivot(index="sample_id", columns="week_start", values="score")
    both = pivot[[row.previous_week_start, row.week_start]].dropna()
    assert _close(row.paired_correlation, both.corr().iloc[0, 1])


def test_the_demo_regression_is_the_last_weeks_only_regression_beyond_four_standard_errors(model_changes):
    strong = model_changes[model_changes.is_regression.fillna(False) & (model_changes.change_z < -4)]
    assert [(r.model_id, r.evaluation_name, r.week_start) for r in strong.itertuples()] == [
        (REGRESSING_MODEL, REGRESSING_EVAL, LAST_WEEK)]
    row = strong.iloc[0]
    assert row.comparison == "paired" and row.n_shared_samples == 40
    assert row.pass_k == 4 and row.previous_pass_at_k > row.pass_at_k


def test_pass_at_k_columns_come_from_the_weekly_mart(demo_warehouse, model_changes):
    weekly = _with_dates(demo_warehouse.frame("select * from marts.fct_pass_at_k_weekly"))
    for row in model_changes.itertuples():
        cells = weekly[(weekly.model_id == row.model_id) & (weekly.evaluation_name == row.evaluation_name)
                       & (weekly.trial_metric == row.trial_metric) & (weekly.week_start == row.week_start)]
        assert _close(row.pass_at_1, cells[cells.k == 1].pass_at_k.iloc[0])
        defined = cells[(cells.k > 1) & cells.pass_at_k.notna()]
        if defined.empty:
            assert pd.isna(row.pass_k)
        else:
            assert row.pass_k == defined.k.max()
            assert _close(row.pass_at_k, defined[defined.k == defined.k.max()].pass_at_k.iloc[0])


def test_weekly_summary_counts_what_the_facts_hold(demo_warehouse):
    summary = _with_dates(demo_warehouse.frame("select * from marts.rpt_weekly_summary order by week_start"))
    trials = _with_dates(demo_warehouse.frame(
        "select week_start, count(*) as n from marts.fct_trials group by week_start"))
    alerts = _with_dates(demo_warehouse.frame(
        "select week_start, count(*) as n from marts.fct_judge_drift where is_drift_alert group by week_start"))
    merged = summary.merge(trials, on="week_start", how="left").fillna({"n": 0})
    assert (merged.n_trials == merged.n).all()
    assert dict(zip(alerts.week_start, alerts.n)) == {
        w: n for w, n in zip(summary.week_start, summary.n_drift_alerts) if n}
    # Results are dated by the demo, whose last week is LAST_WEEK; files loaded and lines quarantined count in the
    # week the session ingested the demo, which is LAST_WEEK only when the tests run in it.
    ingested = demo_warehouse.scalar("select max(week_start) from marts.fct_ingested_files")
    assert summary[summary.has_results].week_start.max() == LAST_WEEK
    assert summary.week_start.max() == max(LAST_WEEK, ingested)


def test_drift_alerts_carry_the_shifted_judge_and_an_example_in_the_drifts_direction(demo_warehouse):
    alerts = _with_dates(demo_warehouse.frame("select * from marts.rpt_weekly_drift_alerts"))
    assert set(alerts.judge_id) == {SHIFTED_JUDGE_ID}
    assert set(alerts.week_start) == {SHIFTED_WEEK}
    assert (alerts.example_response.notna()).all()
    assert ((alerts.example_judge_score - alerts.example_human_score) * alerts.bias_delta > 0).all()


def test_drift_alerts_carry_the_new_judge_version_the_shifted_judge_rated_with_that_week(demo_warehouse):
    """The demo's judge drifts in the one week it rated with judge-prompt-v2.1, judge-prompt-v2 in every other:
    each alert names the week's version, new to its baseline and changed from the week before, and its example's
    version is one of the week's."""
    alerts = demo_warehouse.frame(
        "select judge_versions, baseline_judge_versions, is_judge_version_changed, has_new_judge_version, "
        "example_judge_version from marts.rpt_weekly_drift_alerts")
    assert len(alerts) > 0
    for row in alerts.itertuples():
        assert list(row.judge_versions) == [SHIFTED_JUDGE_VERSION], row
        assert SHIFTED_JUDGE_VERSION not in list(row.baseline_judge_versions), row
        assert row.is_judge_version_changed and row.has_new_judge_version, row
        assert row.example_judge_version == SHIFTED_JUDGE_VERSION
    # the week after, back on its baseline's version: changed, not new, and no alert
    after = demo_warehouse.rows(
        "select distinct is_judge_version_changed, has_new_judge_version, is_drift_alert from marts.fct_judge_drift "
        "where judge_id = ? and week_start = ? and judge_versions is not null and not is_baseline_week",
        [SHIFTED_JUDGE_ID, SHIFTED_WEEK + dt.timedelta(weeks=1)])
    assert after and all(changed and not new and not alert for changed, new, alert in after), after


def test_a_drift_examples_people_are_the_independent_raters_of_its_item(demo_warehouse):
    """The example's "n people gave x on average" counts each independent rater of the item once: a hybrid review
    of the judge's own form (its reviewer may be one of those raters) is not another person's opinion."""
    alerts = demo_warehouse.frame("select * from marts.rpt_weekly_drift_alerts")
    people = demo_warehouse.frame(
        """
        select item_id, dimension, count(distinct rater_id) as n_people, avg(score) as mean_score
        from marts.fct_ratings
        where rater_type in ('human', 'sme') and derived_from is null and score is not null
        group by item_id, dimension
        """
    ).set_index(["item_id", "dimension"])
    assert len(alerts) > 0
    for row in alerts.itertuples():
        expected = people.loc[(row.example_item_id, row.dimension)]
        assert row.example_n_humans == expected.n_people, row
        assert _close(row.example_human_score, expected.mean_score), row


def test_flagged_tasks_add_up_to_the_items_flagged(demo_warehouse):
    tasks = demo_warehouse.frame(
        "select week_start, sum(n_flags) as n from marts.rpt_weekly_flagged_tasks group by week_start")
    items = demo_warehouse.frame(
        "select week_start, count(*) as n from marts.fct_item_disagreement where is_flagged group by week_start")
    assert dict(zip(tasks.week_start, tasks.n)) == dict(zip(items.week_start, items.n))


def test_the_weeks_ratings_count_items_and_raters_not_forms(demo_warehouse):
    """The report's "4,403 ratings of 88 items by 11 raters": an item rated on several forms is one item."""
    summary = demo_warehouse.rows("select week_start, n_ratings, n_rated_items, n_raters from marts.rpt_weekly_summary "
                                  "where n_ratings > 0 order by 1")
    counted = demo_warehouse.rows("select week_start, count(*), count(distinct item_id), count(distinct rater_id), "
                                  "count(distinct record_id) from marts.fct_ratings group by 1 order by 1")
    assert [row[:4] for row in counted] == summary and len(summary) > 5
    assert all(forms > items for *_, items, _, forms in counted)  # each week's items have several forms


def test_a_flagged_tasks_example_is_its_least_agreed_flagged_item(demo_warehouse):
    """The report shows one item per flagged task: the one its people agreed on least that week, as its min says."""
    examples = demo_warehouse.frame("""
        select tasks.task_id, tasks.week_start, tasks.min_item_agreement, items.item_agreement, items.is_flagged,
            tasks.n_items_flagged
        from marts.rpt_weekly_flagged_tasks as tasks
        inner join marts.fct_item_disagreement as items
            on tasks.example_item_id = items.item_id and tasks.example_dimension = items.dimension
        """)
    assert len(examples) == demo_warehouse.scalar("select count(*) from marts.rpt_weekly_flagged_tasks") > 10
    assert (examples.n_items_flagged > 1).sum() > 5  # tasks with a choice of example
    assert examples.is_flagged.all() and (examples.item_agreement == examples.min_item_agreement).all()


def test_empty_warehouse_has_one_summary_row_and_no_weeks(empty_warehouse):
    assert empty_warehouse.rows("select n_trials, n_ratings, first_week_start from marts.rpt_warehouse_summary") == [
        (0, 0, None)]
    assert empty_warehouse.scalar("select count(*) from marts.rpt_weekly_summary") == 0
