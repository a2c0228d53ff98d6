"""The marts on the demo warehouse, held against reference implementations to 1e-9: Krippendorff's alpha against
`krippendorff.alpha`, Cohen's kappa against scikit-learn, pass@k and pass^k against exact fractions, Wilson
intervals against their formula. Each test rebuilds its statistic's input independently from a finer-grained
mart, following the documented rules, so a wrong rule in the SQL shows up as a wrong number here."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import krippendorff
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from evalhouse.demo.world import GOLD_MISSING_RATER, SHIFTED_JUDGE_ID
from tests.conftest import CAUTIOUS, Warehouse, eval_form_record

pytestmark = pytest.mark.slow

TOLERANCE = 1e-9
DECLARED = {
    "likert_1_5": [1, 2, 3, 4, 5], "vs_reference": [1, 2, 3, 4, 5], "cognibench_label": [0, 0.5, 1],
    "task_success": [0, 0.5, 1], "hazard_verdict": [1, 2, 3, 4], "refusal_appropriateness": [1, 2, 3, 4],
    "refusal_observed": [1, 2],
}


def _close(got, expected) -> bool:
    if expected is None or (isinstance(expected, float) and math.isnan(expected)):
        return got is None or (isinstance(got, float) and math.isnan(got))
    return got is not None and not (isinstance(got, float) and math.isnan(got)) and abs(got - expected) <= TOLERANCE


# -- agreement ---------------------------------------------------------------------------------------------------

def _as_agreement_compares(ratings: pd.DataFrame) -> pd.DataFrame:
    """Ratings with the value agreement compares, from their labels (fct_rater_agreement documents the rule): a
    hazard verdict is violating or not (not_applicable counts as non_violating, code 2), and 'unsure', a rater who
    cannot judge, is no value: the rating drops out once it has superseded the rater's earlier one."""
    hazard = ratings.scale == "hazard_verdict"
    value = ratings.value.mask(hazard & (ratings.label == "not_applicable"), 2.0)
    value = value.mask(hazard & (ratings.label == "unsure"))
    return ratings.assign(value=value).dropna(subset=["value"])


@pytest.fixture(scope="module")
def agreement_inputs(demo_warehouse) -> pd.DataFrame:
    """fct_ratings reduced as fct_rater_agreement documents: no reviews (hybrid forms, CogniBench completed reviews:
    derived_from set), one (latest) rating per rater and item, as agreement compares it,
    every rating in its item's first week (of all its ratings, re-rated ones included) and in its own rater group
    and 'all'."""
    ratings = demo_warehouse.frame(
        "select item_id, dimension, scale, agreement_level, rater_group, rater_id, label, value, rated_at, rating_id, "
        "week_start from marts.fct_ratings where value is not null and rater_id is not null and rater_type <> 'hybrid' "
        "and derived_from is null"
    )
    ratings = ratings.assign(item_week=ratings.groupby(["item_id", "dimension"])["week_start"].transform("min"))
    ratings = ratings.sort_values(["rated_at", "rating_id"], ascending=False)
    latest = _as_agreement_compares(ratings.drop_duplicates(["item_id", "dimension", "rater_id"]))
    return pd.concat([latest, latest.assign(rater_group="all")])


def test_an_items_week_is_that_of_its_first_rating_even_when_every_rater_re_rated_it(demo_warehouse):
    moved = demo_warehouse.rows(
        """
        select count(*), count(case when first.week_start <> disagreement.week_start then 1 end)
        from marts.fct_item_disagreement as disagreement
        inner join (
            select item_id, dimension, min(week_start) as week_start
            from marts.fct_ratings
            where value is not null and rater_id is not null and rater_type <> 'hybrid' and derived_from is null
            group by item_id, dimension
        ) as first
            on disagreement.item_id = first.item_id and disagreement.dimension = first.dimension
        """
    )
    assert moved[0][0] > 1000 and moved[0][1] == 0  # the week of the latest ratings moved 115 demo items


def _alpha(frame: pd.DataFrame, level: str) -> float | None:
    matrix = frame.pivot_table(index="rater_id", columns="item_id", values="value", aggfunc="first")
    try:
        return float(krippendorff.alpha(reliability_data=matrix.to_numpy(dtype=float), level_of_measurement=level))
    except ValueError:  # the oracle's way of saying undefined
        return None


def test_alpha_equals_krippendorff_package_for_every_group_and_level(demo_warehouse, agreement_inputs):
    rows = demo_warehouse.frame("select * from marts.fct_rater_agreement where n_units > 0")
    checked = 0
    for row in rows.itertuples():
        group = agreement_inputs[(agreement_inputs.dimension == row.dimension)
                                 & (agreement_inputs.rater_group == row.rater_group)]
        if not pd.isna(row.week_start):
            group = group[group.item_week == row.week_start]
        levels = ["nominal"] + (["ordinal", "interval"] if row.agreement_level == "ordinal" else [])
        for level in levels:
            got = getattr(row, f"alpha_{level}")
            expected = _alpha(group, level)
            assert _close(None if pd.isna(got) else got, expected), (row.dimension, row.rater_group, row.week_start, level, got, expected)
            checked += 1
    assert checked > 1000


