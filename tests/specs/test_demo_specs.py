"""The demo's specs: the generator writes valid spec documents and results (evalhouse/demo/specs.py), and the
session demo warehouse tells their story: a promoted and a not-promoted model per spec and week, rubric-level scores
only for the draft's own example, and exactly the planted reporting slips as disagreements.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from datetime import date
from pathlib import Path

import numpy as np
import pandas as pd
import yaml
from jsonschema.validators import validator_for

from evalhouse.demo.specs import (
    ACME_PROMOTED, ACME_SUITE_ID, ACME_SUITE_YAML, MATH_DATASET, MATH_EVALUATION, MATH_RUBRIC, MATH_SPEC_ID,
    REPORTING_SLIPS, TRIAGE_ALWAYS_PROMOTED, TRIAGE_NEVER_PROMOTED, TRIAGE_SPEC_ID, TRIAGE_WEIGHTS,
)
from evalhouse.demo.world import MODEL_IDS
from tests.conftest import DEMO_END_DATE, FIXTURES

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "schemas"
TOLERANCE = 1e-9


def _validator(path: Path):
    schema = json.loads(path.read_text(encoding="utf-8"))
    cls = validator_for(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


# --- the generator ---------------------------------------------------------------------------------------------------


def test_the_demo_writes_the_reference_examples_unchanged(demo_dir):
    assert (demo_dir / "specs/adp/acme-eval-suite.yaml").read_bytes() == (
        FIXTURES / "specs" / "acme-eval-suite.yaml").read_bytes()
    assert ACME_SUITE_YAML.encode() == (FIXTURES / "specs" / "acme-eval-suite.yaml").read_bytes()
    inline = json.loads((demo_dir / "specs/ieee_draft/inline_examples.json").read_text())
    assert inline == json.loads((FIXTURES / "specs" / "inline_examples.json").read_text())
    assert inline == [MATH_DATASET, MATH_RUBRIC, MATH_EVALUATION]


def test_every_demo_spec_file_passes_its_schema(demo_dir):
    instance = _validator(SCHEMAS / "every_eval_ever" / "instance_level_eval.schema.0.3.0.json")
    aggregate = _validator(SCHEMAS / "every_eval_ever" / "eval.schema.0.3.0.json")
    suite = _validator(SCHEMAS / "adp" / "suite.schema.json")
    failures = []
    for path in sorted((demo_dir / "specs").rglob("*")):
        if path.suffix == ".jsonl":
            checks = [(instance, json.loads(line)) for line in path.read_text().splitlines()]
        elif path.suffix == ".yaml":
            checks = [(suite, s) for s in yaml.safe_load(path.read_text())["suites"]]
        elif path.suffix == ".json":
            documents = json.loads(path.read_text())
            checks = [(aggregate if "evaluation_results" in d else
                       _validator(SCHEMAS / "ieee_draft" / f"{d['type']}.schema.json"), d) for d in documents]
        else:
            continue
        failures += [(path.name, list(e.absolute_path), e.message[:100])
                     for validator, document in checks for e in validator.iter_errors(document)]
    assert failures == []


def test_spec_record_counts_are_those_written(tmp_path):
    from evalhouse.demo.generate import generate_demo

    summary = generate_demo(tmp_path / "again", end_date=date.fromisoformat(DEMO_END_DATE))
    counts = summary.spec_record_counts
    lines = sum(len(p.read_text().splitlines()) for p in (summary.out_dir / "specs/results").glob("*.jsonl"))
    runs = sum(len(json.loads(p.read_text())) for p in (summary.out_dir / "specs/results").glob("*.json"))
    assert (counts["eee_instance"], counts["eee_aggregate"]) == (lines, runs)
    spec_documents = (counts["ieee_dataset"], counts["ieee_rubric"], counts["ieee_evaluation"], counts["adp_suite"])
    assert spec_documents == (2, 4, 2, 1)


# --- the demo warehouse ----------------------------------------------------------------------------------------------


def test_the_demo_has_three_specs_with_their_methods(demo_warehouse):
    rows = demo_warehouse.rows(
        "select spec_id, spec_kind, aggregation_method, promotion_threshold, n_components, n_models, "
        "n_unmatched_results from marts.dim_eval_specs order by spec_id")
    assert rows == [
        (ACME_SUITE_ID, "adp_suite", "weighted_average", 0.85, 3, 4, 0),
        (MATH_SPEC_ID, "ieee_evaluation", None, None, 1, 4, 0),
        (TRIAGE_SPEC_ID, "ieee_evaluation", "weighted_mean", 0.8, 3, 4, 0),
    ]


def test_every_week_one_model_is_promoted_and_one_is_not(demo_warehouse):
    rows = demo_warehouse.rows(
        "select spec_id, week_start, model_id, is_promoted from marts.fct_promotion_decisions "
        "where spec_id in (?, ?)", [TRIAGE_SPEC_ID, ACME_SUITE_ID])
    decisions: dict[tuple, dict[str, bool]] = defaultdict(dict)
    for spec_id, week, model, promoted in rows:
        decisions[(spec_id, week)][model] = promoted
    assert len(decisions) == 2 * 8
    for (spec_id, _), by_model in decisions.items():
        assert set(by_model) == set(MODEL_IDS)
        if spec_id == TRIAGE_SPEC_ID:
            assert by_model[TRIAGE_ALWAYS_PROMOTED] is True and by_model[TRIAGE_NEVER_PROMOTED] is False
        else:
            assert by_model[ACME_PROMOTED] is True
            assert [m for m, promoted in by_model.items() if promoted] == [ACME_PROMOTED]


def test_the_drafts_own_example_has_rubric_scores_and_no_composite(demo_warehouse):
    rows = demo_warehouse.rows(
        "select count(*), count(composite_score), count(is_promoted) from marts.fct_promotion_decisions "
        "where spec_id = ?", [MATH_SPEC_ID])
    assert rows == [(4 * 8, 0, 0)]
    assert demo_warehouse.scalar(
        "select count(*) from marts.fct_spec_scores where spec_id = ? and raw_value is not null", [MATH_SPEC_ID]) == 4


def test_exactly_the_planted_reporting_slips_disagree(demo_warehouse, demo_dir):
    weeks = sorted({w for (w,) in demo_warehouse.rows("select distinct week_start from marts.fct_trials")})
    found = {(model, weeks.index(week), sample) for model, week, sample in demo_warehouse.rows(
        "select model_id, week_start, sample_id from marts.fct_rubric_rescores where disagrees")}
    assert found == set(REPORTING_SLIPS)
    assert demo_warehouse.scalar("select count(*) from marts.fct_rubric_rescores where computed_score is null") == 0
    scores = demo_warehouse.scalar(
        "select sum(n_disagreements) from marts.fct_spec_scores where spec_id = ?", [MATH_SPEC_ID])
    assert scores == len(REPORTING_SLIPS)


def test_acme_weekly_composites_equal_the_rules_applied_to_the_trials(demo_warehouse):
    """The documented rules, applied in Python to fct_trials, give the mart's composites to 1e-9."""
    trials = demo_warehouse.frame(
        "select model_id, week_start, metric_id, sample_id, score, latency_ms from marts.fct_trials "
        "where suite_id = ?", [ACME_SUITE_ID])
    decisions = demo_warehouse.frame(
        "select model_id, week_start, composite_score, is_promoted, failing_components "
        "from marts.fct_promotion_decisions where spec_id = ?", [ACME_SUITE_ID])
    assert len(decisions) == 4 * 8
    for row in decisions.itertuples():
        week = trials[(trials.model_id == row.model_id) & (trials.week_start == row.week_start)]
        validity = week[week.metric_id == "json_validity"].groupby("sample_id").score.mean().mean()
        grounded = week[week.metric_id == "groundedness"].groupby("sample_id").score.mean().mean()
        p95 = float(np.percentile(week[week.metric_id == "latency"].latency_ms, 95))
        latency = min(1.0, 2500 / p95)
        composite = 0.3 * validity + 0.5 * (grounded - 1) / 4 + 0.2 * latency
        assert abs(row.composite_score - composite) <= TOLERANCE
        failing = sorted(name for name, fails in (("groundedness", grounded < 4.0 - TOLERANCE),
                                                  ("json_validity", validity < 1.0 - TOLERANCE),
                                                  ("latency", p95 > 2500 + TOLERANCE)) if fails)
        assert row.failing_components == ", ".join(failing)
        assert bool(row.is_promoted) == (composite >= 0.85 - TOLERANCE and not failing)


