"""Harness results in Every Eval Ever form: one run per (model, eval, week), its instance file and its aggregate.

The story: each model has a fixed skill per eval, each sample a fixed difficulty, and trials are Bernoulli.
Trials reuse most of last week's random draws (common random numbers), so week-over-week changes mostly
come from changes in skill, not noise: the one real change is REGRESSING_MODEL on REGRESSING_EVAL in the
last week.
"""

from __future__ import annotations

import math
import random
import statistics
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from evalhouse.demo.eee_records import RunIds, instance_row
from evalhouse.demo.eee_transcripts import Trial, single_turn_trial, tau_trial
from evalhouse.demo.harness_samples import Sample, build_samples, sigmoid
from evalhouse.demo.serialize import json_document, json_line, jsonl_bytes, sha256_hex
from evalhouse.demo.timeline import Clock, Week, unix_seconds
from evalhouse.demo.world import (
    EVALS, MODELS, REGRESSING_EVAL, REGRESSING_MODEL, REGRESSION_DROP, SCHEMA_VERSIONS, HarnessEval, Model,
)

# Share of last week's uniform draws that are redrawn each week: the rest are reused.
REFRESH_SHARE = 0.3
INSPECT_VERSION = "0.3.140"
TAU_TOOLS = ("find_user_id_by_name_zip", "get_order_details", "cancel_pending_order", "return_delivered_order_items",
             "exchange_delivered_order_items", "modify_pending_order_address", "transfer_to_human_agents")


@dataclass(frozen=True)
class Run:
    """One eval run of one model in one week, and every name the files derive from it."""

    week: Week
    model: Model
    harness_eval: HarnessEval
    schema_version: str
    started: datetime
    retrieved: datetime
    file_uuid: str

    @property
    def timestamp(self) -> int:
        return unix_seconds(self.started)

    @property
    def aggregate_evaluation_id(self) -> str:
        return f"{self.harness_eval.key}/{self.model.slug}/{self.timestamp}.0"

    @property
    def instance_file_name(self) -> str:
        return f"{self.harness_eval.key}_{self.model.slug}_{self.timestamp}.jsonl"

    @property
    def evaluation_result_id(self) -> str:
        return f"{self.aggregate_evaluation_id}#accuracy"

    def row_ids(self) -> RunIds:
        legacy = self.schema_version == "0.2.0"
        return RunIds(
            schema_version=self.schema_version,
            # The 0.2.0 converter writes a different id on instance rows than in the aggregate.
            evaluation_id=(f"{self.harness_eval.key}_{self.model.slug}_{self.timestamp}" if legacy
                           else self.aggregate_evaluation_id),
            model_id=self.model.id,
            # ...and names the eval after the dataset repo rather than the aggregate's scorer.
            evaluation_name=self.harness_eval.hf_repo if legacy else self.harness_eval.key,
            interaction_type=self.harness_eval.interaction_type,
            evaluation_result_id=None if legacy else self.evaluation_result_id,
        )


@dataclass(frozen=True)
class EeeOutput:
    files: tuple[tuple[str, bytes], ...]
    n_aggregates: int
    n_instances: int
    # (model, eval, week index) -> accuracy over all trials, for the summary and the tests.
    accuracy: tuple[tuple[tuple[str, str, int], float], ...]


