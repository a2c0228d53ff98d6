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
import pytest
import yaml
from jsonschema.validators import validator_for

from evalhouse.demo.specs import (
    ACME_PROMOTED, ACME_SUITE_ID, ACME_SUITE_YAML, MATH_DATASET, MATH_EVALUATION, MATH_RUBRIC, MATH_SPEC_ID,
    REPORTING_SLIPS, TRIAGE_ALWAYS_PROMOTED, TRIAGE_NEVER_PROMOTED, TRIAGE_SPEC_ID,
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


def test_spec_record_counts_are_those_written(demo_dir):
    from evalhouse.demo.generate import generate_demo

    summary = generate_demo(demo_dir.parent / "again", end_date=date.fromisoformat(DEMO_END_DATE))
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