def test_spec_scores_normalise_into_the_unit_interval_with_wilson_for_rates(demo_warehouse):
    rows = demo_warehouse.frame("select * from marts.fct_spec_scores")
    assert ((rows.normalized_value >= 0) & (rows.normalized_value <= 1)).all()
    rates = rows[rows.interval_method == "wilson"]
    assert len(rates) > 0
    for row in rates.itertuples():
        z = 1.96
        s, n = row.normalized_value * row.n, row.n
        centre = (s + z * z / 2) / (n + z * z)
        half = z * math.sqrt(s * (n - s) / n + z * z / 4) / (n + z * z)
        assert abs(row.ci_low - (centre - half)) <= 1e-6 and abs(row.ci_high - (centre + half)) <= 1e-6


def test_every_weeks_component_interval_lies_in_0_1_and_a_unanimous_scale_is_no_point(demo_warehouse):
    """In week 2026-10-26 gpt-4.1-mini's groundedness scored 5 of 5 on all ten samples: SE 0, where mean +- 1.96 SE
    gave the point [1, 1] (and other weeks an upper end of 1.013). Wilson's interval on n stands in for the
    undefined effective n: Wilson(10 of 10) = [10 / (10 + 1.96^2), 1] = [0.7225, 1]."""
    rows = demo_warehouse.frame("select * from marts.fct_spec_scores_weekly where interval_method is not null")
    assert set(rows.interval_method) == {"wilson", "wilson_from_se"}
    assert ((rows.ci_low >= 0) & (rows.ci_high <= 1) & (rows.ci_low < rows.ci_high)).all()
    unanimous = rows[(rows.component_id == "groundedness") & (rows.week_start == pd.Timestamp("2026-10-26"))
                     & (rows.model_id == "openai/gpt-4.1-mini-2025-04-14")].iloc[0]
    assert (unanimous.normalized_value, unanimous.n, unanimous.interval_method) == (1.0, 10, "wilson_from_se")
    assert abs(unanimous.ci_low - 10 / (10 + 1.96**2)) <= TOLERANCE and abs(unanimous.ci_high - 1) <= TOLERANCE


