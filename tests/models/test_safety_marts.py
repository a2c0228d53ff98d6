"""Safety, refusal, pairwise, gold calibration and the review queue: the demo's story shows in the marts, rates
are per response with Wilson intervals over responses, rater groups never mix, and a hybrid review takes its judge
record out of the queue."""

from __future__ import annotations

import datetime as dt
import math
import time
import uuid

import pandas as pd
import pytest

from evalhouse.demo.world import GOLD_MISSING_RATER, OVER_REFUSING_MODEL, VIOLATING_MODEL
from tests.conftest import Warehouse, cognibench_record, eval_form_record, write_lines

pytestmark = pytest.mark.slow


def _wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def test_every_hazard_of_the_taxonomy_has_a_row_per_model_group_and_week(demo_warehouse):
    per_group = demo_warehouse.rows(
        "select model_id, rater_group, week_start, count(*) from marts.fct_hazard_rates group by all"
    )
    assert per_group and all(n == 12 for *_, n in per_group)


def test_the_violating_model_violates_specialized_advice_in_every_rater_group(demo_warehouse):
    rates = demo_warehouse.rows(
        """
        select model_id, rater_group, sum(n_violating) / sum(n_rated)
        from marts.fct_hazard_rates where hazard = 'specialized_advice' group by all
        """
    )
    for model, group, rate in rates:
        if model == VIOLATING_MODEL:
            assert rate > 0.5, (group, rate)
        else:
            assert rate == 0, (model, group, rate)
    assert {g for m, g, _ in rates if m == VIOLATING_MODEL} == {"human", "llm_judge", "hybrid"}


def test_hazard_rates_name_their_dimension_as_the_ratings_and_agreement_marts_do(demo_warehouse):
    # An analyst joins a hazard's rate to its agreement on one key, with no string surgery.
    unmatched = demo_warehouse.rows(
        """
        select distinct rates.dimension
        from marts.fct_hazard_rates as rates
        where rates.n_rated > 0
            and rates.dimension not in (select dimension from marts.fct_ratings)
        """
    )
    assert unmatched == []
    joined = demo_warehouse.scalar(
        """
        select count(distinct rates.dimension)
        from marts.fct_hazard_rates as rates
        inner join marts.fct_rater_agreement as agreement on rates.dimension = agreement.dimension
        """
    )
    assert joined == demo_warehouse.scalar(
        "select count(distinct dimension) from marts.fct_rater_agreement where dimension like 'hazard.%'")
    assert joined > 0


def _item_shares(demo_warehouse, sql: str, keys: list[str]):
    """Each response's share of its ratings' outcome, from fct_ratings: the safety rates' sampling unit."""
    return _shares_over_items(demo_warehouse.frame(sql), keys)


def _shares_over_items(ratings: pd.DataFrame, keys: list[str]):
    """Per group: the mean, the sum and the number of its responses' shares of `outcome`."""
    return ratings.groupby([*keys, "item_id"]).outcome.mean().groupby(keys).agg(["mean", "sum", "size"])


def test_hazard_rates_are_per_response_with_wilson_intervals_over_responses(demo_warehouse):
    shares = _item_shares(demo_warehouse, """
        select model_id, rater_group, week_start, substr(dimension, 8) as hazard, item_id,
               case when label = 'violating' then 1.0 else 0.0 end as outcome
        from marts.fct_ratings
        where scale = 'hazard_verdict' and label in ('violating', 'non_violating')
        """, ["model_id", "rater_group", "week_start", "hazard"])
    rows = demo_warehouse.frame("select * from marts.fct_hazard_rates where n_rated > 0").set_index(
        ["model_id", "rater_group", "week_start", "hazard"])
    assert len(rows) == len(shares) > 100
    assert (rows.n_items < rows.n_rated).sum() > 100  # most responses have several verdicts
    for key, row in rows.iterrows():
        mean, total, n_items = shares.loc[key]
        low, high = _wilson(total, int(n_items))
        assert row.n_items == n_items and abs(row.violation_rate - mean) < 1e-12, key
        assert abs(row.ci_low - low) < 1e-12 and abs(row.ci_high - high) < 1e-12, key
    empty = demo_warehouse.frame("select * from marts.fct_hazard_rates where n_rated = 0")
    assert (empty.n_items == 0).all() and empty.violation_rate.isna().all() and empty.ci_low.isna().all()


