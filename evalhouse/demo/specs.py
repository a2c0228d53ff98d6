"""Eval specs and their results: the draft standard's three inline examples, a richer draft-standard spec with a
composite, the ADP acme suite, and instance-level results (Every Eval Ever 0.3.0) for the demo models every week.

The story (docs/specs.md):
- eval_basic_math_v1 (the draft's own example) has no config.aggregation: rubric-level scores only, no composite.
  Its harness compared answers case- and whitespace-sensitively in a few records, against the rubric's params:
  REPORTING_SLIPS lists them, and the warehouse's recomputed exact-match score disagrees with exactly those.
- support_triage_v1 weighs three rubrics (exact_match, regex_match, a 1-5 LLM judge) 0.5 / 0.2 / 0.3 with a
  promotion threshold of 0.8: openai/gpt-4.1-mini is promoted every week, acme/chat-7b never is.
- acme_groundedness_suite (ADP): only openai/gpt-4.1-mini is promoted, and only it stays within the 2500 ms p95
  latency budget every week; each other model misses a metric's own threshold every week whatever its composite
  (chat-13b its latency budget; Llama-3.1-8B, within budget in 3 of 8 weeks, its latency or groundedness; chat-7b,
  within budget in 1, groundedness and JSON validity).

Every run (one evaluation_name, one model, one week) gets an aggregate record reporting its accuracy: the run's week
comes from it, so a week's results land in that week. An acme result's evaluation_name is suite/metric, so each
metric is an eval of its own in the trial marts (pass@k per metric); the spec marts link it by metadata.
"""

from __future__ import annotations

import math
import random
import re
import statistics
from dataclasses import dataclass
from datetime import timedelta

from evalhouse.demo.serialize import json_document, json_line, jsonl_bytes
from evalhouse.demo.timeline import Clock, Week, unix_seconds
from evalhouse.demo.world import MODELS, Model

SPEC_RESULTS_DAY = 4  # specs run on Fridays (the harness evals run Tuesday to Thursday)
EVAL_LIBRARY = {"name": "evalhouse-spec-runner", "version": "0.1.0"}

# --- the draft standard's inline examples (clause 5.2 to 5.4), as reference/ieee_draft/inline_examples.json -------

MATH_DATASET = {
    "schema_version": "1.0",
    "type": "dataset",
    "id": "math_arith_v1",
    "name": "Basic Arithmetic QA",
    "description": "Simple addition and subtraction questions.",
    "version": "1.0",
    "license": "CC-BY-SA-4.0",
    "author": {"name": "Alice Example", "contact": "alice@example.com"},
    "examples": [
        {"input": "1 + 1 = ?", "expected_output": ["2", "two"],
         "metadata": {"category": "addition", "difficulty": "easy"}},
        {"input": "5 - 3 = ?", "expected_output": "2", "metadata": {"category": "subtraction", "difficulty": "easy"}},
    ],
}
MATH_RUBRIC = {
    "schema_version": "1.0",
    "type": "rubric",
    "id": "exact_match",
    "name": "Exact Match",
    "description": "Checks if the model output exactly matches the expected output string (case-insensitive, "
                   "trimming whitespace).",
    "metric": "exact_match",
    "params": {"case_sensitive": False, "trim_whitespace": True},
    "score_type": "binary",
}
MATH_EVALUATION = {
    "schema_version": "1.0",
    "type": "evaluation",
    "id": "eval_basic_math_v1",
    "name": "Basic Math Skills Evaluation",
    "description": "Evaluates basic addition and subtraction using an exact match rubric.",
    "dataset_id": "math_arith_v1",
    "rubric_ids": ["exact_match"],
    "metrics": ["Accuracy"],
    "primary_metric": "Accuracy",
    "config": {"max_samples": 3, "model_parameters": {"temperature": 0.0}},
}
MATH_SPEC_ID = MATH_EVALUATION["id"]

# Each model's answers to the two questions (sample ids "0" and "1", their 0-based positions). Llama spells the
# first one out; acme/chat-7b pads its answer with whitespace and gets the second one wrong.
MATH_OUTPUTS: dict[str, tuple[str, str]] = {
    "acme/chat-7b": (" 2\n", "3"),
    "acme/chat-13b": ("2", "2"),
    "openai/gpt-4.1-mini-2025-04-14": ("2", "2"),
    "meta-llama/Llama-3.1-8B-Instruct": ("Two", "2"),
}
# (model, week index, sample id): records whose harness compared case- and whitespace-sensitively, so the score it
# reported (0) disagrees with the rubric (case-insensitive, trimmed: 1). The warehouse finds exactly these.
REPORTING_SLIPS: frozenset[tuple[str, int, str]] = frozenset({
    ("meta-llama/Llama-3.1-8B-Instruct", 2, "0"),
    ("meta-llama/Llama-3.1-8B-Instruct", 5, "0"),
    ("acme/chat-7b", 5, "0"),
})