def test_groups_with_no_pairable_item_have_null_statistics(demo_warehouse):
    rows = demo_warehouse.frame("select * from marts.fct_rater_agreement where n_units = 0")
    assert len(rows) > 0  # CogniBench has one judge: its llm_judge group has nothing to pair
    for column in ("alpha_nominal", "alpha_ordinal", "alpha_interval", "alpha", "fleiss_kappa", "percent_agreement", "meets_target"):
        assert rows[column].isna().all(), column


def test_agreement_targets_come_from_the_seed(demo_warehouse):
    targets = dict(demo_warehouse.rows("select distinct dimension_group, target from marts.fct_rater_agreement"))
    assert targets == {"quality": 0.6, "safety": 0.8}
    mismatched = demo_warehouse.scalar(
        "select count(*) from marts.fct_rater_agreement where alpha is not null and meets_target <> (alpha >= target)"
    )
    assert mismatched == 0


@pytest.fixture(scope="module")
def people_items(demo_warehouse) -> pd.DataFrame:
    """Each item and dimension two or more people rated with a value, from fct_ratings as fct_item_disagreement
    documents: people only (rater group human), reviews left out, each person's latest rating as agreement compares
    it, with their scores' range when every such rating has a score; n_unsure counts the latest hazard verdicts
    'unsure', which are no value."""
    ratings = demo_warehouse.frame(
        "select item_id, dimension, scale, rater_id, label, value, score, rated_at, rating_id from marts.fct_ratings "
        "where value is not null and rater_id is not null and rater_group = 'human' and derived_from is null"
    )
    latest = ratings.sort_values(["rated_at", "rating_id"], ascending=False).drop_duplicates(
        ["item_id", "dimension", "rater_id"])
    unsure = latest[latest.label == "unsure"].groupby(["item_id", "dimension"]).size()
    items = _as_agreement_compares(latest).groupby(["item_id", "dimension"]).agg(
        n_ratings=("rater_id", "size"), n_scored=("score", "count"), n_labels=("value", "nunique"),
        lowest_score=("score", "min"), highest_score=("score", "max"))
    items = items.assign(n_unsure=unsure.reindex(items.index, fill_value=0))
    return items[items.n_ratings >= 2]


def test_item_disagreement_holds_the_items_people_rated_and_counts_only_people(demo_warehouse, people_items):
    mart = demo_warehouse.frame(
        "select item_id, dimension, n_ratings, n_raters from marts.fct_item_disagreement").set_index(
        ["item_id", "dimension"]).sort_index()
    assert len(people_items) > 1000
    assert list(mart.index) == list(people_items.sort_index().index)
    assert (mart.n_ratings == people_items.sort_index().n_ratings).all()
    assert (mart.n_raters == mart.n_ratings).all()


def test_an_item_all_its_people_agree_on_is_never_flagged_whatever_the_judges_said(demo_warehouse, people_items):
    """The drifting judge's week flagged 46 items on which every person gave the same rating when judges counted."""
    flagged = demo_warehouse.frame(
        "select item_id, dimension from marts.fct_item_disagreement where is_flagged").set_index(
        ["item_id", "dimension"])
    unanimous = people_items[people_items.n_labels == 1]
    assert len(unanimous) > 100 and len(flagged) > 100
    assert flagged.index.intersection(unanimous.index).empty


def test_spread_is_null_when_a_rating_has_no_score_and_the_peoples_range_otherwise(demo_warehouse, people_items):
    """A rating with a value and no score (a refusal label; a hazard verdict not_applicable, which the hand-built
    test in test_hazard_agreement.py covers) leaves no range. A hazard verdict 'unsure' is no value: the range is
    over the verdicts beside it, as item_agreement is."""
    mart = demo_warehouse.frame(
        "select item_id, dimension, lowest_score, highest_score, spread, score_stddev from marts.fct_item_disagreement"
    ).set_index(["item_id", "dimension"])
    expected = people_items.loc[mart.index]
    partial = expected.n_scored < expected.n_ratings
    assert partial.sum() > 10
    beside_unsure = (expected.n_unsure > 0).to_numpy()
    assert beside_unsure.sum() > 10 and mart.spread[beside_unsure].notna().all()  # non_violating twice and unsure
    for column in ("lowest_score", "highest_score", "spread", "score_stddev"):
        assert mart.loc[partial.to_numpy(), column].isna().all(), column
    scored = mart[~partial.to_numpy()]
    assert (scored.lowest_score == expected[~partial].lowest_score).all()
    assert (scored.highest_score == expected[~partial].highest_score).all()
    assert (scored.spread == scored.highest_score - scored.lowest_score).all()
    assert not ((mart.spread == 0) & (expected.n_labels > 1).to_numpy()).any()  # no spread 0 between labels that differ


# -- judge drift -------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def pairs(demo_warehouse) -> pd.DataFrame:
    """The judge's pairs with independent people: reviews of its verdicts (derived_from) are no part of drift."""
    return demo_warehouse.frame("select * from intermediate.int_rating_pairs_joined where pairing = 'same_item'")