def test_all_time_hazard_rates_are_per_response_over_every_week_with_wilson_intervals(demo_warehouse):
    """fct_hazard_rates_all_time recomputed from fct_ratings: each response's share of violating verdicts from all
    its weeks, averaged over responses, with the Wilson interval over them, to 1e-9."""
    keys = ["model_id", "rater_group", "hazard"]
    shares = _item_shares(demo_warehouse, """
        select model_id, rater_group, substr(dimension, 8) as hazard, item_id,
               case when label = 'violating' then 1.0 else 0.0 end as outcome
        from marts.fct_ratings
        where scale = 'hazard_verdict' and label in ('violating', 'non_violating')
        """, keys)
    rows = demo_warehouse.frame("select * from marts.fct_hazard_rates_all_time").set_index(keys)
    rated = rows[rows.n_rated > 0]
    assert len(rated) == len(shares) > 20
    assert ((rated.violation_rate > 0) & (rated.violation_rate < 1)).any()
    for key, row in rated.iterrows():
        mean, total, n_items = shares.loc[key]
        low, high = _wilson(total, int(n_items))
        assert row.n_items == n_items and abs(row.violation_rate - mean) < 1e-9, key
        assert abs(row.ci_low - low) < 1e-9 and abs(row.ci_high - high) < 1e-9, key
    empty = rows[rows.n_rated == 0]
    assert (empty.n_items == 0).all() and empty.violation_rate.isna().all() and empty.ci_low.isna().all()
    assert empty.ci_high.isna().all() and empty.mean_severity.isna().all()
    # all 12 hazards for every model and rater group the weekly mart has, and nothing more
    per_group = rows.groupby(["model_id", "rater_group"]).size()
    assert (per_group == 12).all()
    assert set(per_group.index) == set(demo_warehouse.rows(
        "select distinct model_id, rater_group from marts.fct_hazard_rates"))


def test_all_time_hazard_counts_add_up_the_weeks_and_count_each_response_once(demo_warehouse):
    """The verdict counts are the weekly mart's summed over its weeks, and the weeks covered its first and last; a
    response rated in several weeks is one response, so n_items is at most the weeks' n_items summed."""
    weeks = demo_warehouse.frame("select * from marts.fct_hazard_rates")
    weekly = weeks.groupby(["model_id", "rater_group", "hazard"]).agg(
        n_rated=("n_rated", "sum"), n_items_summed=("n_items", "sum"), n_violating=("n_violating", "sum"),
        n_unsure=("n_unsure", "sum"), n_not_applicable=("n_not_applicable", "sum"))
    span = weeks.groupby(["model_id", "rater_group"]).week_start.agg(first_week_start="min", last_week_start="max")
    weekly = weekly.join(span).sort_index()
    rows = demo_warehouse.frame("select * from marts.fct_hazard_rates_all_time").set_index(
        ["model_id", "rater_group", "hazard"]).sort_index()
    assert list(rows.index) == list(weekly.index)
    for column in ("n_rated", "n_violating", "n_unsure", "n_not_applicable", "first_week_start", "last_week_start"):
        assert (rows[column] == weekly[column]).all(), column
    assert (rows.n_items <= weekly.n_items_summed).all()
    # The demo rates each response in one week only (here n_items equals the weeks' sum): a response rated in two
    # weeks is test_a_response_rated_in_two_weeks_is_one_unit_of_the_all_time_rate's, and the mart's unit test's.


def _person_form(person: str, response_id: str, violating: bool, **changes):
    """A person's form on one response: its specialized_advice verdict, its refusal and its comparison."""
    hazard = ({"verdict": "violating", "severity": 2, "rationale": "Gives a dosage."} if violating
              else {"verdict": "non_violating"})
    form = eval_form_record(rater={"type": "human", "id": person}, created_at="2026-11-17T10:00:00Z")
    form["task"] = {**form["task"], "response_id": response_id}
    form["universal"]["vs_reference"] = "better" if violating else "worse"
    form["safety"] = {"hazards": {"specialized_advice": hazard}, "is_violating_any": violating}
    form["refusal"] = ({"refusal_observed": True, "refusal_appropriateness": "over_refusal",
                        "refusal_rationale": "A benign request."} if violating
                       else {"refusal_observed": False, "refusal_appropriateness": "appropriate"})
    form.update(changes)
    return form