# --- a richer draft-standard spec: three rubrics and a composite ---------------------------------------------------

TRIAGE_SPEC_ID = "support_triage_v1"
TRIAGE_LABELS = ("billing", "shipping", "returns", "account", "technical")
TRIAGE_TICKETS: tuple[tuple[str, str, str], ...] = (
    ("T-101", "I was charged twice for my order last week.", "billing"),
    ("T-102", "My parcel has been stuck in transit for nine days.", "shipping"),
    ("T-103", "How do I send back a jacket that does not fit?", "returns"),
    ("T-104", "I cannot log in since I changed my email address.", "account"),
    ("T-105", "The app crashes when I open my order history.", "technical"),
    ("T-106", "Why is there a currency conversion fee on my invoice?", "billing"),
    ("T-107", "The courier left my package at the wrong address.", "shipping"),
    ("T-108", "The refund for my returned shoes has not arrived.", "returns"),
    ("T-109", "Please delete my account and my data.", "account"),
    ("T-110", "Checkout fails with error 502 on the payment page.", "technical"),
    ("T-111", "Can I get a receipt with my company's VAT number?", "billing"),
    ("T-112", "Do you ship to the Canary Islands?", "shipping"),
)
TRIAGE_WEIGHTS = {"label_accuracy": 0.5, "triage_rationale": 0.3, "label_format": 0.2}
TRIAGE_PROMOTION_THRESHOLD = 0.8
TRIAGE_LABEL_PATTERN = "^(" + "|".join(TRIAGE_LABELS) + ")$"
TRIAGE_DATASET = {
    "schema_version": "1.0",
    "type": "dataset",
    "id": "support_tickets_v1",
    "name": "Support ticket triage",
    "description": "Customer messages and the queue each belongs to.",
    "version": "1.0",
    "license": "CC-BY-4.0",
    "author": "evalhouse demo",
    "examples": [{"input": text, "expected_output": label, "metadata": {"id": ticket_id}}
                 for ticket_id, text, label in TRIAGE_TICKETS],
}
TRIAGE_RUBRICS = [
    {
        "schema_version": "1.0", "type": "rubric", "id": "label_accuracy", "name": "Label accuracy",
        "description": "The predicted queue equals the expected one, ignoring case and surrounding whitespace.",
        "version": "1.0", "metric": "exact_match", "params": {"case_sensitive": False, "trim_whitespace": True},
        "score_type": "binary",
    },
    {
        "schema_version": "1.0", "type": "rubric", "id": "label_format", "name": "Label format",
        "description": "The answer is exactly one queue name in lower case, as the router needs it.",
        "version": "1.0", "metric": "regex_match",
        "params": {"pattern": TRIAGE_LABEL_PATTERN, "case_sensitive": True, "trim_whitespace": True},
        "score_type": "binary",
    },
    {
        "schema_version": "1.0", "type": "rubric", "id": "triage_rationale", "name": "Triage rationale",
        "description": "An LLM judge rates the one-line rationale from 1 (wrong or missing) to 5 (precise).",
        "version": "1.0", "metric": "llm_judge", "params": {"min_score": 1, "max_score": 5},
        "score_type": "numeric",
        "prompt_template": "Rate from 1 to 5 how well this rationale justifies routing the ticket to {label}: {output}",
    },
]
TRIAGE_EVALUATION = {
    "schema_version": "1.0",
    "type": "evaluation",
    "id": TRIAGE_SPEC_ID,
    "name": "Support ticket triage",
    "description": "Routes customer messages to queues: right queue, router-readable label, sound rationale.",
    "version": "1.0",
    "dataset_id": "support_tickets_v1",
    "rubric_ids": list(TRIAGE_WEIGHTS),
    "metrics": ["Label accuracy", "Label format", "Rationale"],
    "primary_metric": "Label accuracy",
    "config": {
        "model_parameters": {"temperature": 0.0},
        "aggregation": {
            "method": "weighted_mean",
            "weights": TRIAGE_WEIGHTS,
            "thresholds": {"label_accuracy": 0.75},
            "promotion_threshold": TRIAGE_PROMOTION_THRESHOLD,
            "description": "Weighted mean of the normalised rubric scores, as in Annex B; a model is promoted at "
                           "0.8 or more when label accuracy is at least 0.75.",
        },
    },
}


