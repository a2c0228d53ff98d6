"""The spec marts on the fixture warehouse: the two worked examples of docs/specs.md, the rescoring of exact_match
and regex_match rubrics, and the marts' contracts.

- Annex B of the draft standard: rubric-level scores 0.85, 0.92, 0.78 weighted 0.5, 0.3, 0.2. The annex prints
  0.854; its own formula gives 0.857 (0.425 + 0.276 + 0.156), and that is what the mart must give, to 1e-9.
- The acme suite (ADP): three agents, ten requests each; their composites and decisions are computed here again
  from the fixture by an independent implementation of the documented rules, and pinned as numbers.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from tests.conftest import CAUTIOUS, Warehouse
from tests.specs.conftest import SPECS

TOLERANCE = 1e-9
ROOT = Path(__file__).resolve().parents[2]


def _scores(warehouse, spec_id: str, model_id: str) -> dict[str, dict]:
    frame = warehouse.frame(
        "select * from marts.fct_spec_scores where spec_id = ? and model_id = ?", [spec_id, model_id])
    return {row["component_id"]: row for row in frame.to_dict("records")}


def _decision(warehouse, spec_id: str, model_id: str) -> dict:
    frame = warehouse.frame(
        "select * from marts.fct_promotion_decisions where spec_id = ? and model_id = ?", [spec_id, model_id])
    assert len(frame) == 1  # the fixtures' results all fall in one week (the week they were ingested)
    return frame.to_dict("records")[0]


# --- Annex B ----------------------------------------------------------------------------------------------------


def test_annex_b_formula_gives_0_857_not_the_printed_0_854():
    composite = 0.85 * 0.5 + 0.92 * 0.3 + 0.78 * 0.2
    assert composite == pytest.approx(0.857, abs=1e-12)
    assert abs(composite - 0.854) > 0.002


def test_annex_b_rubric_level_scores_are_the_annexs(spec_warehouse):
    scores = _scores(spec_warehouse, "annex_b_customer_support", "acme/support-bot")
    assert {k: round(v["raw_value"], 12) for k, v in scores.items()} == {
        "accuracy": 0.85, "bias_sensitivity": 0.92, "fluency": 0.78}
    assert {k: v["weight"] for k, v in scores.items()} == pytest.approx(
        {"accuracy": 0.5, "bias_sensitivity": 0.3, "fluency": 0.2}, abs=1e-12)
    assert {v["n"] for v in scores.values()} == {20}


def test_annex_b_composite_from_the_mart_is_0_857(spec_warehouse):
    decision = _decision(spec_warehouse, "annex_b_customer_support", "acme/support-bot")
    assert abs(decision["composite_score"] - 0.857) <= TOLERANCE
    assert decision["aggregation_method"] == "weighted_mean"
    # The spec sets no promotion threshold: a composite, and no decision.
    assert pd.isna(decision["promotion_threshold"]) and pd.isna(decision["is_promoted"])


def test_the_highest_version_is_current_as_people_number_versions(spec_warehouse):
    # "1.10" comes after "1.9" (a string sort would pick 1.9, whose plain mean would give 0.85).
    row = spec_warehouse.rows(
        "select version, n_versions, aggregation_method from marts.dim_eval_specs where spec_id = ?",
        ["annex_b_customer_support"])
    assert row == [("1.10", 2, "weighted_mean")]


# --- the acme worked example ---------------------------------------------------------------------------------------

ACME = "acme_groundedness_suite"
# docs/specs.md, "Worked example 2": the numbers the README quotes.
ACME_EXPECTED = {
    "acme/agent-a": {"composite": 0.925, "promoted": True, "failing": ""},
    "acme/agent-b": {"composite": 0.7925, "promoted": False, "failing": "groundedness, json_validity, latency"},
    "acme/agent-c": {"composite": 0.3 + 0.5 * 0.95 + 0.2 * 2500 / 2750, "promoted": False, "failing": "latency"},
}


def _acme_by_hand() -> dict[str, dict]:
    """The documented rules, implemented again from the suite YAML and the results file."""
    suite = yaml.safe_load((SPECS / "acme-eval-suite.yaml").read_text())["suites"][0]
    metrics = {m["id"]: m for m in suite["metrics"]}
    weights = suite["scoring"]["weights"]
    total = sum(weights.values())
    rows = [json.loads(line) for line in (SPECS / "acme_worked_example_results.jsonl").read_text().splitlines()]
    out = {}
    for model in sorted({r["model_id"] for r in rows}):
        mine = [r for r in rows if r["model_id"] == model]
        values, failing = {}, []
        for metric_id, metric in metrics.items():
            records = [r for r in mine if r["metadata"]["metric_id"] == metric_id]
            if metric["type"] == "deterministic":
                raw = sum(r["evaluation"]["score"] for r in records) / len(records)
                norm, ok = raw, raw >= metric["threshold"]
            elif metric["type"] == "llm_judge":
                low, high = (float(x) for x in metric["rubric"][0]["scale"].split("-"))
                raw = sum(r["evaluation"]["score"] for r in records) / len(records)
                norm, ok = (raw - low) / (high - low), raw >= metric["threshold"]
            else:
                raw = float(np.percentile([r["performance"]["latency_ms"] for r in records], 95))
                norm, ok = min(1.0, metric["max_ms"] / raw), raw <= metric["max_ms"]
            values[metric_id] = (raw, norm)
            if not ok:
                failing.append(metric_id)
        composite = sum(weights[m] / total * values[m][1] for m in metrics)
        out[model] = {"values": values, "composite": composite, "failing": ", ".join(sorted(failing)),
                      "promoted": composite >= suite["promotion_threshold"] and not failing}
    return out


def test_acme_worked_example_by_hand_gives_the_documented_numbers():
    by_hand = _acme_by_hand()
    for model, expected in ACME_EXPECTED.items():
        assert by_hand[model]["composite"] == pytest.approx(expected["composite"], abs=1e-12)
        assert (by_hand[model]["promoted"], by_hand[model]["failing"]) == (expected["promoted"], expected["failing"])
    # The values the README's table shows.
    assert by_hand["acme/agent-a"]["values"]["latency"] == pytest.approx((1910.0, 1.0))
    assert by_hand["acme/agent-a"]["values"]["groundedness"] == pytest.approx((4.4, 0.85))
    assert by_hand["acme/agent-c"]["values"]["latency"] == pytest.approx((2750.0, 2500 / 2750))


@pytest.mark.parametrize("model", sorted(ACME_EXPECTED))
def test_acme_worked_example_composite_and_decision_from_the_marts(spec_warehouse, model):
    by_hand = _acme_by_hand()[model]
    decision = _decision(spec_warehouse, ACME, model)
    assert abs(decision["composite_score"] - ACME_EXPECTED[model]["composite"]) <= TOLERANCE
    assert bool(decision["is_promoted"]) is ACME_EXPECTED[model]["promoted"]
    assert decision["failing_components"] == ACME_EXPECTED[model]["failing"]
    assert decision["promotion_threshold"] == 0.85
    scores = _scores(spec_warehouse, ACME, model)
    for metric_id, (raw, norm) in by_hand["values"].items():
        assert abs(scores[metric_id]["raw_value"] - raw) <= TOLERANCE
        assert abs(scores[metric_id]["normalized_value"] - norm) <= TOLERANCE


def test_acme_gate_promotion_needs_every_metric_threshold(spec_warehouse):
    decision = _decision(spec_warehouse, ACME, "acme/agent-c")
    assert decision["composite_meets_threshold"] and not decision["is_promoted"]


def test_acme_components_carry_units_thresholds_and_intervals(spec_warehouse):
    scores = _scores(spec_warehouse, ACME, "acme/agent-b")
    json_validity, groundedness, latency = scores["json_validity"], scores["groundedness"], scores["latency"]
    assert (json_validity["interval_method"], json_validity["threshold"], json_validity["n"]) == ("wilson", 1.0, 10)
    low, high = _wilson(9, 10)
    assert abs(json_validity["ci_low"] - low) <= TOLERANCE and abs(json_validity["ci_high"] - high) <= TOLERANCE
    assert (groundedness["threshold"], groundedness["normalized_threshold"]) == (4.0, 0.75)
    assert groundedness["interval_method"] == "wilson_from_se"
    assert (latency["threshold"], latency["threshold_direction"]) == (2500.0, "at_most")
    assert pd.isna(latency["interval_method"]) and pd.isna(latency["ci_low"])  # no interval for a percentile
    assert latency["raw_value"] == 3125.0 and latency["normalized_value"] == pytest.approx(0.8)


def test_a_gate_without_an_interval_is_neither_within_noise_nor_clear_of_it(spec_warehouse):
    """A latency percentile has no interval, so whether its threshold lies within noise is undefined: NULL, as the
    column's description says, never false, which reads as a verdict established by the samples (it read false for
    every latency gate, since a latency budget's normalized threshold, 1, is an end of the scale)."""
    gates = spec_warehouse.frame(
        "select model_id, component_id, meets_threshold, is_within_noise from marts.fct_spec_scores "
        "where ci_low is null and meets_threshold is not null union all "
        "select model_id, component_id, meets_threshold, is_within_noise from marts.fct_spec_scores_weekly "
        "where ci_low is null and meets_threshold is not null")
    assert {"latency"} <= set(gates.component_id) and gates.meets_threshold.eq(False).any()
    assert gates.is_within_noise.isna().all(), gates