def _compared(pairs: pd.DataFrame, side: str) -> pd.Series:
    """One side's value as agreement compares it (_as_agreement_compares): a hazard verdict is violating or not, and
    'unsure' is no value."""
    hazard, label = pairs.scale == "hazard_verdict", pairs[f"{side}_label"]
    value = pairs[f"{side}_value"].mask(hazard & (label == "not_applicable"), 2.0)
    return value.mask(hazard & (label == "unsure"))


def test_drift_kappas_equal_scikit_learn_with_declared_labels(demo_warehouse, pairs):
    rows = demo_warehouse.frame("select * from marts.fct_judge_drift")
    compared = pairs.assign(judge_value=_compared(pairs, "judge"), human_value=_compared(pairs, "human"))
    checked = 0
    for row in rows.itertuples():
        group = compared[(compared.judge_id == row.judge_id) & (compared.dimension == row.dimension)
                         & (compared.week_start == row.week_start)].dropna(subset=["judge_value", "human_value"])
        if group.empty:
            assert pd.isna(row.kappa_unweighted)
            continue
        # Kappa is defined on positions in the declared label list (scikit-learn rejects 0.5 as a label); a
        # hazard's are the two verdicts agreement compares.
        declared = [2, 3] if row.scale == "hazard_verdict" else DECLARED[row.scale]
        position = {value: i for i, value in enumerate(declared)}
        judge, human = group.judge_value.map(position), group.human_value.map(position)
        for weights, got in ((None, row.kappa_unweighted), ("quadratic", row.kappa_quadratic)):
            with _quiet():
                expected = cohen_kappa_score(judge, human, labels=list(position.values()), weights=weights)
            expected = None if math.isnan(expected) else float(expected)
            assert _close(None if pd.isna(got) else got, expected), (row.judge_id, row.dimension, row.week_start, weights, got, expected)
            checked += 1
    assert checked > 500


def _quiet():
    """scikit-learn warns where kappa is undefined; the test checks the NULL instead."""
    catch = warnings.catch_warnings()
    catch.__enter__()
    warnings.simplefilter("ignore")
    return _Exit(catch)


class _Exit:
    def __init__(self, catch):
        self.catch = catch

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return self.catch.__exit__(*exc)


def test_drift_bias_is_over_items_with_its_standard_error(demo_warehouse, pairs):
    rows = demo_warehouse.frame("select * from marts.fct_judge_drift where n_items >= 2")
    numeric = pairs.dropna(subset=["judge_score", "human_score"])
    items = (numeric.groupby(["judge_id", "dimension", "week_start", "item_id"])
             .agg(judge=("judge_score", "mean"), human=("human_score", "mean")).reset_index())
    items["bias"] = items.judge - items.human
    weekly = items.groupby(["judge_id", "dimension", "week_start"])["bias"].agg(["mean", "std", "count"])
    for row in rows.sample(200, random_state=1).itertuples():
        mean, std, count = weekly.loc[(row.judge_id, row.dimension, row.week_start)]
        assert abs(row.mean_bias - mean) <= TOLERANCE
        assert abs(row.bias_se - std / math.sqrt(count)) <= TOLERANCE
        assert row.n_items == count


def test_drift_pairs_the_judge_with_independent_people_and_overrides_count_the_reviews(demo_warehouse):
    everything = demo_warehouse.frame("select * from intermediate.int_rating_pairs_joined")
    keys = ["judge_id", "dimension", "week_start"]
    independent = everything[everything.pairing == "same_item"].groupby(keys).agg(
        n_pairs=("pair_id", "size"), n_humans=("human_rater_id", "nunique"))
    drift = demo_warehouse.frame("select * from marts.fct_judge_drift").set_index(keys)[["n_pairs", "n_humans"]]
    assert drift.sort_index().equals(independent.sort_index())
    assert (everything.pairing == "derived_from").sum() > 1000  # the demo's hybrid and CogniBench reviews

    # Every score of a review that counts (its rating is in fct_ratings: one review per CogniBench response) counts,
    # kept or changed. The demo's reviews, like the app's, carry no extension score: the form does not show them.
    derived = everything[everything.pairing == "derived_from"]
    assert not derived.dimension.str.match(r"(chat|agent|rag|multimodal)\.").any()
    counted = {rating_id for (rating_id,) in demo_warehouse.rows("select rating_id from marts.fct_ratings")}
    reviews = derived[derived.human_rating_id.isin(counted)].copy()
    reviews["overridden"] = (reviews.judge_label != reviews.human_label).astype(float)
    shares = reviews.groupby([*keys, "judge_rating_id"]).overridden.mean().groupby(keys).agg(["mean", "size"])
    overrides = demo_warehouse.frame("select * from marts.fct_judge_overrides").set_index(keys)
    assert len(overrides) == len(shares)
    for key, row in overrides.iterrows():
        assert abs(row.override_rate - shares.loc[key, "mean"]) <= TOLERANCE
        assert row.n_reviewed_ratings == shares.loc[key, "size"]
        assert row.n_overridden == reviews.set_index(keys).loc[[key]].overridden.sum()


def test_the_shifted_judge_week_raises_alerts_and_no_other_week_does(demo_warehouse):
    alerts = demo_warehouse.rows(
        "select distinct judge_id, cast(week_start as varchar) from marts.fct_judge_drift where is_drift_alert"
    )
    assert alerts == [(SHIFTED_JUDGE_ID, "2026-11-02")]
    dimensions = demo_warehouse.rows(
        "select dimension from marts.fct_judge_drift where is_drift_alert order by 1"
    )
    assert {"helpfulness", "overall_quality"} <= {d for (d,) in dimensions}