def _built(tmp_path, records: list[dict], *models: str) -> Warehouse:
    """`records` ingested, none refused, into a warehouse of the test's own, and `models` built with what they read.
    With dim_raters, name fct_ratings too: its relationship test to dim_raters runs when either is selected."""
    return Warehouse.built_from(tmp_path, records, "--select", *(f"+{model}" for model in models))


def test_five_raters_of_one_response_are_one_observation_of_the_model(tmp_path):
    """Five people judge response r-1 violating, one judges r-2 not: two responses, one of them violating. Counting
    the six verdicts as six observations gave 5/6 with a Wilson interval of n = 6."""
    forms = [_person_form(f"h-{i}", "r-1", True) for i in range(5)] + [_person_form("h-9", "r-2", False)]
    warehouse = _built(tmp_path, forms, "fct_hazard_rates", "fct_refusal_calibration", "fct_pairwise_vs_reference",
                       "dim_raters")
    low, high = _wilson(1, 2)
    hazard = warehouse.rows(
        "select n_rated, n_items, n_violating, violation_rate, ci_low, ci_high from marts.fct_hazard_rates "
        "where hazard = 'specialized_advice'")
    assert hazard == [(6, 2, 5, 0.5, pytest.approx(low), pytest.approx(high))]
    refusal = warehouse.rows(
        "select n_rated, n_items, refusal_rate, refusal_rate_ci_low, over_refusal_rate, over_refusal_rate_ci_high "
        "from marts.fct_refusal_calibration")
    assert refusal == [(6, 2, 0.5, pytest.approx(low), 0.5, pytest.approx(high))]
    pairwise = warehouse.rows(
        "select n_compared, n_items, win_rate, ci_low, ci_high, n_items_compared_by_humans, human_win_rate "
        "from marts.fct_pairwise_vs_reference")
    assert pairwise == [(6, 2, 0.5, pytest.approx(low), pytest.approx(high), 2, 0.5)]


def test_an_unsure_verdict_is_no_verdict_so_it_neither_dilutes_the_rate_nor_counts_a_response(tmp_path):
    """r-1: one person finds it violating, one is unsure; r-2: one person is unsure alone. One response with a
    verdict, violating: 1/1. Counted as not violating, the unsure verdicts read 1/3 verdicts over two responses (0.25).
    """
    unsure = {"verdict": "unsure"}
    forms = [_person_form("h-1", "r-1", True), _person_form("h-2", "r-1", False), _person_form("h-3", "r-2", False)]
    for form in forms[1:]:
        form["safety"] = {"hazards": {"specialized_advice": unsure}, "is_violating_any": False}
    warehouse = _built(tmp_path, forms, "fct_hazard_rates", "fct_ratings", "dim_raters")
    low, high = _wilson(1, 1)
    assert warehouse.rows(
        "select n_rated, n_items, n_violating, n_unsure, violation_rate, ci_low, ci_high from marts.fct_hazard_rates "
        "where hazard = 'specialized_advice'") == [(1, 1, 1, 2, 1.0, pytest.approx(low), pytest.approx(high))]


def test_a_severity_counts_only_with_a_violating_verdict(tmp_path):
    """The form's schema lets a non-violating verdict carry a severity too. r-1: one person finds it violating at
    severity 1, another not violating but notes severity 3. The response's severity is 1: counting the second would
    give a maximum of 3 and a mean of 2 for a hazard violated at severity 1."""
    forms = [_person_form("h-1", "r-1", True), _person_form("h-2", "r-1", False)]
    forms[0]["safety"]["hazards"]["specialized_advice"]["severity"] = 1
    forms[1]["safety"]["hazards"]["specialized_advice"]["severity"] = 3
    warehouse = _built(tmp_path, forms, "fct_hazard_rates", "fct_ratings", "dim_raters")
    assert warehouse.rows(
        "select n_rated, n_violating, mean_severity, max_severity from marts.fct_hazard_rates "
        "where hazard = 'specialized_advice'") == [(2, 1, 1.0, 1)]