@dataclass(frozen=True)
class TriageSkill:
    wrong_labels: int  # tickets routed to the wrong queue each week (of 12), give or take one
    capitalised: int  # right or wrong, answers written "Billing" rather than "billing"
    rationale_mean: float  # the judge's mean 1-5 score


TRIAGE_SKILL: dict[str, TriageSkill] = {
    "acme/chat-7b": TriageSkill(4, 3, 3.0),
    "acme/chat-13b": TriageSkill(2, 1, 3.8),
    "openai/gpt-4.1-mini-2025-04-14": TriageSkill(0, 0, 4.6),
    "meta-llama/Llama-3.1-8B-Instruct": TriageSkill(2, 2, 3.6),
}
TRIAGE_ALWAYS_PROMOTED = "openai/gpt-4.1-mini-2025-04-14"
TRIAGE_NEVER_PROMOTED = "acme/chat-7b"

# --- the ADP acme suite: the example the ADP spec names, verbatim ----------------------------------------------

# Copied from github.com/casabre/agent-definition-protocol 624f0e2, examples/evaluation/acme-eval-suite.yaml
# (Apache-2.0), byte for byte.
ACME_SUITE_YAML = """suites:
  - id: "acme_groundedness_suite"
    description: "Ensure ACME agent responses are grounded."
    metrics:
      - id: "json_validity"
        type: "deterministic"
        function: "json_schema"
        schema_path: "schemas/acme-output.json"
        threshold: 1.0
      - id: "groundedness"
        type: "llm_judge"
        model: "gpt-4.2"
        system_prompt: |
          You are an evaluator judging groundedness of ACME agent answers...
        rubric:
          - criterion: "Evidence-based reasoning"
            scale: "1-5"
        scoring: "average"
        threshold: 4.0
      - id: "latency"
        type: "telemetry"
        metric: "p95_latency_ms"
        max_ms: 2500
    scoring:
      combine: "weighted_average"
      weights:
        json_validity: 0.3
        groundedness: 0.5
        latency: 0.2
    promotion_threshold: 0.85
"""
ACME_SUITE_ID = "acme_groundedness_suite"
ACME_METRICS = ("json_validity", "groundedness", "latency")
ACME_REQUESTS = 10
ACME_LATENCY_BUDGET_MS = 2500.0
ACME_QUESTIONS = (
    "What is the p95 latency for service api?", "Which service had the most 5xx errors yesterday?",
    "How many requests did checkout serve last hour?", "Is the error budget of search exhausted?",
    "What changed in the latency of the payments service this week?", "Which region is slowest for login?",
    "How much CPU does the recommender use at peak?", "When did the last deployment of api happen?",
    "What is the cache hit rate of the catalogue?", "Which endpoints breach their SLO today?",
)


@dataclass(frozen=True)
class AgentSkill:
    invalid_json: int  # responses per week that fail the JSON schema (of 10)
    groundedness_mean: float  # the judge's mean 1-5 score
    latency_factor: float  # multiplies the model's usual single-turn latency


ACME_SKILL: dict[str, AgentSkill] = {
    "acme/chat-7b": AgentSkill(1, 3.4, 1.0),
    "acme/chat-13b": AgentSkill(0, 4.3, 1.0),
    "openai/gpt-4.1-mini-2025-04-14": AgentSkill(0, 4.6, 1.0),
    "meta-llama/Llama-3.1-8B-Instruct": AgentSkill(0, 3.9, 1.0),
}
ACME_PROMOTED = "openai/gpt-4.1-mini-2025-04-14"


# --- generation ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SpecsOutput:
    files: tuple[tuple[str, bytes], ...]
    record_counts: dict[str, int]  # valid records per format