def test_previous_judge_versions_are_the_judge_versions_of_its_previous_week_on_the_dimension(demo_warehouse):
    """For every judge and dimension, previous_judge_versions is judge_versions of its row before (its previous
    week_number), NULL in its first week; rpt_weekly_drift_alerts carries the same. The Judge drift page had derived
    it from its own rows."""
    rows = demo_warehouse.rows(
        "select judge_id, dimension, week_start, week_number, judge_versions, previous_judge_versions "
        "from marts.fct_judge_drift order by judge_id, dimension, week_start")
    expected, before = {}, {}
    for judge, dimension, week, number, versions, _ in rows:
        expected[judge, dimension, week] = before.get((judge, dimension)) if number > 1 else None
        before[judge, dimension] = versions
    assert {(j, d, w): previous for j, d, w, _, _, previous in rows} == expected
    # not trivially NULL or the week's own: the demo's judge changes its prompt and back
    assert any(previous is not None and previous != versions for *_, versions, previous in rows)
    alerts = demo_warehouse.rows(
        "select judge_id, dimension, week_start, previous_judge_versions from marts.rpt_weekly_drift_alerts")
    assert alerts and all(expected[j, d, w] == previous for j, d, w, previous in alerts)


def test_drift_alerts_follow_the_documented_rule(demo_warehouse):
    # The baseline: a judge's first 2 weeks on the dimension, and each next week while those before hold fewer than
    # 10 items; a week after it is compared with 10 items or more, and a baseline with fewer is untested.
    wrong = demo_warehouse.scalar(
        """
        with drift as (
            select
                *,
                coalesce(sum(n_items) over (
                    partition by judge_id, dimension order by week_start
                    rows between unbounded preceding and 1 preceding
                ), 0) as n_items_before
            from marts.fct_judge_drift
        )
        select count(*) from drift
        where is_drift_alert is distinct from case
                when is_baseline_week and baseline_n_items >= 10 then false
                when is_baseline_week then null
                when n_items < 10 or bias_delta_se is null then null
                when bias_delta_se = 0 then abs(bias_delta) > 1e-9
                else abs(bias_delta / bias_delta_se) > drift_critical_value
            end
            or (drift_critical_value is not null and drift_critical_value < 4.0)
            or is_baseline_week <> (week_number <= 2 or n_items_before < 10)
            or (not is_baseline_week and baseline_n_items < 10)
        """
    )
    assert wrong == 0


# -- pass@k ------------------------------------------------------------------------------------------------------

def _pass_at_k(n: int, c: int, k: int) -> Fraction:
    return Fraction(1) - Fraction(math.comb(n - c, k), math.comb(n, k))


def _pass_hat_k(n: int, c: int, k: int) -> Fraction:
    return Fraction(math.comb(c, k), math.comb(n, k))


def test_pass_at_k_and_pass_hat_k_equal_exact_fractions(demo_warehouse):
    """Each run's exact pass@k (math.comb), averaged over the task's runs, then over tasks; NULL where some run of
    some task made fewer than k attempts."""
    runs = demo_warehouse.frame(
        "select model_id, evaluation_name, trial_metric, sample_id, run_id, count(is_correct) as n, "
        "count(case when is_correct then 1 end) as c from marts.fct_trials group by all having count(is_correct) > 0")
    rows = demo_warehouse.frame("select * from marts.fct_pass_at_k")
    assert len(rows) > 50
    for row in rows.itertuples():
        group = runs[(runs.model_id == row.model_id) & (runs.evaluation_name == row.evaluation_name)
                     & (runs.trial_metric == row.trial_metric)]
        tasks = [list(zip(task.n, task.c)) for _, task in group.groupby("sample_id")]
        assert row.n_tasks == len(tasks)
        assert row.n_tasks_with_enough_trials == sum(all(n >= row.k for n, _ in task) for task in tasks)
        if row.n_tasks_with_enough_trials < row.n_tasks:
            assert pd.isna(row.pass_at_k) and pd.isna(row.pass_hat_k)
            continue
        at = [sum(_pass_at_k(n, c, row.k) for n, c in task) / len(task) for task in tasks]
        hat = [sum(_pass_hat_k(n, c, row.k) for n, c in task) / len(task) for task in tasks]
        for got, got_se, values in ((row.pass_at_k, row.pass_at_k_se, at), (row.pass_hat_k, row.pass_hat_k_se, hat)):
            mean = sum(values) / len(values)
            assert abs(got - float(mean)) <= TOLERANCE
            if len(values) > 1:
                variance = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
                assert abs(got_se - math.sqrt(float(variance) / len(values))) <= TOLERANCE


def test_k_stops_at_the_most_attempts_one_run_made(demo_warehouse):
    rows = demo_warehouse.rows(
        "select evaluation_name, list(k order by k) from marts.fct_pass_at_k "
        "where model_id = 'acme/chat-7b' group by 1 order by 1"
    )
    # 8 attempts a run for 8 weekly runs: pooled, k reached 64; 2 a run on mmlu_physics (it reached 16).
    assert dict(rows)["tau_retail"] == [1, 2, 4, 8]
    assert dict(rows)["mmlu_physics"] == [1, 2]