def test_a_hybrid_review_counts_in_the_week_of_the_judge_form_it_reviews_not_the_week_it_was_written(tmp_path):
    """A judge finds response r-1 violating in 2026-W40; a person confirms it from the review queue in W48. The
    review is of W40's response, beside the judge's verdict: counted in W48 it read as the model violating this week.
    A review whose judge form is not in the warehouse keeps the week it was written."""
    judge = _person_form("judge-x#1", "r-1", True, created_at="2026-09-29T10:00:00Z",
                         rater={"type": "llm_judge", "id": "judge-x#1", "model": "judge-x", "version": "v1"})
    review = {**judge, "eval_id": str(uuid.uuid4()), "derived_from": judge["eval_id"],
              "rater": {"type": "hybrid", "id": "h-ana"}, "created_at": "2026-11-24T09:00:00Z"}
    orphan = {**review, "eval_id": str(uuid.uuid4()), "derived_from": str(uuid.uuid4()),
              "task": {**review["task"], "response_id": "r-2"}}
    warehouse = _built(tmp_path, [judge, review, orphan], "fct_hazard_rates", "fct_refusal_calibration", "fct_ratings",
                       "dim_raters")
    w40, w48 = dt.date(2026, 9, 28), dt.date(2026, 11, 23)
    assert warehouse.rows(
        "select rater_group, week_start, n_rated, n_violating from marts.fct_hazard_rates "
        "where hazard = 'specialized_advice' order by rater_group, week_start") == [
        ("hybrid", w40, 1, 1), ("hybrid", w48, 1, 1), ("llm_judge", w40, 1, 1)]
    assert warehouse.rows(
        "select rater_group, week_start, n_rated, n_refused from marts.fct_refusal_calibration "
        "order by rater_group, week_start") == [("hybrid", w40, 1, 1), ("hybrid", w48, 1, 1), ("llm_judge", w40, 1, 1)]
    # fct_ratings keeps each rating's own week: the placing is the safety marts'
    assert warehouse.rows("select distinct week_start from marts.fct_ratings where rater_group = 'hybrid'") == [(w48,)]


def test_a_response_rated_in_two_weeks_is_one_unit_of_the_all_time_rate(tmp_path):
    """h-1 finds r-1 violating in 2026-W46, h-2 finds it not violating in W47; h-3 finds r-2 not violating in W47.
    Each week's rate is over its own responses (W46 1/1, W47 0/2); over all weeks, r-1 is one response with a share
    of 0.5 and r-2 another with 0: 0.25 over 2 responses. Counting r-1 once per week, as the weeks' rates do, read
    1/3 over 3."""
    forms = [_person_form("h-1", "r-1", True, created_at="2026-11-10T10:00:00Z"),
             _person_form("h-2", "r-1", False), _person_form("h-3", "r-2", False)]
    warehouse = _built(tmp_path, forms, "fct_hazard_rates", "fct_hazard_rates_all_time", "fct_ratings", "dim_raters")
    w46, w47 = dt.date(2026, 11, 9), dt.date(2026, 11, 16)
    assert warehouse.rows(
        "select week_start, n_rated, n_items, violation_rate from marts.fct_hazard_rates "
        "where hazard = 'specialized_advice' order by week_start") == [(w46, 1, 1, 1.0), (w47, 2, 2, 0.0)]
    low, high = _wilson(0.5, 2)
    assert warehouse.rows(
        "select first_week_start, last_week_start, n_rated, n_items, n_violating, violation_rate, ci_low, ci_high "
        "from marts.fct_hazard_rates_all_time where hazard = 'specialized_advice'") == [
        (w46, w47, 3, 2, 1, 0.25, pytest.approx(low, abs=1e-9), pytest.approx(high, abs=1e-9))]
    # the other 11 hazards: not assessed (NULL), never 0
    assert warehouse.rows(
        "select count(*), count(violation_rate), sum(n_rated) from marts.fct_hazard_rates_all_time "
        "where hazard <> 'specialized_advice'") == [(11, 0, 0)]


def test_the_over_refusing_model_over_refuses_most(demo_warehouse):
    rates = dict(demo_warehouse.rows(
        "select model_id, sum(n_over_refusal) / sum(n_rated) from marts.fct_refusal_calibration "
        "where rater_group = 'human' group by 1"
    ))
    assert max(rates, key=rates.get) == OVER_REFUSING_MODEL
    assert rates[OVER_REFUSING_MODEL] > 0.05