# The judges' 1-5 groundedness scores of the fixture's ten requests per agent, and the interval of each normalised
# mean by hand: p = (mean - 1) / 4, its SE sqrt(var_samp / 10) / 4, Wilson's interval on the effective sample size
# n_eff = p (1 - p) / SE^2 * 10 / 9 (agent-c: 8 fives and 2 fours, p = 0.95, SE = 0.0333, n_eff = 47.5). The old
# p +- 1.96 SE gave agent-c [0.885, 1.015], above the scale's top.
ACME_GROUNDEDNESS = {
    "acme/agent-a": ([5, 4, 4, 5, 4, 4, 5, 4, 5, 4], (0.7590878376, 0.9106434595)),
    "acme/agent-b": ([4, 4, 3, 4, 4, 5, 4, 3, 4, 4], (0.6350326861, 0.7997820038)),
    "acme/agent-c": ([5, 5, 5, 4, 5, 5, 4, 5, 5, 5], (0.8478609113, 0.9847972061)),
}


@pytest.mark.parametrize("model", sorted(ACME_GROUNDEDNESS))
def test_a_judge_scales_interval_is_wilsons_on_the_effective_n_within_0_and_1(spec_warehouse, model):
    scores, pinned = ACME_GROUNDEDNESS[model]
    p = (np.mean(scores) - 1) / 4
    se = np.std(scores, ddof=1) / math.sqrt(len(scores)) / 4
    n_eff = p * (1 - p) / se**2 * len(scores) / (len(scores) - 1)
    low, high = _wilson(p * n_eff, n_eff)
    assert (low, high) == pytest.approx(pinned, abs=1e-9)
    groundedness = _scores(spec_warehouse, ACME, model)["groundedness"]
    assert groundedness["interval_method"] == "wilson_from_se"
    assert abs(groundedness["ci_low"] - low) <= TOLERANCE and abs(groundedness["ci_high"] - high) <= TOLERANCE
    assert 0 <= groundedness["ci_low"] < groundedness["normalized_value"] < groundedness["ci_high"] <= 1