# --- a week's decision explained from the marts ----------------------------------------------------------------------


def test_every_decision_names_the_failing_components_of_its_weeks_scores(demo_warehouse):
    """fct_spec_scores_weekly holds the values each decision used: the components it marks failing (and missing) for
    a spec, model and week are those the decision names. fct_spec_scores pools all weeks and disagrees with 10 of
    the demo's 96 decisions (support_triage_v1 / acme/chat-7b: label_accuracy misses 0.75 all-time, not in W40)."""
    decisions = demo_warehouse.frame(
        "select spec_id, model_id, week_start, failing_components, missing_components, n_components "
        "from marts.fct_promotion_decisions")
    scores = demo_warehouse.frame(
        "select spec_id, model_id, week_start, component_id, meets_threshold, normalized_value "
        "from marts.fct_spec_scores_weekly")
    assert len(decisions) == 3 * 4 * 8
    by_key = {key: rows for key, rows in scores.groupby(["spec_id", "model_id", "week_start"])}
    mismatches = []
    for row in decisions.itertuples():
        rows = by_key.get((row.spec_id, row.model_id, row.week_start))
        assert rows is not None and len(rows) == row.n_components, (row.spec_id, row.model_id, row.week_start)
        failing = ", ".join(sorted(rows[rows.meets_threshold.eq(False)].component_id))
        missing = ", ".join(sorted(rows[rows.normalized_value.isna()].component_id))
        if (failing, missing) != (row.failing_components, row.missing_components):
            mismatches.append((row.spec_id, row.model_id, row.week_start, row.failing_components, failing))
    assert mismatches == []
    assert any(decisions.failing_components != ""), "no decision names a failing component: this proves nothing"