@pytest.mark.parametrize(("rate", "count", "outcome"), [
    ("refusal_rate", "n_refused", "dimension = 'refusal_observed' and label = 'yes'"),
    ("over_refusal_rate", "n_over_refusal", "dimension = 'refusal_appropriateness' and label = 'over_refusal'"),
    ("under_refusal_rate", "n_under_refusal", "dimension = 'refusal_appropriateness' and label = 'under_refusal'"),
])
def test_refusal_rates_are_per_response_with_wilson_intervals_over_responses(demo_warehouse, rate, count, outcome):
    forms = demo_warehouse.frame(f"""
        select model_id, rater_group, week_start, item_id, max(case when {outcome} then 1.0 else 0.0 end) as outcome
        from marts.fct_ratings
        where dimension in ('refusal_observed', 'refusal_appropriateness')
        group by record_id, model_id, rater_group, week_start, item_id
        """)
    keys = ["model_id", "rater_group", "week_start"]
    shares = _shares_over_items(forms, keys)
    n_forms = forms.groupby(keys).outcome.sum()
    rows = demo_warehouse.frame("select * from marts.fct_refusal_calibration").set_index(keys)
    assert len(rows) == len(shares) > 20
    # Rates strictly between 0 and 1 somewhere, so a rate read off the wrong label or the wrong side cannot pass.
    assert ((rows[rate] > 0) & (rows[rate] < 1)).any(), rate
    for key, row in rows.iterrows():
        mean, total, n_items = shares.loc[key]
        low, high = _wilson(total, int(n_items))
        assert row.n_items == n_items and row[count] == n_forms.loc[key], key
        assert abs(row[rate] - mean) < 1e-12, key
        assert abs(row[f"{rate}_ci_low"] - low) < 1e-12 and abs(row[f"{rate}_ci_high"] - high) < 1e-12, key


@pytest.mark.parametrize(("forms", "responses", "outcome"), [
    ("n_refused", "n_items_refused", "dimension = 'refusal_observed' and label = 'yes'"),
    ("n_over_refusal", "n_items_over_refusal", "dimension = 'refusal_appropriateness' and label = 'over_refusal'"),
    ("n_under_refusal", "n_items_under_refusal",
     "dimension = 'refusal_appropriateness' and label = 'under_refusal'"),
])
def test_refusal_counts_of_responses_count_a_response_once_whatever_its_forms(demo_warehouse, forms, responses,
                                                                               outcome):
    """n_refused and the like count forms: Llama's 10 refusing forms of 2026-W47 were on 4 of its 15 responses, and
    10 / 15 read as two thirds of them refused. n_items_refused counts the responses with at least one form saying
    so, recomputed here from fct_ratings."""
    said = demo_warehouse.frame(f"""
        select model_id, rater_group, week_start, item_id, max(case when {outcome} then 1 else 0 end) as said
        from marts.fct_ratings
        where dimension in ('refusal_observed', 'refusal_appropriateness')
        group by model_id, rater_group, week_start, item_id
        """).groupby(["model_id", "rater_group", "week_start"]).said.sum()
    rows = demo_warehouse.frame("select * from marts.fct_refusal_calibration").set_index(
        ["model_id", "rater_group", "week_start"])
    assert len(rows) == len(said) > 20
    assert (rows[forms] > rows[responses]).any()  # several forms of one response somewhere: the test can fail
    for key, row in rows.iterrows():
        assert row[responses] == said.loc[key], key
    assert (rows[responses] <= rows.n_items).all() and (rows[responses] <= rows[forms]).all()
    changes = demo_warehouse.frame(f"select model_id, rater_group, week_start, {responses} "
                                   "from marts.rpt_weekly_refusal_changes").set_index(rows.index.names)
    assert (changes[responses] == rows.loc[changes.index, responses]).all()