def _wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def test_the_suite_loaded_once_though_two_files_hold_it_and_the_bad_one_is_quarantined(spec_warehouse):
    assert spec_warehouse.rows("select spec_id, spec_kind, n_versions, n_components, n_results from "
                               "marts.dim_eval_specs where spec_kind = 'adp_suite'") == [(ACME, "adp_suite", 1, 3, 90)]
    quarantined = spec_warehouse.rows(
        "select source_line, format, error_pointer from raw.quarantine where source_path like '%bad_threshold.yaml'")
    assert quarantined == [(1, "adp_suite", "/metrics/0/threshold")]


# --- exact_match / regex_match rescoring -----------------------------------------------------------------------------


def test_rescoring_gives_each_case_its_documented_score_and_disagreement(spec_warehouse):
    cases = json.loads((SPECS / "rescore_cases.json").read_text())
    rows = {row["source_line"]: row for row in spec_warehouse.frame(
        "select * from marts.fct_rubric_rescores where spec_id = 'rescore_check'").to_dict("records")}
    for case in cases:
        if case["rubric_id"] == "not_a_rubric_of_this_spec":
            assert case["line"] not in rows  # unmatched: counted in dim_eval_specs, not rescored
            continue
        row = rows[case["line"]]
        computed = None if pd.isna(row["computed_score"]) else row["computed_score"]
        assert (row["rubric_id"], computed, bool(row["disagrees"])) == (
            case["rubric_id"], case["computed_score"], case["disagrees"]), case