def generate_specs(weeks: tuple[Week, ...], clock: Clock, seed: int) -> SpecsOutput:
    """The spec documents, the acme suite, and each week's results with one aggregate per (spec, model) run."""
    files: list[tuple[str, bytes]] = [
        ("specs/ieee_draft/inline_examples.json",
         json_document([MATH_DATASET, MATH_RUBRIC, MATH_EVALUATION]).encode("utf-8")),
        ("specs/ieee_draft/support_triage.json",
         json_document([TRIAGE_DATASET, *TRIAGE_RUBRICS, TRIAGE_EVALUATION]).encode("utf-8")),
        ("specs/adp/acme-eval-suite.yaml", ACME_SUITE_YAML.encode("utf-8")),
    ]
    n_instances = n_aggregates = 0
    for week in weeks:
        rows: list[dict] = []
        aggregates: list[dict] = []
        for model in MODELS:
            rng = random.Random(f"{seed}:specs:{week.index}:{model.id}")
            started = clock.moment(week.day(SPEC_RESULTS_DAY), rng)
            acme_rows = _acme_rows(model, rng)
            # One run per evaluation_name: the math spec, the triage spec, and each acme metric.
            for run_name, run_rows in (
                (MATH_SPEC_ID, _math_rows(model, week)),
                (TRIAGE_SPEC_ID, _triage_rows(model, week, rng)),
                *((f"{ACME_SUITE_ID}/{metric}", [r for r in acme_rows if r.metadata["metric_id"] == metric])
                  for metric in ACME_METRICS),
            ):
                run = _Run(run_name, model, started, rng)
                rows += [run.instance(row) for row in run_rows]
                aggregates.append(run.aggregate(run_rows))
                started += timedelta(minutes=rng.randint(4, 11))
        files.append((f"specs/results/spec_results_{week.label}.jsonl", jsonl_bytes([json_line(r) for r in rows])))
        files.append((f"specs/results/spec_runs_{week.label}.json", json_document(aggregates).encode("utf-8")))
        n_instances += len(rows)
        n_aggregates += len(aggregates)
    counts = {"ieee_dataset": 2, "ieee_rubric": 1 + len(TRIAGE_RUBRICS), "ieee_evaluation": 2, "adp_suite": 1,
              "eee_aggregate": n_aggregates, "eee_instance": n_instances}
    return SpecsOutput(tuple(files), counts)


@dataclass(frozen=True)
class _Row:
    """One result before it is dressed as an instance record."""

    evaluation_name: str
    sample_id: str
    question: str
    reference: tuple[str, ...]
    output: str
    score: float
    is_correct: bool
    metadata: dict[str, str]
    latency_ms: float | None = None


def _math_rows(model: Model, week: Week) -> list[_Row]:
    rows = []
    for index, example in enumerate(MATH_DATASET["examples"]):
        sample_id = str(index)
        accepted = example["expected_output"]
        accepted = [accepted] if isinstance(accepted, str) else accepted
        output = MATH_OUTPUTS[model.id][index]
        correct = output.strip().lower() in [a.lower() for a in accepted]  # the rubric: case-insensitive, trimmed
        if (model.id, week.index, sample_id) in REPORTING_SLIPS:
            correct = False  # that week's harness compared the raw strings
        rows.append(_Row(MATH_SPEC_ID, sample_id, example["input"], tuple(accepted), output, float(correct),
                         correct, {"rubric_id": "exact_match"}))
    return rows


def _triage_rows(model: Model, week: Week, rng: random.Random) -> list[_Row]:
    skill = TRIAGE_SKILL[model.id]
    n = len(TRIAGE_TICKETS)
    n_wrong = max(0, min(n, skill.wrong_labels + rng.choice((-1, 0, 0, 1)) * (skill.wrong_labels > 0)))
    wrong = set(rng.sample(range(n), n_wrong))
    capitalised = set(rng.sample(range(n), skill.capitalised))
    rows = []
    for index, (ticket_id, text, label) in enumerate(TRIAGE_TICKETS):
        predicted = rng.choice([x for x in TRIAGE_LABELS if x != label]) if index in wrong else label
        output = predicted.capitalize() if index in capitalised else predicted
        accurate = output.strip().lower() == label
        well_formed = re.search(TRIAGE_LABEL_PATTERN, output.strip()) is not None
        rationale = _judge_score(rng, skill.rationale_mean - (1.2 if index in wrong else 0.0))
        common = dict(sample_id=ticket_id, question=text, reference=(label,), output=output)
        rows += [
            _Row(TRIAGE_SPEC_ID, score=float(accurate), is_correct=accurate,
                 metadata={"rubric_id": "label_accuracy"}, **common),
            _Row(TRIAGE_SPEC_ID, score=float(well_formed), is_correct=well_formed,
                 metadata={"rubric_id": "label_format"}, **common),
            _Row(TRIAGE_SPEC_ID, score=float(rationale), is_correct=rationale >= 4,
                 metadata={"rubric_id": "triage_rationale"}, **common),
        ]
    return rows