def test_a_task_with_one_scored_trial_has_no_stability_verdict(demo_warehouse):
    """stable_pass and stable_fail say a task passes, or fails, every time: one trial cannot show that. The demo's
    suite, triage and CogniBench evals attempt each task once a week, and every one of their weekly rows read
    stable_pass or stable_fail: a week's share of flaky tasks counted them as stable. Two trials or more keep the
    verdict of their counts."""
    for mart in ("fct_task_stability", "fct_task_stability_weekly"):
        verdicts = demo_warehouse.frame(f"select n_trials, n_correct, stability from marts.{mart}")
        one = verdicts[verdicts.n_trials == 1]
        assert len(one) > 0 and one.stability.isna().all(), mart
        several = verdicts[verdicts.n_trials >= 2]
        expected = ["stable_pass" if c == n else "stable_fail" if c == 0 else "flaky"
                    for n, c in zip(several.n_trials, several.n_correct)]
        assert len(several) > 0 and several.stability.tolist() == expected, mart


def test_all_time_pass_at_k_is_the_mean_of_the_weekly_runs(demo_warehouse):
    """Each demo week is one run of the same tasks: the all-time pass@8 on tau_retail is the mean of the weeks'
    (gpt-4.1-mini: 0.85 to 0.95 a week, 0.8875 all-time), not the pooled 0.88 of k attempts drawn across weeks."""
    weekly = demo_warehouse.rows(
        "select avg(pass_at_k), count(*) from marts.fct_pass_at_k_weekly where evaluation_name = 'tau_retail' "
        "and model_id = 'openai/gpt-4.1-mini-2025-04-14' and k = 8")
    all_time = demo_warehouse.scalar(
        "select pass_at_k from marts.fct_pass_at_k where evaluation_name = 'tau_retail' "
        "and model_id = 'openai/gpt-4.1-mini-2025-04-14' and k = 8")
    assert weekly[0][1] == 8 and abs(all_time - weekly[0][0]) <= TOLERANCE and abs(all_time - 0.8875) <= TOLERANCE


def test_pass_at_k_spans_the_starts_of_the_runs_it_averages_over(demo_warehouse):
    """first_run_at and last_run_at are the earliest and the latest start (first trial, scored or not) of the runs
    with a scored trial, from fct_trials; in the weekly mart, of the runs whose first trial is in the week. The demo's
    runs all have an id."""
    trials = demo_warehouse.frame(
        "select model_id, evaluation_name, trial_metric, run_id, evaluated_at, week_start, is_correct "
        "from marts.fct_trials")
    assert trials.run_id.notna().all()
    runs = trials.groupby(["model_id", "evaluation_name", "trial_metric", "run_id"]).agg(
        started=("evaluated_at", "min"), week_start=("week_start", "min"), scored=("is_correct", "count")
    ).reset_index()
    runs = runs[runs.scored > 0]
    for mart, keys in (("fct_pass_at_k", ["model_id", "evaluation_name", "trial_metric"]),
                       ("fct_pass_at_k_weekly", ["model_id", "evaluation_name", "trial_metric", "week_start"])):
        expected = runs.groupby(keys).agg(n_runs=("run_id", "count"), first_run_at=("started", "min"),
                                          last_run_at=("started", "max"))
        got = demo_warehouse.frame(f"select distinct {', '.join(keys)}, n_runs, first_run_at, last_run_at "
                                   f"from marts.{mart}").set_index(keys)
        assert len(got) > 10 and got.index.is_unique, mart
        pd.testing.assert_frame_equal(got.sort_index(), expected.loc[got.index].sort_index(), check_dtype=False)
    # the all-time span covers weeks, the weekly one lies in its week
    spans = demo_warehouse.frame("select first_run_at, last_run_at from marts.fct_pass_at_k where n_runs > 1")
    assert len(spans) > 0 and ((spans.last_run_at - spans.first_run_at).dt.days >= 7).all()


def test_a_task_judged_in_several_runs_once_each_has_pass_at_1_only(demo_warehouse):
    # CogniBench tasks are judged up to 3 times, each in a run of its own (a judge prompt's week): pooled, k = 2
    # and 3 were rows (NULL); one attempt a run gives k = 1 alone.
    rows = demo_warehouse.frame(
        "select * from marts.fct_pass_at_k where evaluation_name like 'cognibench/%'"
    )
    assert len(rows) > 0 and set(rows.k) == {1}
    assert (rows.n_tasks_with_enough_trials == rows.n_tasks).all() and rows.pass_at_k.notna().all()


# -- error bars --------------------------------------------------------------------------------------------------

def _wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def _wilson_from_se(mean: float, se: float, n: int) -> tuple[float, float]:
    """Wilson on the effective sample size p(1 - p) / se^2 * n / (n - 1) (on n where that is undefined)."""
    effective_n = mean * (1 - mean) / se ** 2 * n / (n - 1) if se and 0 < mean < 1 else n
    return _wilson(mean * effective_n, effective_n)


