"""Promotion decisions on inputs a release manager will meet: results outside a rubric's scale, a rubric that is not
loaded, thresholds that were never measured, gates whose threshold lies inside their interval. The build must pass
on all of them, an unmeasured gate must never count as a gate passed, and results outside their scale must decide
nothing. Fixtures: tests/fixtures/specs/decide_* (PROVENANCE.md); the numbers are worked out
by hand beside each test.
"""

from __future__ import annotations

import pandas as pd
import pytest

from tests.conftest import Warehouse
from tests.specs.conftest import decide_warehouse_built_once


@pytest.fixture(scope="module")
def decide_warehouse(tmp_path_factory) -> Warehouse:
    """The build itself is the first check: it used to stop on the composite's contract (SE set, interval NULL).
    Built once per test session, shared with the specs page's tests (tests/app/test_specs_page.py)."""
    return decide_warehouse_built_once(tmp_path_factory)


def _decision(warehouse: Warehouse, spec_id: str, model_id: str) -> dict:
    frame = warehouse.frame("select * from marts.fct_promotion_decisions where spec_id = ? and model_id = ?",
                            [spec_id, model_id])
    assert len(frame) == 1
    return frame.to_dict("records")[0]


def _component(warehouse: Warehouse, spec_id: str, component_id: str) -> dict:
    frame = warehouse.frame("select * from marts.fct_spec_scores_weekly where spec_id = ? and component_id = ?",
                            [spec_id, component_id])
    assert len(frame) == 1
    return frame.to_dict("records")[0]


def test_scores_above_the_scale_build_with_a_composite_that_has_no_interval_and_decides_nothing(decide_warehouse):
    # Judge scores 5 and 6 on 1-5, five each: mean 5.5, normalised (5.5 - 1) / 4 = 1.125, the composite of a mean
    # over one rubric. Not clipped; no Wilson interval exists above the scale, so no SE and no n either.
    judge = _component(decide_warehouse, "decide_scale", "judge")
    assert (judge["raw_value"], judge["normalized_value"], judge["n"]) == (5.5, 1.125, 10)
    assert judge["n_results_out_of_scale"] == 5
    assert pd.isna(judge["ci_low"]) and pd.isna(judge["interval_method"])
    row = _decision(decide_warehouse, "decide_scale", "decide/m1")
    assert row["composite_score"] == 1.125
    assert all(pd.isna(row[c]) for c in ("composite_se", "composite_ci_low", "composite_ci_high",
                                          "n_composite_samples", "is_within_noise"))
    assert row["no_interval_reason"] == "composite outside its scale"
    # 1.125 >= 0.8 promoted this model on invalid data; it is out of scale, and nothing on it passes.
    assert (row["decision_status"], row["out_of_scale_components"], row["n_out_of_scale_components"]) == (
        "out of scale", "judge", 1)
    assert pd.isna(row["is_promoted"]) and pd.isna(row["composite_meets_threshold"])


def test_a_gate_with_results_outside_its_scale_is_neither_passed_nor_failed(decide_warehouse):
    # acc 10 of 10 weighs 1: composite 1.0 >= 0.5. The unweighted judge gates at 0.5 normalised, raw 1 + 0.5 x 4 = 3;
    # its scores 4 x 8 and 6 x 2 average 4.4, inside 1-5 and above 3, so it read as met, but two results lie above
    # the scale: no verdict (not "not measured": it was measured, on invalid data), and the row is out of scale.
    judge = _component(decide_warehouse, "decide_scale_gate", "judge")
    assert (judge["raw_value"], judge["threshold"], judge["n_results_out_of_scale"]) == (4.4, 3.0, 2)
    assert judge["normalized_value"] == pytest.approx(0.85, abs=1e-12)
    assert pd.isna(judge["meets_threshold"]) and pd.isna(judge["is_within_noise"])
    assert _component(decide_warehouse, "decide_scale_gate", "acc")["n_results_out_of_scale"] == 0
    row = _decision(decide_warehouse, "decide_scale_gate", "decide/m1")
    assert row["composite_score"] == 1.0 and row["composite_meets_threshold"]
    assert (row["decision_status"], row["out_of_scale_components"], row["unmeasured_thresholds"]) == (
        "out of scale", "judge", "")
    assert pd.isna(row["is_promoted"])