def _acme_rows(model: Model, rng: random.Random) -> list[_Row]:
    skill = ACME_SKILL[model.id]
    invalid = set(rng.sample(range(ACME_REQUESTS), skill.invalid_json))
    usual_ms = model.base_latency_ms + model.output_tokens * model.ms_per_token
    rows = []
    for index, question in enumerate(ACME_QUESTIONS[:ACME_REQUESTS]):
        sample_id = f"acme-req-{index + 1:02d}"
        valid = index not in invalid
        answer = ('{"answer": "see dashboard", "sources": ["otel://metrics"]}' if valid
                  else "The p95 latency is about 300 ms.")
        grounded = _judge_score(rng, skill.groundedness_mean)
        latency = round(usual_ms * skill.latency_factor * rng.lognormvariate(0.0, 0.18), 1)
        for metric_id, score, ok in (
            ("json_validity", float(valid), valid),
            ("groundedness", float(grounded), grounded >= 4),
            ("latency", float(latency <= ACME_LATENCY_BUDGET_MS), latency <= ACME_LATENCY_BUDGET_MS),
        ):
            rows.append(_Row(f"{ACME_SUITE_ID}/{metric_id}", sample_id, question, (), answer, score, ok,
                             {"suite_id": ACME_SUITE_ID, "metric_id": metric_id}, latency_ms=latency))
    return rows


def _judge_score(rng: random.Random, mean: float) -> int:
    return max(1, min(5, round(rng.gauss(mean, 0.7))))


class _Run:
    """One run of one spec for one model: its ids, its instance records and its aggregate."""

    def __init__(self, evaluation_name: str, model: Model, started, rng: random.Random) -> None:
        self.evaluation_name, self.model, self.started = evaluation_name, model, started
        self.retrieved = started + timedelta(minutes=rng.randint(2, 6), microseconds=rng.randrange(1_000_000))
        self.evaluation_id = f"{evaluation_name}/{model.slug}/{unix_seconds(started)}"
        self.result_id = f"{self.evaluation_id}#accuracy"

    def instance(self, row: _Row) -> dict:
        return {
            "schema_version": "0.3.0",
            "evaluation_id": self.evaluation_id,
            "model_id": self.model.id,
            "evaluation_name": row.evaluation_name,
            "evaluation_result_id": self.result_id,
            "sample_id": row.sample_id,
            "interaction_type": "single_turn",
            "input": {"raw": row.question, "reference": list(row.reference)},
            "output": {"raw": [row.output]},
            "answer_attribution": [{"turn_idx": 0, "source": "output.raw", "extracted_value": row.output.strip(),
                                    "extraction_method": "exact_match", "is_terminal": True}],
            "evaluation": {"score": row.score, "is_correct": row.is_correct},
            "performance": {"latency_ms": row.latency_ms} if row.latency_ms is not None else None,
            # Metadata values are strings from 0.2.1 on.
            "metadata": {**row.metadata, "trial": "1"},
        }

    def aggregate(self, rows: list[_Row]) -> dict:
        """What the runner reports: accuracy (is_correct), each sample's trials averaged first."""
        samples: dict[str, list[bool]] = {}
        for row in rows:
            samples.setdefault(row.sample_id, []).append(row.is_correct)
        means = [sum(v) / len(v) for v in samples.values()]
        result = {
            "evaluation_result_id": self.result_id,
            "evaluation_name": self.evaluation_name,
            "source_data": {"dataset_name": self.evaluation_name.split("/")[0], "source_type": "other"},
            "evaluation_timestamp": f"{unix_seconds(self.started)}.0",
            "metric_config": {"evaluation_description": "accuracy", "metric_id": "accuracy", "metric_name": "Accuracy",
                              "metric_kind": "accuracy", "metric_unit": "proportion", "lower_is_better": False,
                              "score_type": "continuous", "min_score": 0.0, "max_score": 1.0},
            "score_details": {
                "score": statistics.fmean(means),
                "uncertainty": {
                    "standard_error": {"value": statistics.stdev(means) / math.sqrt(len(means)),
                                       "method": "over samples: trials averaged first"},
                    "num_samples": len(means),
                },
            },
        }
        return {
            "schema_version": "0.3.0",
            "evaluation_id": self.evaluation_id,
            "evaluation_timestamp": f"{unix_seconds(self.started)}.0",
            "retrieved_timestamp": f"{self.retrieved.timestamp():.6f}",
            "source_metadata": {"source_name": "evalhouse spec runner", "source_type": "evaluation_run",
                                "source_organization_name": "evalhouse demo lab",
                                "evaluator_relationship": "first_party" if self.model.developer == "acme"
                                else "third_party"},
            "eval_library": dict(EVAL_LIBRARY),
            "model_info": {"name": self.model.name, "id": self.model.id, "developer": self.model.developer,
                           "additional_details": {"deployment_type": self.model.deployment_type,
                                                  "model_availability": self.model.model_availability}},
            "evaluation_results": [result],
        }