def _triage_sample_composites(demo_warehouse) -> dict[tuple, list[float]]:
    """Each (model, week)'s per-sample composites of support_triage_v1, from fct_trials and the spec's own weights
    and scales (label_accuracy and label_format on 0 to 1, triage_rationale on 1 to 5)."""
    trials = demo_warehouse.frame(
        "select model_id, week_start, rubric_id, sample_id, score from marts.fct_trials where evaluation_name = ?",
        [TRIAGE_SPEC_ID])
    scales = {"label_accuracy": (0, 1), "label_format": (0, 1), "triage_rationale": (1, 5)}
    weights = TRIAGE_WEIGHTS  # they sum to 1: the spec's weights as the composite uses them
    samples = trials.groupby(["model_id", "week_start", "sample_id", "rubric_id"]).score.mean().unstack("rubric_id")
    assert set(samples.columns) == set(weights) and not samples.isna().any().any()
    composite = sum(w * (samples[r] - scales[r][0]) / (scales[r][1] - scales[r][0]) for r, w in weights.items())
    return {key: list(group) for key, group in composite.groupby(level=["model_id", "week_start"])}


def test_the_composites_standard_error_is_over_samples_and_null_where_undefined(demo_warehouse):
    """support_triage_v1: sqrt(var_samp / n) of each sample's composite, to 1e-9, with n the week's samples and the
    mean of those composites the composite. The acme suite weighs a latency percentile (no per-sample value) and the
    basic-math spec has no composite: NULL, with its interval and n."""
    expected = _triage_sample_composites(demo_warehouse)
    rows = demo_warehouse.frame(
        "select spec_id, model_id, week_start, composite_score, composite_se, composite_ci_low, composite_ci_high, "
        "n_composite_samples from marts.fct_promotion_decisions")
    triage = rows[rows.spec_id == TRIAGE_SPEC_ID]
    assert len(triage) == 4 * 8
    for row in triage.itertuples():
        values = expected[(row.model_id, row.week_start)]
        assert row.n_composite_samples == len(values) >= 10
        assert abs(row.composite_score - float(np.mean(values))) <= TOLERANCE
        assert abs(row.composite_se - float(np.std(values, ddof=1) / math.sqrt(len(values)))) <= TOLERANCE
        assert row.composite_ci_low < row.composite_score < row.composite_ci_high
    others = rows[rows.spec_id != TRIAGE_SPEC_ID]
    assert len(others) == 2 * 4 * 8
    assert others[["composite_se", "composite_ci_low", "composite_ci_high", "n_composite_samples"]].isna().all().all()