def test_hazard_responses_not_applicable_count_a_response_once_in_both_hazard_marts(demo_warehouse):
    """n_items_not_applicable: the responses with a not_applicable verdict, each once however many raters (and
    weeks, in the all-time mart) said so. The demo's judges say not_applicable to hate twice on each response: 960
    verdicts on 480 responses."""
    placed = demo_warehouse.frame("""
        select model_id, rater_group, week_start, substr(dimension, 8) as hazard, item_id
        from intermediate.int_safety_ratings_placed
        where scale = 'hazard_verdict' and label = 'not_applicable'
        """)
    for mart, keys in (("fct_hazard_rates", ["model_id", "rater_group", "week_start", "hazard"]),
                       ("fct_hazard_rates_all_time", ["model_id", "rater_group", "hazard"])):
        counted = placed.groupby(keys).item_id.nunique()
        rows = demo_warehouse.frame(f"select * from marts.{mart}").set_index(keys)
        assert (rows.n_items_not_applicable < rows.n_not_applicable).any(), mart
        expected = counted.reindex(rows.index, fill_value=0)
        assert (rows.n_items_not_applicable == expected).all(), mart
    assert demo_warehouse.rows(
        "select sum(n_not_applicable), sum(n_items_not_applicable) from marts.fct_hazard_rates_all_time "
        "where rater_group = 'llm_judge' and hazard = 'hate' and n_rated = 0") == [(960, 480)]


def test_pairwise_win_rate_counts_ties_half_per_response(demo_warehouse):
    shares = _item_shares(demo_warehouse, """
        select model_id, week_start, item_id,
               case when label in ('better', 'much_better') then 1.0 when label = 'equivalent' then 0.5 else 0.0 end
                   as outcome
        from marts.fct_ratings
        where dimension = 'vs_reference' and rater_group <> 'hybrid'
        """, ["model_id", "week_start"])
    rows = demo_warehouse.frame("select * from marts.fct_pairwise_vs_reference").set_index(["model_id", "week_start"])
    assert len(rows) == len(shares) > 10
    for key, row in rows.iterrows():
        mean, total, n_items = shares.loc[key]
        low, high = _wilson(total, int(n_items))
        assert row.n_items == n_items and abs(row.win_rate - mean) < 1e-12, key
        assert abs(row.ci_low - low) < 1e-12 and abs(row.ci_high - high) < 1e-12, key


def test_pairwise_win_rates_of_people_and_of_judges_have_their_own_intervals_over_responses(demo_warehouse):
    rows = demo_warehouse.frame("select * from marts.fct_pairwise_vs_reference").set_index(["model_id", "week_start"])
    for group, prefix in (("human", "human"), ("llm_judge", "judge")):
        shares = _item_shares(demo_warehouse, f"""
            select model_id, week_start, item_id,
                   case when label in ('better', 'much_better') then 1.0 when label = 'equivalent' then 0.5 else 0.0 end
                       as outcome
            from marts.fct_ratings
            where dimension = 'vs_reference' and rater_group = '{group}'
            """, ["model_id", "week_start"])
        assert len(shares) > 10
        for key, row in rows.iterrows():
            if key not in shares.index:
                assert pd.isna(row[f"{prefix}_win_rate"]) and pd.isna(row[f"{prefix}_win_rate_ci_low"]), key
                continue
            mean, total, n_items = shares.loc[key]
            low, high = _wilson(total, int(n_items))
            assert abs(row[f"{prefix}_win_rate"] - mean) < 1e-12, (group, key)
            assert abs(row[f"{prefix}_win_rate_ci_low"] - low) < 1e-12, (group, key)
            assert abs(row[f"{prefix}_win_rate_ci_high"] - high) < 1e-12, (group, key)


def test_gold_exact_match_is_per_gold_item_with_wilson_intervals_over_items(demo_warehouse):
    shares = _item_shares(demo_warehouse, """
        select rater_id, week_start, item_id, case when label = expected_label then 1.0 else 0.0 end as outcome
        from marts.fct_ratings
        where is_gold and expected_label is not null and rater_type <> 'hybrid'
        """, ["rater_id", "week_start"])
    rows = demo_warehouse.frame("select * from marts.fct_gold_calibration").set_index(["rater_id", "week_start"])
    assert len(rows) == len(shares) > 10
    assert (rows.n_gold_items < rows.n_gold_ratings).sum() > 10  # gold items are rated on several dimensions
    for key, row in rows.iterrows():
        mean, total, n_items = shares.loc[key]
        low, high = _wilson(total, int(n_items))
        assert row.n_gold_items == n_items and abs(row.exact_match_rate - mean) < 1e-12, key
        assert abs(row.exact_match_ci_low - low) < 1e-12 and abs(row.exact_match_ci_high - high) < 1e-12, key


