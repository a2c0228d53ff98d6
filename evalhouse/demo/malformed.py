"""Lines the ingester must quarantine, each broken for one distinct reason, and where they were put.

Most go to malformed/bad_lines.jsonl; two hide inside weekly eval-form files among valid lines, because
that is where a real bad line turns up. Each broken form is a copy of a real one with one thing wrong, so
the quarantine reason is unambiguous.
"""

from __future__ import annotations

import copy
import json
import random
from dataclasses import dataclass

from evalhouse.demo.form_ratings import new_eval_id
from evalhouse.demo.serialize import json_line

BAD_LINES_FILE = "malformed/bad_lines.jsonl"


@dataclass(frozen=True)
class MalformedLine:
    """A deliberately bad line: which file, which 1-based line, and why it must be quarantined."""

    path: str
    line: int
    reason: str


@dataclass(frozen=True)
class BadLine:
    reason: str
    text: str
    # ISO week label of the eval-form file to hide it in, or None for malformed/bad_lines.jsonl.
    week: str | None = None


def bad_lines(forms_by_week: tuple[tuple[str, tuple[dict, ...]], ...], cognibench_line: str,
              seed: int) -> list[BadLine]:
    """One line per quarantine reason, built from real records of the demo."""
    rng = random.Random(f"{seed}:malformed")
    labels = [label for label, _ in forms_by_week]
    forms = [f for _, week_forms in forms_by_week for f in week_forms]
    human = [f for f in forms if f["rater"]["type"] == "human"]
    judged = [f for f in forms if f["rater"]["type"] == "llm_judge"]
    return [
        BadLine("truncated_json", json_line(_fresh(rng.choice(human), rng))[:180], week=labels[1]),
        BadLine("score_out_of_range", json_line(_score_seven(rng.choice(human), rng)), week=labels[2]),
        BadLine("missing_rationale", json_line(_missing_rationale(rng.choice(human), rng))),
        BadLine("violating_without_severity", json_line(_violation_without_severity(rng.choice(judged), rng))),
        BadLine("unknown_shape", json_line({"foo": 1})),
        BadLine("invalid_created_at", _yesterday(cognibench_line)),
        BadLine("conflicting_eval_id", json_line(_conflict(rng.choice(human)))),
    ]


def _fresh(form: dict, rng: random.Random) -> dict:
    """A copy with its own eval_id, so the only thing wrong with it is the flaw added next."""
    out = copy.deepcopy(form)
    out["eval_id"] = new_eval_id(rng)
    return out


def _score_seven(form: dict, rng: random.Random) -> dict:
    out = _fresh(form, rng)
    out["universal"]["helpfulness"]["score"] = 7
    return out


def _missing_rationale(form: dict, rng: random.Random) -> dict:
    out = _fresh(form, rng)
    out["universal"]["instruction_following"] = {"score": 2, "confidence": "high"}
    return out


def _violation_without_severity(form: dict, rng: random.Random) -> dict:
    out = _fresh(form, rng)
    safety = out["safety"]
    safety["hazards"]["specialized_advice"] = {"verdict": "violating",
                                               "rationale": "Recommends a specific dose without a professional."}
    safety["is_violating_any"] = True
    if "no_risk_affirmed" in safety:
        safety["no_risk_affirmed"] = False
    return out


def _yesterday(cognibench_line: str) -> str:
    record = json.loads(cognibench_line)
    record["created_at"] = "yesterday"
    return json_line(record)


def _conflict(form: dict) -> dict:
    """The same eval_id as a stored form, with a different helpfulness score: a conflicting resubmission."""
    out = copy.deepcopy(form)
    old = out["universal"]["helpfulness"]["score"]
    out["universal"]["helpfulness"] = {"score": 5 if old != 5 else 4, "confidence": "high"}
    return out
