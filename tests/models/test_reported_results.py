"""Reported results in time and in range: an Every Eval Ever aggregate without evaluation_timestamp (HELM's exports)
takes its retrieved_timestamp, and so do the trials linked to it, so both reach a date filter and fall in one week;
a token count too large for a bigint is NULL in fct_trials, flagged in staging and warned about by the build. Built
from the real files of tests/fixtures/every_eval_ever (one aggregate stripped of its evaluation times here) and one
instance record made here."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from tests.conftest import CAUTIOUS, FIXTURES, Warehouse, built_warehouse_path, instance_record, write_lines

pytestmark = pytest.mark.slow

EXAMPLES = FIXTURES / "every_eval_ever"
HELM = EXAMPLES / "07c823ba-9e17-47e4-858b-a1f2a514a276.json"
ARC = EXAMPLES / "9563d156-9b7e-41b9-b50a-6430637937ed.json"
ARC_INSTANCES = EXAMPLES / "ai2_arc_ollama_qwen2.5-0.5b_1761001924.jsonl"
HUGE_TOKENS = 10 ** 20
ONE_RESULT = "gsm8k/acme_chat-7b/1763000000.0#exact_match"  # the one result the unlinked gsm8k run's record names
MARTS = ("--select", "+fct_benchmark_results", "+fct_trials", *CAUTIOUS)


def _utc(epoch: str) -> dt.datetime:
    return dt.datetime.fromtimestamp(float(epoch), dt.timezone.utc).replace(tzinfo=None)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Warehouse, Path]:
    root = tmp_path_factory.mktemp("reported_results")
    untimed = json.loads(ARC.read_text())
    del untimed["evaluation_timestamp"]
    for result in untimed["evaluation_results"]:
        result.pop("evaluation_timestamp", None)
    (root / "files").mkdir()
    (root / "files" / ARC.name).write_text(json.dumps(untimed))
    huge = write_lines(root / "files" / "huge_tokens.jsonl", [instance_record(
        evaluation_result_id=ONE_RESULT,
        token_usage={"input_tokens": HUGE_TOKENS, "output_tokens": 7, "total_tokens": HUGE_TOKENS + 7})])
    warehouse = Warehouse(built_warehouse_path(root))
    assert warehouse.ingest(HELM, ARC_INSTANCES, root / "files" / ARC.name, huge).quarantined == 0
    warehouse.build(*MARTS, target_path=root / "target", write_json=True)
    return warehouse, root / "target"


def test_an_aggregate_without_evaluation_time_takes_its_retrieved_time(built):
    warehouse, _ = built
    retrieved = _utc(json.loads(HELM.read_text())["retrieved_timestamp"])
    rows = warehouse.rows(
        "select evaluated_at, evaluated_at_source, week_start from marts.fct_benchmark_results "
        "where run_id like 'helm_capabilities/%'")
    assert len(rows) == 6
    assert set(rows) == {(retrieved, "retrieved_at", dt.date(2026, 2, 9))}


def test_trials_linked_to_it_take_the_same_time_so_reported_and_computed_share_a_week(built):
    warehouse, _ = built
    retrieved = _utc(json.loads(ARC.read_text())["retrieved_timestamp"])
    rows = warehouse.rows(
        "select result_origin, metric_name, evaluated_at, evaluated_at_source, week_start "
        "from marts.fct_benchmark_results where evaluation_name = 'allenai/ai2_arc' order by all")
    monday = retrieved.date() - dt.timedelta(days=retrieved.weekday())
    assert rows == [("computed", "accuracy", retrieved, "retrieved_at", monday),
                    ("computed", "mean_score", retrieved, "retrieved_at", monday),
                    ("reported", "accuracy", retrieved, "retrieved_at", monday)]
    assert warehouse.rows(
        "select distinct evaluated_at, evaluated_at_source from marts.fct_trials "
        "where evaluation_name = 'allenai/ai2_arc'") == [(retrieved, "retrieved_at")]


def test_a_token_count_too_large_for_a_bigint_is_flagged_and_warned_about(built):
    warehouse, target = built
    assert warehouse.rows(
        "select input_tokens, output_tokens from marts.fct_trials where evaluation_name = 'gsm8k'") == [(None, 7)]
    assert warehouse.rows(
        "select source_path like '%huge_tokens.jsonl', total_tokens from staging.stg_every_eval_ever__instances "
        "where token_count_unreadable") == [(True, None)]
    assert warehouse.scalar(
        "select count(*) from staging.stg_every_eval_ever__instances where not token_count_unreadable") == 3
    results = json.loads((target / "run_results.json").read_text())["results"]
    warned = [r for r in results if r["unique_id"].startswith("test.") and "token_counts_fit_bigint" in r["unique_id"]]
    assert [(r["status"], r["failures"]) for r in warned] == [("warn", 1)]


def test_a_run_with_no_aggregate_naming_one_result_scores_it_as_score(built):
    """The gsm8k run has no aggregate to say which metric its one result (ONE_RESULT) is, and one result needs no
    telling apart: its trials read 'score'. A result id names the metric only where a run's records name several
    results, to keep their scores apart (tests/models/test_trial_grain.py)."""
    warehouse, _ = built
    assert warehouse.rows("select trial_metric, evaluated_at_source from marts.fct_trials "
                          "where evaluation_name = 'gsm8k'") == [("score", "ingested_at")]  # no aggregate