def generate_eee(weeks: tuple[Week, ...], clock: Clock, seed: int) -> EeeOutput:
    """All runs, week by week, so each (model, eval) can carry its random draws into the next week."""
    samples = {ev.key: build_samples(ev, random.Random(f"{seed}:eee:samples:{ev.key}")) for ev in EVALS}
    draws: dict[tuple[str, str], dict[tuple[int, int], float]] = {}
    files: list[tuple[str, bytes]] = []
    accuracy: list[tuple[tuple[str, str, int], float]] = []
    n_instances = 0
    for week in weeks:
        for model_index, model in enumerate(MODELS):
            for eval_index, harness_eval in enumerate(EVALS):
                rng = random.Random(f"{seed}:eee:{week.index}:{model.id}:{harness_eval.key}")
                run = _plan_run(week, model, harness_eval, model_index + eval_index, clock, rng)
                uniforms = _carry_draws(draws.setdefault((model.id, harness_eval.key), {}),
                                        samples[harness_eval.key], harness_eval.n_trials, rng)
                skill = _skill(model, harness_eval, week, len(weeks), samples[harness_eval.key], uniforms)
                trials = _run_trials(run, samples[harness_eval.key], skill, uniforms, rng)
                instance_bytes = jsonl_bytes([json_line(instance_row(run.row_ids(), s, t)) for s, t in trials])
                aggregate = _aggregate(run, samples[harness_eval.key], trials, instance_bytes)
                files.append((f"eee/instances/{run.instance_file_name}", instance_bytes))
                files.append((f"eee/aggregates/{run.file_uuid}.json", json_document(aggregate).encode("utf-8")))
                n_instances += len(trials)
                accuracy.append(((model.id, harness_eval.key, week.index), _mean([t.correct for _, t in trials])))
    return EeeOutput(tuple(files), len(files) // 2, n_instances, tuple(accuracy))


def _plan_run(week: Week, model: Model, harness_eval: HarnessEval, rotation: int, clock: Clock,
              rng: random.Random) -> Run:
    """When the run happened and which schema version its converter wrote: versions rotate across runs."""
    eval_index = [e.key for e in EVALS].index(harness_eval.key)
    started = clock.moment(week.day(1 + eval_index), rng)
    retrieved = started + timedelta(minutes=rng.randint(3, 9), microseconds=rng.randrange(1_000_000))
    return Run(
        week=week, model=model, harness_eval=harness_eval,
        schema_version=SCHEMA_VERSIONS[(week.index + rotation) % len(SCHEMA_VERSIONS)],
        started=started, retrieved=retrieved, file_uuid=str(uuid.UUID(int=rng.getrandbits(128), version=4)),
    )


def _skill(model: Model, harness_eval: HarnessEval, week: Week, n_weeks: int, samples: tuple[Sample, ...],
           uniforms: dict[tuple[int, int], float]) -> float:
    skill = model.skill_on(harness_eval.key)
    if model.id == REGRESSING_MODEL and harness_eval.key == REGRESSING_EVAL and week.index == n_weeks - 1:
        skill -= regression_shift(skill, samples, uniforms, REGRESSION_DROP)
    return skill


def regression_shift(skill: float, samples: tuple[Sample, ...], uniforms: dict[tuple[int, int], float],
                     drop: float) -> float:
    """The smallest skill loss that costs `drop` of this week's trials, on this week's own draws (bisection).

    Solving on the realised draws rather than on expected accuracy makes the regression the same size for
    every seed: the unshifted model would have passed exactly that many more trials.
    """
    def passes(s: float) -> int:
        return sum(u < sigmoid(s - samples_by_id[sample_id].difficulty) for (sample_id, _), u in uniforms.items())

    samples_by_id = {s.sample_id: s for s in samples}
    target = passes(skill) - round(drop * len(uniforms))
    low, high = 0.0, 20.0
    for _ in range(60):
        mid = (low + high) / 2
        if passes(skill - mid) > target:
            low = mid
        else:
            high = mid
    return high


def _carry_draws(previous: dict[tuple[int, int], float], samples: tuple[Sample, ...], n_trials: int,
                 rng: random.Random) -> dict[tuple[int, int], float]:
    """This week's uniform per (sample, trial): a fresh draw for REFRESH_SHARE of them, last week's for the rest."""
    for sample in samples:
        for trial in range(1, n_trials + 1):
            key = (sample.sample_id, trial)
            if key not in previous or rng.random() < REFRESH_SHARE:
                previous[key] = rng.random()
    return dict(previous)


def _run_trials(run: Run, samples: tuple[Sample, ...], skill: float, uniforms: dict[tuple[int, int], float],
                rng: random.Random) -> list[tuple[Sample, Trial]]:
    """Every trial of every sample, sample-major as Inspect lists them."""
    out = []
    for sample in samples:
        p_success = sigmoid(skill - sample.difficulty)
        for number in range(1, run.harness_eval.n_trials + 1):
            correct = uniforms[(sample.sample_id, number)] < p_success
            if run.harness_eval.interaction_type == "agentic":
                trial = tau_trial(number, correct, sample, run.model, rng)
            else:
                trial = single_turn_trial(number, correct, sample, run.harness_eval, run.model, rng)
            out.append((sample, trial))
    return out


def _aggregate(run: Run, samples: tuple[Sample, ...], trials: list[tuple[Sample, Trial]],
               instance_bytes: bytes) -> dict:
    """The run's aggregate document; its score and errors treat the sample (not the trial) as the unit."""
    per_sample: dict[int, list[bool]] = {}
    for sample, trial in trials:
        per_sample.setdefault(sample.sample_id, []).append(trial.correct)
    sample_means = [_mean(v) for _, v in sorted(per_sample.items())]
    score = _mean(sample_means)
    sd = statistics.stdev(sample_means)
    se = sd / math.sqrt(len(sample_means))
    lower, upper = max(0.0, score - 1.96 * se), min(1.0, score + 1.96 * se)
    builder = _aggregate_020 if run.schema_version == "0.2.0" else _aggregate_strict
    doc = builder(run, samples, score, se, sd, lower, upper)
    doc["detailed_evaluation_results"] = {
        "format": "jsonl",
        "file_path": _instance_file_path(run),
        "hash_algorithm": "sha256",
        "checksum": sha256_hex(instance_bytes),
        "total_rows": len(trials),
    }
    return doc


def _instance_file_path(run: Run) -> str:
    # 0.3.0 requires its canonical repository path (data/<eval>/<developer>/<model>/<uuid>_samples.jsonl);
    # earlier versions carry the converter's instance_level_data/<file name>. Link by checksum either way.
    if run.schema_version == "0.3.0":
        model_name = run.model.id.split("/", 1)[1]
        return f"data/{run.harness_eval.key}/{run.model.developer}/{model_name}/{run.file_uuid}_samples.jsonl"
    return f"instance_level_data/{run.instance_file_name}"


def _aggregate_020(run: Run, samples: tuple[Sample, ...], score: float, se: float, sd: float, lower: float,
                   upper: float) -> dict:
    """Shaped like the Inspect converter's 0.2.0 output (examples/9563d156-...json), quirks included."""
    return {
        "schema_version": "0.2.0",
        "evaluation_id": run.aggregate_evaluation_id,
        "evaluation_timestamp": f"{run.timestamp}.0",
        "retrieved_timestamp": f"{run.retrieved.timestamp():.6f}",
        "source_metadata": {
            "source_name": "inspect_ai",
            "source_type": "evaluation_run",
            "source_organization_name": "unknown",
            "evaluator_relationship": "third_party",
        },
        "model_info": {"name": run.model.name, "id": run.model.id, "developer": run.model.developer,
                       **_engine(run.model)},
        "evaluation_results": [{
            "evaluation_name": run.harness_eval.scorer,
            "source_data": {
                "source_type": "hf_dataset",
                "dataset_name": run.harness_eval.key,
                "hf_repo": run.harness_eval.hf_repo,
                "samples_number": len(samples),
                "sample_ids": [s.sample_id for s in samples],
                "additional_details": {"shuffled": False},
            },
            "evaluation_timestamp": f"{run.timestamp}.0",
            "metric_config": _metric_config(strict=False),
            # The converter puts the interval straight under score_details (the schema's place is uncertainty).
            "score_details": {
                "score": score,
                "confidence_interval": {"lower": lower, "upper": upper},
                "uncertainty": {"standard_error": {"value": se, "method": "clustered by sample"},
                                "num_samples": len(samples)},
            },
            "generation_config": {
                "generation_args": {
                    "reasoning": False,
                    "agentic_eval_config": {"available_tools": _tools(run.harness_eval, strict=False)},
                    "eval_plan": {"name": "plan", "steps": [{"solver": _solver(run.harness_eval), "params": {},
                                                             "params_passed": {}}], "config": {}},
                    "eval_limits": {},
                    "sandbox": {},
                },
                "additional_details": {"epochs": run.harness_eval.n_trials},
            },
        }],
    }


def _aggregate_strict(run: Run, samples: tuple[Sample, ...], score: float, se: float, sd: float, lower: float,
                      upper: float) -> dict:
    """A 0.2.2 / 0.3.0 aggregate, valid against its published schema."""
    return {
        "schema_version": run.schema_version,
        "evaluation_id": run.aggregate_evaluation_id,
        "evaluation_timestamp": f"{run.timestamp}.0",
        "retrieved_timestamp": f"{run.retrieved.timestamp():.6f}",
        "source_metadata": {
            "source_name": "inspect_ai",
            "source_type": "evaluation_run",
            "source_organization_name": "evalhouse demo lab",
            "evaluator_relationship": "first_party" if run.model.developer == "acme" else "third_party",
        },
        "eval_library": {"name": "inspect_ai", "version": INSPECT_VERSION},
        "model_info": {
            "name": run.model.name, "id": run.model.id, "developer": run.model.developer, **_engine(run.model),
            "additional_details": {"deployment_type": run.model.deployment_type,
                                   "model_availability": run.model.model_availability},
        },
        "evaluation_results": [{
            "evaluation_result_id": run.evaluation_result_id,
            "evaluation_name": run.harness_eval.key,
            "source_data": {
                "dataset_name": run.harness_eval.key,
                "source_type": "hf_dataset",
                "hf_repo": run.harness_eval.hf_repo,
                "hf_split": "test",
                "samples_number": len(samples),
                "sample_ids": [str(s.sample_id) for s in samples],
            },
            "evaluation_timestamp": f"{run.timestamp}.0",
            "metric_config": _metric_config(strict=True),
            "score_details": {
                "score": score,
                "uncertainty": {
                    "standard_error": {"value": se, "method": "clustered by sample: trials averaged first"},
                    "confidence_interval": {"lower": lower, "upper": upper, "confidence_level": 0.95,
                                            "method": "normal approximation"},
                    "standard_deviation": sd,
                    "num_samples": len(samples),
                },
            },
            "generation_config": {
                "generation_args": {
                    "temperature": 0.7,
                    "max_tokens": 2048,
                    "reasoning": False,
                    "agentic_eval_config": {"available_tools": _tools(run.harness_eval, strict=True)},
                    "eval_plan": {"name": "plan", "steps": [_solver(run.harness_eval)]},
                    "max_attempts": 1,
                },
                "additional_details": {"epochs": str(run.harness_eval.n_trials)},
            },
        }],
    }


def _metric_config(strict: bool) -> dict:
    config = {"evaluation_description": "accuracy"}
    if strict:
        config.update({"metric_id": "accuracy", "metric_name": "Accuracy", "metric_kind": "accuracy",
                       "metric_unit": "proportion"})
    config.update({"lower_is_better": False, "score_type": "continuous", "min_score": 0.0, "max_score": 1.0})
    return config


def _engine(model: Model) -> dict:
    if model.deployment_type == "externally_managed":
        return {"inference_platform": model.developer}
    return {"inference_engine": {"name": "vllm", "version": "0.11.0"}}


def _tools(harness_eval: HarnessEval, strict: bool) -> list[dict]:
    if harness_eval.interaction_type != "agentic":
        return []
    if not strict:
        return [{"name": name} for name in TAU_TOOLS]
    return [{"name": name, "parameters": {"type": "object"}} for name in TAU_TOOLS]


def _solver(harness_eval: HarnessEval) -> str:
    return {"gsm8k": "generate", "mmlu_physics": "multiple_choice", "tau_retail": "react"}[harness_eval.key]


def _mean(values: list) -> float:
    return sum(float(v) for v in values) / len(values)