@pytest.mark.parametrize(("model", "within", "status"), [
    # Wilson 95% for 8 of 10 is [0.490, 0.943]: 0.7 inside, a pass the samples do not establish.
    ("decide/m1", True, "promoted"),
    # 10 of 10: [0.7225, 1.0], 0.7 below it: a pass the samples establish.
    ("decide/m2", False, "promoted"),
    # 6 of 10: [0.313, 0.832], 0.7 inside: a fail the samples do not establish.
    ("decide/m3", True, "not promoted"),
])
def test_a_gate_whose_threshold_lies_inside_its_interval_is_within_noise(decide_warehouse, model, within, status):
    frame = decide_warehouse.frame("select * from marts.fct_spec_scores_weekly where spec_id = 'decide_noise' "
                                   "and model_id = ?", [model])
    acc = frame.to_dict("records")[0]
    assert (acc["interval_method"], bool(acc["is_within_noise"])) == ("wilson", within)
    if within:
        assert acc["ci_low"] < 0.7 < acc["ci_high"]
    else:
        assert acc["ci_low"] > 0.7
    row = _decision(decide_warehouse, "decide_noise", model)
    assert (row["decision_status"], row["gates_within_noise"], row["n_gates_within_noise"]) == (
        status, "acc" if within else "", int(within))


def test_a_rubric_that_is_not_loaded_is_not_scored_on_a_guessed_scale(decide_warehouse):
    # Scores 2 and 3, five each: the raw mean is 2.5, but with no rubric there is no scale to normalise on (the old
    # default 0-1 made it 2.5, a composite of 2.5 that stopped the build).
    judge = _component(decide_warehouse, "decide_unresolved", "judge_not_loaded")
    assert (judge["raw_value"], judge["n"]) == (2.5, 10)
    assert pd.isna(judge["normalized_value"]) and pd.isna(judge["ci_low"])
    row = _decision(decide_warehouse, "decide_unresolved", "decide/m1")
    assert pd.isna(row["composite_score"]) and pd.isna(row["is_promoted"])
    assert (row["decision_status"], row["missing_components"]) == ("no composite", "judge_not_loaded")
    assert decide_warehouse.scalar("select n_unresolved_components from marts.dim_eval_specs "
                                   "where spec_id = 'decide_unresolved'") == 1


def test_a_threshold_without_results_leaves_the_decision_undecided(decide_warehouse):
    # decide/m1: acc 10 of 10 weighs 1, composite 1.0 >= 0.5; safety (threshold 0.9) has no results at all.
    m1 = _decision(decide_warehouse, "decide_gate", "decide/m1")
    assert m1["composite_score"] == 1.0 and m1["composite_meets_threshold"]
    assert pd.isna(m1["is_promoted"])
    assert (m1["decision_status"], m1["unmeasured_thresholds"], m1["n_unmeasured_thresholds"]) == (
        "threshold not measured", "safety", 1)
    # decide/m2: safety 5 of 10 = 0.5 < 0.9 is measured and fails.
    m2 = _decision(decide_warehouse, "decide_gate", "decide/m2")
    assert (m2["decision_status"], m2["failing_components"], m2["unmeasured_thresholds"]) == (
        "not promoted", "safety", "")


def test_an_unweighted_cost_threshold_the_warehouse_cannot_measure_is_not_passed(decide_warehouse):
    # acc 1.0 x 0.7 + latency budget (p95 500 <= 1000 ms: 1.0) x 0.3 = 1.0 >= 0.5, acc and latency meet theirs.
    # cost.usd has ten results (0.05 each against 0.01), but a telemetry metric that is not a latency has no value
    # here (docs/specs.md): n counts requests with a latency, so 0, and the threshold is unmeasured.
    cost = _component(decide_warehouse, "decide_cost_suite", "cost")
    assert (cost["n_results"], cost["n"], cost["threshold"]) == (10, 0, 0.01)
    assert pd.isna(cost["raw_value"]) and pd.isna(cost["meets_threshold"]) and pd.isna(cost["normalization"])
    row = _decision(decide_warehouse, "decide_cost_suite", "decide/m1")
    assert row["composite_score"] == pytest.approx(1.0, abs=1e-12)
    assert pd.isna(row["is_promoted"])
    assert (row["decision_status"], row["unmeasured_thresholds"]) == ("threshold not measured", "cost")


def test_the_weekly_counts_keep_unmeasured_thresholds_and_out_of_scale_apart_from_decisions(decide_warehouse):
    # Nine rows: decide_gate m1 (not measured) and m2 (not promoted), decide_scale and decide_scale_gate (out of
    # scale), decide_unresolved (no composite), the cost suite (not measured; its acc gate, 10 of 10 against 0.8, is
    # within noise, but it decides nothing), decide_noise m1 and m2 (promoted) and m3 (not promoted); m1 and m3
    # with a gate within noise.
    assert decide_warehouse.rows(
        "select n_rows, n_decided, n_promoted, n_not_promoted, n_out_of_scale, n_threshold_not_measured, "
        "n_no_composite, n_no_threshold, n_decided_with_gates_within_noise "
        "from marts.rpt_weekly_promotions") == [(9, 4, 2, 2, 2, 2, 1, 0, 2)]
