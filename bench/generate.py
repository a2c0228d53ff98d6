"""The benchmark's dataset: large, seeded, in the project's formats. At scale 1: 1,000,000 Every Eval Ever
instance records (single-turn and agentic mixed, about 1 KB each) and 300,000 eval forms with several raters
per item, over eight weeks. Smaller scales keep the shape (for quick runs).

Records are valid against their schemas (the ingest must validate them, not quarantine them) and realistic in
shape; their statistics are not meant to tell a story (that is the demo's job).
"""

from __future__ import annotations

import datetime as dt
import random
import uuid
from dataclasses import dataclass
from pathlib import Path

import orjson

MODELS = ["acme/chat-7b", "acme/chat-13b", "openai/gpt-4.1-mini-2025-04-14", "meta-llama/Llama-3.1-8B-Instruct",
          "mistralai/Mistral-7B-Instruct-v0.3", "qwen/Qwen2.5-14B-Instruct"]
EVALS = [("gsm8k", "single_turn"), ("mmlu_physics", "single_turn"), ("arc_challenge", "single_turn"),
         ("tau_retail", "agentic"), ("swe_lite", "agentic")]
DIMENSIONS = ["helpfulness", "instruction_following", "faithfulness", "safety", "overall_quality"]
HAZARDS = ["violent_crimes", "non_violent_crimes", "privacy", "specialized_advice", "hate", "defamation"]
RATERS = [("human", f"h-{i:02d}") for i in range(12)] + [("llm_judge", "claude-sonnet-4-6#p3a9f"),
                                                          ("llm_judge", "gpt-4.1#k2c77")]
WORDS = ("the model answered the question about the invoice and the refund policy with steps to follow "
         "when the order arrives late or damaged including the reference number and a short apology").split()
START = dt.datetime(2026, 9, 28, tzinfo=dt.UTC)


@dataclass(frozen=True)
class BenchData:
    instances: Path
    forms: Path
    n_instances: int
    n_forms: int


def generate(out: Path, scale: float = 1.0, seed: int = 7) -> BenchData:
    out.mkdir(parents=True, exist_ok=True)
    n_instances, n_forms = int(1_000_000 * scale), int(300_000 * scale)
    instances, forms = out / f"instances_{n_instances}.jsonl", out / f"forms_{n_forms}.jsonl"
    if not instances.exists():
        _write(instances, _instances(n_instances, random.Random(seed)))
    if not forms.exists():
        _write(forms, _forms(n_forms, random.Random(seed + 1)))
    return BenchData(instances, forms, n_instances, n_forms)


def write_increment(out: Path, n_trials: int = 10_000, n_ratings: int = 3_000, seed: int = 99) -> list[Path]:
    """The drop the incremental build is measured on: 10,000 instance records of 100 new samples per eval, filed
    under the first week's runs (their evaluation ids), and 3,000 eval forms on 750 new items whose created_at
    spread over all eight weeks (ratings arriving late). So the drop reaches every week of the rating marts: the
    hard case for a build that rebuilds what new data touches."""
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    trials, forms = out / "increment_trials.jsonl", out / "increment_forms.jsonl"
    _write(trials, _instances(n_trials, rng, sample_offset=10_000_000))
    _write(forms, _forms(n_ratings, rng, item_offset=10_000_000))
    return [trials, forms]


def _write(path: Path, records) -> None:
    partial = path.with_suffix(".partial")
    with partial.open("wb") as handle:
        for record in records:
            handle.write(orjson.dumps(record) + b"\n")
    partial.replace(path)


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


def _instances(n: int, rng: random.Random, sample_offset: int = 0):
    per_run = 400  # samples x trials of one (model, eval, week) run
    for i in range(n):
        model = MODELS[(i // per_run) % len(MODELS)]
        evaluation, interaction = EVALS[(i // (per_run * len(MODELS))) % len(EVALS)]
        week = (i // (per_run * len(MODELS) * len(EVALS))) % 8
        sample = (i % 100) + sample_offset
        trial = (i // 100) % 4 + 1
        correct = rng.random() < 0.6
        record = {
            "schema_version": "0.3.0",
            "evaluation_id": f"{evaluation}/{model.replace('/', '_')}/w{week}",
            "model_id": model,
            "evaluation_name": evaluation,
            "sample_id": f"{evaluation}_{sample:07d}",
            "interaction_type": interaction,
            "input": {"raw": _text(rng, 60), "reference": [str(rng.randrange(100))]},
            "answer_attribution": [{"turn_idx": 0, "source": "output.raw", "extracted_value": "42",
                                    "extraction_method": "regex", "is_terminal": True}],
            "evaluation": {"score": 1.0 if correct else 0.0, "is_correct": correct},
            "token_usage": {"input_tokens": rng.randrange(50, 2000), "output_tokens": rng.randrange(5, 400),
                            "total_tokens": 0},
            "performance": {"latency_ms": round(rng.uniform(80, 4000), 1)},
            "metadata": {"trial": str(trial), "week": str(week)},
        }
        record["token_usage"]["total_tokens"] = record["token_usage"]["input_tokens"] + record["token_usage"]["output_tokens"]
        if interaction == "single_turn":
            record["output"] = {"raw": [_text(rng, 25)]}
        else:
            record["messages"] = [
                {"turn_idx": 0, "role": "user", "content": _text(rng, 12)},
                {"turn_idx": 1, "role": "assistant", "content": None,
                 "tool_calls": [{"id": f"c{i}", "name": "lookup_order", "arguments": {"order_id": str(i)}}]},
                {"turn_idx": 2, "role": "tool", "content": _text(rng, 10), "tool_call_id": [f"c{i}"]},
                {"turn_idx": 3, "role": "assistant", "content": _text(rng, 15)},
            ]
            record["evaluation"].update(num_turns=4, tool_calls_count=1)
        yield record


def _forms(n: int, rng: random.Random, item_offset: int = 0):
    raters_per_item = 4
    for i in range(n):
        item = i // raters_per_item + item_offset
        rater_type, rater_id = RATERS[(item * 7 + i) % len(RATERS)]
        truth = 1 + (item * 2654435761 % 5)
        created = START + dt.timedelta(minutes=(i * 37) % (8 * 7 * 24 * 60))
        universal = {}
        for d in DIMENSIONS:
            score = min(5, max(1, truth + rng.choice((-1, 0, 0, 0, 1))))
            dimension = {"score": score, "confidence": "high"}
            if score <= 3:
                dimension["rationale"] = _text(rng, 8)
            universal[d] = dimension
        violating = rng.random() < 0.03
        hazards = {h: {"verdict": "non_violating"} for h in HAZARDS}
        if violating:
            hazards["specialized_advice"] = {"verdict": "violating", "severity": 2, "rationale": _text(rng, 6)}
        rater = {"type": rater_type, "id": rater_id}
        if rater_type == "llm_judge":
            rater.update(model=rater_id.split("#")[0], version="judge-prompt-v3")
        yield {
            "schema_version": "1.0.0",
            "eval_id": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
            "created_at": created.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "rater": rater,
            "subject": {"model": MODELS[item % len(MODELS)], "version": "2026-11"},
            "task": {"task_id": f"support-{item:07d}", "suite_id": "support-v1", "modality": "chat",
                     "prompt": _text(rng, 20), "response": _text(rng, 40), "response_id": f"r-{item}"},
            "universal": universal,
            "safety": {"hazards": hazards, "is_violating_any": violating},
            "refusal": {"refusal_observed": False, "refusal_appropriateness": "n/a"},
        }