def test_the_draft_standards_own_example_rescoring_accepts_its_listed_answers(spec_warehouse):
    examples = spec_warehouse.rows(
        "select sample_id, expected_outputs_json from intermediate.int_spec_examples_unnested "
        "where spec_id = 'eval_basic_math_v1' order by example_index")
    assert examples == [("0", '["2","two"]'), ("1", '["2"]')]


def test_unmatched_results_are_counted_not_scored(spec_warehouse):
    assert spec_warehouse.rows(
        "select n_results, n_unmatched_results, n_examples, n_components from marts.dim_eval_specs "
        "where spec_id = 'rescore_check'") == [(12, 1, 3, 5)]


def test_spec_scores_show_recomputed_values_and_disagreements(spec_warehouse):
    scores = _scores(spec_warehouse, "rescore_check", "acme/rescore-bot")
    assert scores["em_strict"]["n_disagreements"] == 1 and scores["rx_digits"]["n_disagreements"] == 1
    # Annex B's accuracy: upper-case answers that the case-insensitive rubric accepts agree with what was reported.
    annex = _scores(spec_warehouse, "annex_b_customer_support", "acme/support-bot")["accuracy"]
    assert (annex["computed_raw_value"], annex["n_disagreements"]) == (pytest.approx(0.85), 0)


# --- contracts -------------------------------------------------------------------------------------------------------

MARTS = ("dim_eval_specs", "fct_spec_scores", "fct_spec_scores_weekly", "fct_promotion_decisions",
         "rpt_weekly_promotions", "fct_rubric_rescores")


def test_every_spec_mart_column_is_described_and_typed(spec_warehouse):
    declared = yaml.safe_load((ROOT / "models" / "marts" / "specs" / "_specs__models.yml").read_text())
    models = {m["name"]: m for m in declared["models"]}
    for mart in MARTS:
        model = models[mart]
        assert model["config"]["contract"]["enforced"] is True
        columns = [c["name"] for c in model["columns"]]
        actual = [name for (name,) in spec_warehouse.rows(
            "select column_name from information_schema.columns where table_schema = 'marts' and table_name = ? "
            "order by ordinal_position", [mart])]
        assert columns == actual
        assert all(c.get("description") and c.get("data_type") for c in model["columns"]), mart


def test_spec_marts_exist_and_are_empty_on_an_empty_warehouse(empty_warehouse):
    for mart in MARTS:
        assert empty_warehouse.scalar(f"select count(*) from marts.{mart}") == 0


# --- versions and typos (version_and_typo_specs.json; acme/spec-m: acc 5 of 10, fmt 10 of 10) -----------------------

SPEC_M = "acme/spec-m"