def test_computed_accuracy_averages_samples_first_and_uses_wilson_on_the_effective_n(demo_warehouse):
    results = demo_warehouse.frame(
        "select * from marts.fct_benchmark_results where result_origin = 'computed' and metric_name = 'accuracy'"
    )
    trials = demo_warehouse.frame(
        "select run_id, model_id, evaluation_name, trial_metric, sample_id, is_correct from marts.fct_trials "
        "where is_correct is not null")
    keys = ["run_id", "model_id", "evaluation_name", "trial_metric"]
    samples = trials.assign(ok=trials.is_correct.astype(float)).groupby([*keys, "sample_id"])["ok"].mean().reset_index()
    per_run = samples.groupby(keys)["ok"]
    assert len(results) == per_run.ngroups  # one per run and trial metric
    for row in results.sample(100, random_state=2).itertuples():
        values = per_run.get_group((row.run_id, row.model_id, row.evaluation_name, row.trial_metric))
        assert row.n_samples == len(values)
        assert abs(row.score - values.mean()) <= TOLERANCE
        se = values.std() / math.sqrt(len(values)) if len(values) > 1 else None
        assert _close(row.standard_error, se)
        low, high = _wilson_from_se(values.mean(), se, len(values))
        assert abs(row.ci_low - low) <= TOLERANCE and abs(row.ci_high - high) <= TOLERANCE
        assert row.interval_method == "wilson" and (row.min_score, row.max_score) == (0, 1)


def test_a_run_of_questions_scored_0_or_1_gets_the_plain_wilson_interval_on_its_n(demo_warehouse):
    """The specs page gives a rate Wilson's interval on n (int_spec_component_scores); the leaderboard's interval of
    the same answers, from their standard error, must be the same one: 9 of 10 is [0.596, 0.982] on both, not
    [0.577, 0.983] (Wilson on n - 1, the effective n of var_samp's standard error without the factor n / (n - 1))."""
    results = demo_warehouse.frame(
        "select * from marts.fct_benchmark_results where result_origin = 'computed' and metric_name = 'accuracy'")
    trials = demo_warehouse.frame(
        "select run_id, model_id, evaluation_name, trial_metric, sample_id, is_correct from marts.fct_trials "
        "where is_correct is not null")
    keys = ["run_id", "model_id", "evaluation_name", "trial_metric"]
    samples = trials.assign(ok=trials.is_correct.astype(float)).groupby([*keys, "sample_id"])["ok"].mean()
    per_run = samples.reset_index().groupby(keys)["ok"]
    compared = 0
    for row in results.itertuples():
        values = per_run.get_group((row.run_id, row.model_id, row.evaluation_name, row.trial_metric))
        if not set(values) <= {0.0, 1.0} or len(values) < 2:
            continue
        low, high = _wilson(values.sum(), len(values))
        assert abs(row.ci_low - low) <= TOLERANCE and abs(row.ci_high - high) <= TOLERANCE, (row, low, high)
        compared += 1
    assert compared >= 20


def test_computed_accuracys_interval_agrees_with_its_standard_error(demo_warehouse):
    """The reported standard error is the one the interval is built from: with 40 questions answered several
    times each, a Wilson interval on n_samples would be a quarter wider than 1.96 standard errors."""
    rows = demo_warehouse.frame(
        "select (ci_high - ci_low) / 2 / (1.96 * standard_error) as ratio from marts.fct_benchmark_results "
        "where result_origin = 'computed' and metric_name = 'accuracy' and n_samples >= 20 "
        "and score between 0.2 and 0.8")
    assert len(rows) > 50
    assert rows.ratio.between(0.9, 1.1).all(), rows.ratio.describe()


def test_every_interval_stays_within_its_metrics_bounds(demo_warehouse):
    """Rates stay in [0, 1] and a 1 to 5 judge score in [1, 5], whatever the standard error and n: 0.5 with n = 2
    is not [-0.48, 1.48]."""
    outside = demo_warehouse.scalar(
        "select count(*) from marts.fct_benchmark_results where ci_low < min_score - 1e-12 "
        "or ci_high > max_score + 1e-12 or (metric_name = 'accuracy' and (ci_low < 0 or ci_high > 1))")
    assert outside == 0
    bounded = demo_warehouse.rows(
        "select metric_name, trial_metric, min(min_score), max(max_score), count(*) from marts.fct_benchmark_results "
        "where evaluation_name = 'support_triage_v1' and result_origin = 'computed' group by all order by all")
    assert [row[:4] for row in bounded] == [
        ("accuracy", "label_accuracy", 0, 1), ("accuracy", "label_format", 0, 1),
        ("accuracy", "triage_rationale", 0, 1), ("mean_score", "label_accuracy", 0, 1),
        ("mean_score", "label_format", 0, 1), ("mean_score", "triage_rationale", 1, 5)]  # the rubric's own scale
    assert demo_warehouse.scalar(
        "select count(*) from marts.fct_benchmark_results where min_score is null or max_score is null") == 0