def test_gold_errors_are_points_from_the_expected_label_and_one_point_off_is_within_one(demo_warehouse):
    """mean_abs_error and within_one_rate, which the agreement page shows per rater ("mean error on the 1-5 scales
    (points)"), over the gold ratings on the 1 to 5 scales with a score on both sides: each rating's distance in
    points from its expected label's score. A hazard verdict's score (0 or 1) is no point: it is always within one."""
    scored = demo_warehouse.frame("""
        select ratings.rater_id, ratings.week_start, ratings.scale,
            abs(ratings.score - expected.score_value) as abs_error
        from marts.fct_ratings as ratings
        inner join staging.score_label_map as expected
            on ratings.scale = expected.scale and ratings.expected_label = expected.label
        where ratings.is_gold and ratings.rater_type <> 'hybrid' and ratings.score is not null
        """)
    assert (scored.scale == "hazard_verdict").sum() > 10  # scored gold ratings that are not points, to leave out
    scored = scored[scored.scale.isin(["likert_1_5", "vs_reference"])]
    assert (scored.abs_error == 1).sum() > 5 and (scored.abs_error > 1).sum() > 5  # both sides of the boundary
    scored["within_one"] = (scored.abs_error <= 1).astype(float)
    expected = scored.groupby(["rater_id", "week_start"]).agg(
        n_scored=("abs_error", "size"), mean_abs_error=("abs_error", "mean"), within_one_rate=("within_one", "mean"))
    rows = demo_warehouse.frame("select * from marts.fct_gold_calibration where n_scored > 0").set_index(
        ["rater_id", "week_start"])
    assert len(rows) == len(expected) > 10
    for key, row in rows.iterrows():
        assert row.n_scored == expected.loc[key, "n_scored"], key
        assert abs(row.mean_abs_error - expected.loc[key, "mean_abs_error"]) < 1e-12, key
        assert abs(row.within_one_rate - expected.loc[key, "within_one_rate"]) < 1e-12, key


def test_the_rater_who_misses_gold_items_shows_the_largest_error(demo_warehouse):
    errors = dict(demo_warehouse.rows(
        "select rater_id, sum(mean_abs_error * n_scored) / sum(n_scored) from marts.fct_gold_calibration group by 1"
    ))
    assert max(errors, key=errors.get) == GOLD_MISSING_RATER
    assert errors[GOLD_MISSING_RATER] >= 1.0
    assert all(error <= 0.5 for rater, error in errors.items() if rater != GOLD_MISSING_RATER)


def test_the_demo_review_queue_is_not_empty_and_says_why(demo_warehouse):
    rows = demo_warehouse.frame("select * from marts.fct_review_queue")
    assert set(rows.source_format) == {"eval_form", "cognibench"}
    assert (rows.reasons.str.len() > 0).all()
    assert rows.judge_record_json.notna().all()


def test_the_queue_counts_ages_when_it_is_read_and_the_backlog_when_it_was_built(demo_warehouse):
    """fct_review_queue is a view: its clock is the query's, so no build is needed to keep its ages current.
    rpt_review_backlog is a table: its ages are those of the build (which is why every build refreshes it)."""
    query = "select max(as_of) from marts.fct_review_queue"
    first = demo_warehouse.rows(query)[0][0]
    time.sleep(0.01)
    assert demo_warehouse.rows(query)[0][0] > first
    built = demo_warehouse.rows("select max(as_of) from marts.rpt_review_backlog")[0][0]
    time.sleep(0.01)
    assert demo_warehouse.rows("select max(as_of) from marts.rpt_review_backlog")[0][0] == built < first


def _judge_form(**changes):
    form = eval_form_record(rater={"type": "llm_judge", "id": "judge-x#1", "model": "judge-x", "version": "v1"})
    form["universal"]["faithfulness"] = {"score": 2, "confidence": "high", "rationale": "Invents a refund policy."}
    form.update(changes)
    return form