def test_semver_picks_the_current_version_and_the_decision_names_it(spec_warehouse):
    # "v1.10" over "v1.9": promotion 0.99, so 0.5 is not promoted (v1.9's 0.5 would promote).
    # "2.0.0" over "2.0.0-rc1": promotion 0.5, so 0.5 is promoted (the rc's 0.99 would not).
    rows = spec_warehouse.rows(
        "select spec_id, spec_version, promotion_threshold, is_promoted from marts.fct_promotion_decisions "
        "where model_id = ? and spec_id like 'ver_%' order by spec_id", [SPEC_M])
    assert rows == [("ver_release", "2.0.0", 0.5, True), ("ver_v_prefix", "v1.10", 0.99, False)]
    scored = spec_warehouse.rows(
        "select distinct spec_id, spec_version from marts.fct_spec_scores where model_id = ? and spec_id like 'ver_%' "
        "union all select distinct spec_id, spec_version from marts.fct_spec_scores_weekly "
        "where model_id = ? and spec_id like 'ver_%' order by 1, 2", [SPEC_M, SPEC_M])
    assert scored == [("ver_release", "2.0.0"), ("ver_release", "2.0.0"),
                      ("ver_v_prefix", "v1.10"), ("ver_v_prefix", "v1.10")]


def test_unknown_weight_and_threshold_keys_are_counted_and_named(spec_warehouse):
    row = spec_warehouse.rows(
        "select n_unknown_weight_keys, unknown_weight_keys, n_unknown_threshold_keys, unknown_threshold_keys "
        "from marts.dim_eval_specs where spec_id = 'typo_keys'")
    assert row == [(1, "fmat", 1, "acuracy")]
    clean = spec_warehouse.rows(
        "select spec_id from marts.dim_eval_specs where n_unknown_weight_keys + n_unknown_threshold_keys > 0")
    assert clean == [("typo_keys",)]


def test_a_threshold_on_no_component_leaves_the_decision_undecided(spec_warehouse):
    # fmat's weight is lost, so acc weighs 1: composite 0.5 reaches 0.5, and the rule alone would promote.
    # The "acuracy" gate measures nothing: not met, so the row is undecided rather than promoted.
    decision = _decision(spec_warehouse, "typo_keys", SPEC_M)
    assert abs(decision["composite_score"] - 0.5) <= TOLERANCE
    assert bool(decision["composite_meets_threshold"]) is True
    assert pd.isna(decision["is_promoted"])
    assert decision["decision_status"] == "threshold not measured"
    assert decision["unknown_threshold_keys"] == "acuracy"


def test_a_spec_id_both_kinds_use_leaves_both_unscored_and_listed_and_the_build_passes(tmp_path):
    """A draft-standard evaluation named as the acme ADP suite is: results name a spec by its id alone, so neither
    can be scored. The build had failed on the duplicate components and published nothing."""
    annex_b = json.loads((SPECS / "annex_b_spec.json").read_text())
    evaluation = {**annex_b[-1], "id": "acme_groundedness_suite"}
    clash = tmp_path / "clash.json"
    clash.write_text(json.dumps([evaluation]))
    warehouse = Warehouse(tmp_path / "w.duckdb")
    warehouse.ingest(*(SPECS / name for name in ("annex_b_spec.json", "acme-eval-suite.yaml",
                                                 "acme_worked_example_results.jsonl")), clash)
    warehouse.build("--select", "+path:models/marts/specs", "+dim_models", "+fct_spec_id_conflicts", *CAUTIOUS)
    assert warehouse.rows("select spec_id, spec_kind, spec_version, source_path from marts.fct_spec_id_conflicts "
                          "order by spec_kind") == [
        ("acme_groundedness_suite", "adp_suite", None, str(SPECS / "acme-eval-suite.yaml")),
        ("acme_groundedness_suite", "ieee_evaluation", "1.10", str(clash)),
    ]
    scored = {spec for (spec,) in warehouse.rows("select spec_id from marts.dim_eval_specs")}
    assert "annex_b_customer_support" in scored and "acme_groundedness_suite" not in scored
    assert warehouse.rows("select count(*) from marts.fct_promotion_decisions "
                          "where spec_id = 'acme_groundedness_suite'") == [(0,)]
