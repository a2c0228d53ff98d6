"""Safety, refusal, pairwise, gold calibration and the review queue: the demo's story shows in the marts, rates
carry Wilson intervals, rater groups never mix, and a hybrid review takes its judge record out of the queue."""

from __future__ import annotations

import math
import time
import uuid

import pytest

from evalhouse.build import run_dbt
from evalhouse.demo.world import GOLD_MISSING_RATER, OVER_REFUSING_MODEL, VIOLATING_MODEL
from tests.conftest import Warehouse, eval_form_record, write_lines

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


def test_rates_carry_wilson_intervals(demo_warehouse):
    rows = demo_warehouse.frame(
        "select n_violating, n_rated, ci_low, ci_high from marts.fct_hazard_rates where n_rated > 0"
    )
    assert len(rows) > 100
    for row in rows.itertuples():
        low, high = _wilson(row.n_violating, row.n_rated)
        assert abs(row.ci_low - low) < 1e-12 and abs(row.ci_high - high) < 1e-12
    empty = demo_warehouse.frame("select * from marts.fct_hazard_rates where n_rated = 0")
    assert empty.violation_rate.isna().all() and empty.ci_low.isna().all()


def test_the_over_refusing_model_over_refuses_most(demo_warehouse):
    rates = dict(demo_warehouse.rows(
        "select model_id, sum(n_over_refusal) / sum(n_rated) from marts.fct_refusal_calibration "
        "where rater_group = 'human' group by 1"
    ))
    assert max(rates, key=rates.get) == OVER_REFUSING_MODEL
    assert rates[OVER_REFUSING_MODEL] > 0.05


def test_pairwise_win_rate_counts_ties_half(demo_warehouse):
    rows = demo_warehouse.frame("select * from marts.fct_pairwise_vs_reference")
    wins = rows.n_better + rows.n_much_better + rows.n_equivalent / 2
    assert ((rows.win_rate - wins / rows.n_compared).abs() < 1e-12).all()


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
    warehouse = Warehouse(tmp_path / "w.duckdb")
    judge, untouched = _judge_form(), _judge_form()
    warehouse.ingest(write_lines(tmp_path / "judges.jsonl", [judge, untouched]))
    select = ("build", "--select", "+fct_review_queue")
    assert run_dbt(warehouse.path, select, target_path=tmp_path / "target", quiet=True).ok
    queued = dict(warehouse.rows("select record_id, reasons from marts.fct_review_queue"))
    assert queued == {judge["eval_id"]: "score <= 3: faithfulness", untouched["eval_id"]: "score <= 3: faithfulness"}

    review = {**judge, "eval_id": str(uuid.uuid4()), "derived_from": judge["eval_id"],
              "rater": {"type": "hybrid", "id": "h-ana"}, "created_at": "2026-11-17T09:00:00Z"}
    warehouse.ingest(write_lines(tmp_path / "reviews.jsonl", [review]))
    assert run_dbt(warehouse.path, select, target_path=tmp_path / "target", quiet=True).ok
    assert warehouse.rows("select record_id from marts.fct_review_queue") == [(untouched["eval_id"],)]