def test_within_noise_marks_a_threshold_inside_the_interval_and_leaves_the_decision_alone(demo_warehouse):
    """meta-llama on support_triage_v1 is promoted at 0.8125 in the last week after 0.77 the week before: both
    verdicts lie within noise of the 0.80 threshold. The flag never changes is_promoted."""
    rows = demo_warehouse.frame(
        "select spec_id, model_id, week_start, composite_score, composite_ci_low, composite_ci_high, "
        "promotion_threshold, composite_meets_threshold, n_failing_components, is_promoted, is_within_noise, "
        "decision_status from marts.fct_promotion_decisions")
    for row in rows.itertuples():
        if pd.isna(row.promotion_threshold) or pd.isna(row.composite_ci_low):
            assert pd.isna(row.is_within_noise)
        else:
            assert row.is_within_noise == (row.composite_ci_low <= row.promotion_threshold <= row.composite_ci_high)
        if pd.isna(row.promotion_threshold):
            assert row.decision_status == "no threshold" and pd.isna(row.is_promoted)
        elif row.n_failing_components > 0:
            assert row.decision_status == "not promoted" and pd.notna(row.is_promoted) and not row.is_promoted
        elif pd.isna(row.composite_score):
            assert row.decision_status == "no composite" and pd.isna(row.is_promoted)
        else:
            assert bool(row.is_promoted) == bool(row.composite_meets_threshold)
            assert row.decision_status == ("promoted" if row.is_promoted else "not promoted")
    llama = rows[(rows.spec_id == TRIAGE_SPEC_ID) & (rows.model_id == "meta-llama/Llama-3.1-8B-Instruct")]
    before, last = (row for _, row in llama.sort_values("week_start").tail(2).iterrows())
    assert (bool(last.is_promoted), round(last.composite_score, 4)) == (True, 0.8125)
    assert (bool(before.is_promoted), round(before.composite_score, 2)) == (False, 0.77)
    assert last.is_within_noise == True and before.is_within_noise == True  # noqa: E712 (NA would fail too)
    assert rows.is_within_noise.eq(False).any(), "no composite clear of its threshold: the flag proves nothing"


def test_the_weekly_summary_counts_specs_without_a_threshold_apart(demo_warehouse):
    """rpt_weekly_promotions: the basic-math spec sets no threshold; its 4 rows a week are never decisions."""
    decisions = demo_warehouse.frame(
        "select week_start, spec_id, decision_status, is_within_noise, n_failing_components "
        "from marts.fct_promotion_decisions")
    summary = demo_warehouse.frame("select * from marts.rpt_weekly_promotions order by week_start")
    assert list(summary.week_start) == sorted(decisions.week_start.unique())
    for row in summary.itertuples():
        week = decisions[decisions.week_start == row.week_start]
        status = week.decision_status.value_counts()
        decided = week[week.decision_status.isin(["promoted", "not promoted"])]
        assert (row.n_rows, row.n_promoted, row.n_not_promoted, row.n_no_composite, row.n_no_threshold) == (
            len(week), status.get("promoted", 0), status.get("not promoted", 0), status.get("no composite", 0),
            status.get("no threshold", 0))
        assert row.n_decided == len(decided) == 8
        assert row.n_decided_within_noise == int(
            (decided.is_within_noise.eq(True) & decided.n_failing_components.eq(0)).sum())
        assert (row.n_no_threshold, row.n_specs, row.n_specs_without_threshold) == (4, 3, 1)
        assert set(week[week.decision_status == "no threshold"].spec_id) == {MATH_SPEC_ID}


def test_a_gate_at_the_end_of_its_scale_is_never_within_noise_and_an_inner_one_can_be(demo_warehouse):
    """The demo's json_validity gate asks for a rate of 1: the interval of every perfect week reaches 1, so reading it
    as 'within noise' would flag every pass of a no-failure rule. Inner thresholds still are flagged."""
    rows = demo_warehouse.frame(
        "select normalized_threshold, ci_low, ci_high, is_within_noise from marts.fct_spec_scores_weekly "
        "where meets_threshold is not null and ci_low is not null")
    at_end = rows[(rows.normalized_threshold >= 1 - 1e-9) | (rows.normalized_threshold <= 1e-9)]
    assert len(at_end) > 0 and not at_end.is_within_noise.any()
    inner = rows[(rows.normalized_threshold > 1e-9) & (rows.normalized_threshold < 1 - 1e-9)]
    inside = (inner.normalized_threshold >= inner.ci_low - 1e-9) & (inner.normalized_threshold <= inner.ci_high + 1e-9)
    assert inside.any() and (inner.is_within_noise == inside).all()