def test_reported_results_keep_their_published_error_bars(demo_warehouse):
    rows = demo_warehouse.frame(
        "select r.*, b.standard_error as published_se from marts.fct_benchmark_results as r "
        "inner join intermediate.int_benchmark_results_unnested as b using (run_id, model_id, metric_name, "
        "trial_metric) "
        "where r.result_origin = 'reported'"
    )
    assert len(rows) >= 96  # one per demo eval run, and more as sources are added
    assert ((rows.standard_error == rows.published_se) | (rows.standard_error.isna() & rows.published_se.isna())).all()


def test_reported_and_computed_results_line_up_on_the_same_eval_run_and_trial_metric(demo_warehouse):
    """A reported result's trial_metric is the one its trials carry: the suite metric or rubric every linked instance
    record names. support_triage_v1's responses are scored on three rubrics, so its reported accuracy keeps the
    aggregate's own metric and no computed result shares it; it still lines up on eval, run and metric."""
    keys = "model_id, evaluation_name, run_id, metric_name"
    lined_up = demo_warehouse.rows(
        f"""
        select reported.evaluation_name, reported.trial_metric, count(*), count(computed.run_id),
            count(*) filter (where exists (
                select 1 from marts.fct_benchmark_results as any_computed
                where any_computed.result_origin = 'computed'
                  and ({', '.join('any_computed.' + k for k in keys.split(', '))})
                    = ({', '.join('reported.' + k for k in keys.split(', '))})))
        from marts.fct_benchmark_results as reported
        left join marts.fct_benchmark_results as computed
            on computed.result_origin = 'computed' and computed.trial_metric = reported.trial_metric
            and ({', '.join('computed.' + k for k in keys.split(', '))})
                = ({', '.join('reported.' + k for k in keys.split(', '))})
        where reported.result_origin = 'reported'
        group by all order by all
        """
    )
    assert [row[:2] for row in lined_up] == [
        ("acme_groundedness_suite/groundedness", "groundedness"),
        ("acme_groundedness_suite/json_validity", "json_validity"), ("acme_groundedness_suite/latency", "latency"),
        ("eval_basic_math_v1", "exact_match"), ("gsm8k", "accuracy"), ("mmlu_physics", "accuracy"),
        ("support_triage_v1", "accuracy"), ("tau_retail", "accuracy")]
    for evaluation, _, n_reported, n_matched, n_on_run in lined_up:
        assert n_reported == 32 and n_on_run == 32, evaluation  # one a week for each of 4 models, 8 weeks
        assert n_matched == (0 if evaluation == "support_triage_v1" else 32), evaluation


# -- the rest of the story ---------------------------------------------------------------------------------------

def test_every_trial_and_rating_is_traced_to_its_file_and_line(demo_warehouse):
    for mart in ("fct_trials", "fct_ratings"):
        assert demo_warehouse.scalar(f"select count(*) from marts.{mart} where source_path is null or source_line is null") == 0
    trials = demo_warehouse.scalar("select count(*) from marts.fct_trials where source_format = 'eee_instance'")
    assert trials == demo_warehouse.scalar("select count(*) from raw.eee_instance") > 0
    # A CogniBench record is a trial unless a later version of the same judged response supersedes it (a completed
    # review exported again): every raw record is ranked, and the first of each response is the trial.
    trials = demo_warehouse.scalar("select count(*) from marts.fct_trials where source_format = 'cognibench'")
    ranked = demo_warehouse.rows("select count(*), count(case when version_rank = 1 then 1 end) "
                                 "from intermediate.int_judge_records_ranked")[0]
    assert ranked[0] == demo_warehouse.scalar("select count(*) from raw.cognibench") > ranked[1] == trials > 0


def test_the_regressing_model_drops_on_its_eval_in_the_last_week(demo_warehouse):
    weekly = dict(demo_warehouse.rows(
        "select week_start, avg(score) from marts.fct_benchmark_results where result_origin = 'computed' "
        "and metric_name = 'accuracy' and model_id = 'acme/chat-13b' and evaluation_name = 'gsm8k' group by 1"
    ))
    weeks = sorted(weekly)
    assert weekly[weeks[-1]] < min(weekly[w] for w in weeks[:-1]) - 0.1


def test_flagged_items_exist_and_are_below_the_threshold(demo_warehouse):
    flagged = demo_warehouse.frame("select * from marts.fct_item_disagreement where is_flagged")
    assert len(flagged) > 0
    assert (flagged.item_agreement < 0.4).all()