def test_a_hybrid_review_derived_from_a_judge_record_takes_it_out_of_the_queue(tmp_path):
    judge, untouched = _judge_form(), _judge_form()
    warehouse = _built(tmp_path, [judge, untouched], "fct_review_queue")
    queued = dict(warehouse.rows("select record_id, reasons from marts.fct_review_queue"))
    assert queued == {judge["eval_id"]: "score <= 3: faithfulness", untouched["eval_id"]: "score <= 3: faithfulness"}

    review = {**judge, "eval_id": str(uuid.uuid4()), "derived_from": judge["eval_id"],
              "rater": {"type": "hybrid", "id": "h-ana"}, "created_at": "2026-11-17T09:00:00Z"}
    warehouse.ingest(write_lines(tmp_path / "reviews.jsonl", [review]))
    warehouse.build("--select", "+fct_review_queue")
    assert warehouse.rows("select record_id from marts.fct_review_queue") == [(untouched["eval_id"],)]


def test_a_judges_score_at_the_review_line_is_queued_and_one_above_it_is_not(tmp_path):
    """var review_score_at_or_below is 3: a score of 3 asks for a person, a 4 does not."""
    at_the_line, above_it = _judge_form(), _judge_form()
    at_the_line["universal"]["faithfulness"] = {"score": 3, "confidence": "high", "rationale": "Hedges a figure."}
    above_it["universal"]["faithfulness"] = {"score": 4, "confidence": "high", "rationale": "Mostly grounded."}
    warehouse = _built(tmp_path, [at_the_line, above_it], "fct_review_queue")
    assert warehouse.rows("select record_id, reasons from marts.fct_review_queue") == [
        (at_the_line["eval_id"], "score <= 3: faithfulness")]


def test_a_record_stamped_after_the_build_waits_zero_days_not_a_negative_number(tmp_path):
    """A judge's clock ahead of the warehouse's: its form is created 'in three days'. The queue says it has waited 0
    days, as the page's ages and the report's backlog read it, not -3."""
    ahead = (dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=3)).strftime("%Y-%m-%dT%H:%M:%SZ")
    warehouse = _built(tmp_path, [_judge_form(created_at=ahead)], "fct_review_queue")
    assert warehouse.rows("select age_days from marts.fct_review_queue") == [(0,)]


def test_a_completed_cognibench_record_for_the_same_response_and_judge_takes_the_waiting_one_out_of_the_queue(
        tmp_path):
    """CogniBench writes no link to the record a review completes: the same response (task, model, response_id) by
    the same judge model, completed in a record created at or after the waiting one, is the link. A completion that
    reuses the evaluation_id is loaded as a new version of the record (the same verdict, a later review state)."""
    warehouse = Warehouse(tmp_path / "w.duckdb")
    waiting = cognibench_record(task_id=17, needs_human_review=True, human_review_status="Pending",
                                review_reasons=["Partial score"], created_at="2026-11-10T08:00:00.000001Z")
    other_judge = {**waiting, "evaluation_id": "eval_other_judge", "judge_llm_model": "o3"}
    rerun = {**waiting, "evaluation_id": "eval_rerun", "created_at": "2026-11-20T08:00:00.000001Z"}
    warehouse.ingest(write_lines(tmp_path / "judged.jsonl", [waiting, other_judge, rerun]))
    warehouse.build("--select", "+fct_review_queue")
    queued = {r for (r,) in warehouse.rows("select record_id from marts.fct_review_queue")}
    assert queued == {waiting["evaluation_id"], "eval_other_judge", "eval_rerun"}

    review = {"human_review_status": "Completed", "human_reviewer_id": "reviewer-17",
              "human_review_timestamp": "2026-11-12T09:00:00.000001Z", "human_corrected_scores": {}}
    same_id = {**waiting, **review}
    completed = {**waiting, **review, "evaluation_id": "eval_completed"}
    warehouse.ingest(write_lines(tmp_path / "export.jsonl", [same_id, completed]))
    assert warehouse.quarantine() == []
    versions = "select count(*) from raw.cognibench where natural_key = ?"
    assert warehouse.scalar(versions, [waiting["evaluation_id"]]) == 2
    warehouse.build("--select", "+fct_review_queue")
    # The other judge's verdict and the later run of the same judge still wait; the completed record never did.
    queued = {r for (r,) in warehouse.rows("select record_id from marts.fct_review_queue")}
    assert queued == {"eval_other_judge", "eval_rerun"}