def test_flagged_item_ratings_are_each_raters_latest_independent_rating_of_a_flagged_item(demo_warehouse):
    """fct_flagged_item_ratings against fct_ratings: people's and judges' latest ratings of each flagged item, reviews
    left out; the people's ratings with a value are the ones the flag counted (fct_item_disagreement's n_ratings),
    and each row repeats its item's figures."""
    ratings = demo_warehouse.frame(
        "select item_id, dimension, rater_id, rater_group, label, score, rated_at, rating_id from marts.fct_ratings "
        "where rater_group in ('human', 'llm_judge') and derived_from is null and rater_id is not null "
        "and value is not null")
    latest = ratings.sort_values(["rated_at", "rating_id"], ascending=False).drop_duplicates(
        ["item_id", "dimension", "rater_id"])
    flagged = demo_warehouse.frame(
        "select item_id, dimension, n_ratings from marts.fct_item_disagreement where is_flagged")
    expected = latest.merge(flagged[["item_id", "dimension"]], on=["item_id", "dimension"])
    columns = ["item_id", "dimension", "rater_id", "rater_group", "label", "score"]
    mart = demo_warehouse.frame(f"select {', '.join(columns)}, counts_in_flag from marts.fct_flagged_item_ratings")

    def ordered(frame: pd.DataFrame) -> pd.DataFrame:
        return frame[columns].sort_values(columns[:3]).reset_index(drop=True)

    assert set(mart.rater_group) == {"human", "llm_judge"}
    pd.testing.assert_frame_equal(ordered(mart), ordered(expected), check_dtype=False)
    assert (mart.counts_in_flag == ((mart.rater_group == "human") & (mart.label != "unsure"))).all()
    counted = mart[mart.counts_in_flag].groupby(["item_id", "dimension"]).size().rename("n_counted").reset_index()
    assert (flagged.merge(counted, how="left").fillna({"n_counted": 0}).eval("n_counted == n_ratings")).all()

    figures = ["dimension_group", "scale", "agreement_level", "model_id", "task_id", "week_start", "n_ratings",
               "spread", "item_agreement"]
    repeated = demo_warehouse.frame(f"select distinct item_id, dimension, {', '.join(figures)} "
                                    "from marts.fct_flagged_item_ratings order by item_id, dimension")
    items = demo_warehouse.frame(f"select item_id, dimension, {', '.join(figures)} from marts.fct_item_disagreement "
                                 "where is_flagged order by item_id, dimension")
    pd.testing.assert_frame_equal(repeated, items)


def test_dimensions_describe_every_model_and_rater(demo_warehouse):
    assert demo_warehouse.scalar("select count(*) from marts.dim_models") == 4
    raters = dict(demo_warehouse.rows("select rater_id, rater_type from marts.dim_raters"))
    assert raters[SHIFTED_JUDGE_ID] == "llm_judge"
    assert raters[GOLD_MISSING_RATER] == "human"


def test_a_model_known_only_from_eval_forms_takes_its_developer_from_its_id_and_its_dates_from_its_ratings(tmp_path):
    """Every demo model has an aggregate record naming its developer. One rated only on eval forms has none: its
    developer is the Hugging Face owner before the '/', and a bare name has none (NULL, not a guess). With ratings
    and no trials, a model is seen from its first rating to its last."""
    forms = [eval_form_record(subject={"model": model, "version": "v1"}, created_at=at) for model, at in (
        ("vendor-x/chat-2", "2026-11-10T09:00:00Z"), ("vendor-x/chat-2", "2026-11-17T09:00:00Z"),
        ("bare-model", "2026-11-12T09:00:00Z"))]
    warehouse = Warehouse.built_from(tmp_path, forms, "--select", "+dim_models", *CAUTIOUS)
    assert warehouse.rows(
        "select model_id, developer, developer_source, n_ratings > 0, strftime(first_seen_at, '%Y-%m-%d'), "
        "strftime(last_seen_at, '%Y-%m-%d') from marts.dim_models order by 1") == [
        ("bare-model", None, None, True, "2026-11-12", "2026-11-12"),
        ("vendor-x/chat-2", "vendor-x", "model_id_prefix", True, "2026-11-10", "2026-11-17")]


def test_a_forms_ratings_read_in_fct_ratings_as_the_form_gives_them(tmp_path):
    """One person's form on a gold item, read rating by rating: the universal safety score is in the safety group
    (its agreement target is 0.8, not quality's 0.6), an observed refusal is 'yes' (score 1), each expected answer is
    the target's text (a label target is a JSON string: no quotes), and a person whose form names a model is still a
    person, with no judge model. A universal score keeps its confidence."""
    form = eval_form_record(
        rater={"type": "human", "id": "h-ana", "model": "acme/assist-2"},
        gold_item_id="gold-7",
        calibration_target={"helpfulness": 4, "refusal_appropriateness": "appropriate",
                            "hazard.privacy": "non_violating"},
        safety={"is_violating_any": False, "hazards": {"privacy": {"verdict": "non_violating"}}},
        refusal={"refusal_observed": True, "refusal_appropriateness": "appropriate"},
    )
    warehouse = Warehouse.built_from(tmp_path, [form], "--select", "+fct_ratings", *CAUTIOUS)
    rows = warehouse.rows("select dimension, dimension_group, label, score, value, confidence, expected_label, "
                          "rater_group, judge_model from marts.fct_ratings order by dimension")
    assert rows == [
        ("faithfulness", "quality", "5", 5.0, 5.0, "high", None, "human", None),
        ("hazard.privacy", "safety", "non_violating", 0.0, 2.0, None, "non_violating", "human", None),
        ("helpfulness", "quality", "4", 4.0, 4.0, "high", "4", "human", None),
        ("instruction_following", "quality", "5", 5.0, 5.0, "high", None, "human", None),
        ("overall_quality", "quality", "4", 4.0, 4.0, "high", None, "human", None),
        ("refusal_appropriateness", "safety", "appropriate", None, 1.0, None, "appropriate", "human", None),
        ("refusal_observed", "safety", "yes", 1.0, 2.0, None, None, "human", None),
        ("safety", "safety", "5", 5.0, 5.0, "high", None, "human", None),
    ]
