"""CogniBench judge records: an LLM judge's per-criterion verdicts on math answers, some reviewed by people.

Shaped like the real writer's output (Mathews-Tom/CogniBench data/evaluations.jsonl): integer task ids, every
key present with nulls, parse failures with {} scores, created_at with microseconds and a Z, and the extra
run statistics the writer adds. Criterion keys and label case vary the way judges write them. A completed review
is the record exported again, as the tool does: the first export (waiting, or not required for a spot check) in
the week it was judged, the completed one, under the same evaluation_id, in the week it was reviewed.
"""

from __future__ import annotations

import math
import random
import uuid
from dataclasses import dataclass
from datetime import date, timedelta

from evalhouse.demo.serialize import json_line
from evalhouse.demo.timeline import Clock, Week, iso_week_label, iso_z_micro
from evalhouse.demo.world import HUMANS, MODELS, Model

JUDGE_MODEL = "gpt-4o"
JUDGE_TEMPLATE = "prompts/judging/Math-L1-judge-v1.0.txt"
CRITERIA = ("Problem Understanding", "Assumptions", "Logical Implications", "Results Formulae",
            "Rigor and Completeness")
TASKS_PER_WEEK = 8
RECORDS_PER_WEEK = 30
PARSE_FAILURE_RATE = 0.05
JUDGE_ACCURACY = 0.88  # chance the judge's label equals the true label
REVIEWER_ACCURACY = 0.96
PARSE_ERRORS = ("Parsed JSON is missing the required top-level key: 'evaluation'.",
                "Expecting ',' delimiter: line 7 column 5 (char 212)")
LABELS = ("Yes", "Partial", "No")


@dataclass(frozen=True)
class MathTask:
    task_id: int
    prompt: str
    answer: str
    difficulty: float


def math_tasks(rng: random.Random) -> tuple[MathTask, ...]:
    """A fixed pool of 60 math tasks with computed answers, ids as the real files number them."""
    return tuple(_math_task(5480 + i, rng) for i in range(60))


def _math_task(task_id: int, rng: random.Random) -> MathTask:
    a, b, c = rng.randint(2, 9), rng.randint(2, 9), rng.randint(2, 6)
    templates = (
        (f"Find the sum of the roots of x² - {a + b}x + {a * b} = 0.", a + b),
        (f"Evaluate ∫₀^{b} {2 * a}x dx.", a * b * b),
        (f"In how many ways can {c} people sit in a row?", math.factorial(c)),
        (f"What is the remainder when {a + 10}² is divided by {b + 3}?", (a + 10) ** 2 % (b + 3)),
        (f"Solve for x: {a}x + {b} = {a * c + b}.", c),
        (f"Find d/dx of x^{c} at x = {a}.", c * a ** (c - 1)),
    )
    prompt, answer = templates[rng.randrange(len(templates))]
    return MathTask(task_id, prompt, str(answer), rng.gauss(0, 1.0))


def generate_cognibench(weeks: tuple[Week, ...], clock: Clock, seed: int) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(ISO week label, JSONL lines) per week: the week's judged records in created_at order, then the completed
    reviews exported that week in review order."""
    pool = math_tasks(random.Random(f"{seed}:cognibench:tasks"))
    judged: dict[str, list[dict]] = {week.label: [] for week in weeks}
    completed: dict[str, list[dict]] = {week.label: [] for week in weeks}
    for week in weeks:
        rng = random.Random(f"{seed}:cognibench:{week.index}")
        pairs = [(task, model) for task in rng.sample(pool, TASKS_PER_WEEK) for model in MODELS]
        pairs = rng.sample(pairs, RECORDS_PER_WEEK)
        for record in (_record(task, model, week, clock, rng) for task, model in pairs):
            if record["human_review_status"] != "Completed":
                judged[week.label].append(record)
                continue
            judged[week.label].append(_before_review(record))
            reviewed_on = date.fromisoformat(record["human_review_timestamp"][:10])
            completed[iso_week_label(reviewed_on)].append(record)
    out = []
    for week in weeks:
        records = sorted(judged[week.label], key=lambda r: r["created_at"])
        records += sorted(completed[week.label], key=lambda r: r["human_review_timestamp"])
        out.append((week.label, tuple(json_line(r) for r in records)))
    return tuple(out)


def _before_review(record: dict) -> dict:
    """The record as first exported, before its review: waiting when the tool flagged it, else not required."""
    return {**record, "human_review_status": "Needs Review" if record["needs_human_review"] else "Not Required",
            "human_reviewer_id": None, "human_review_timestamp": None, "human_corrected_scores": None,
            "human_review_comments": None}


def _record(task: MathTask, model: Model, week: Week, clock: Clock, rng: random.Random) -> dict:
    created = clock.moment(week.day(rng.randint(0, 5)), rng) + timedelta(microseconds=rng.randrange(1, 1_000_000))
    truth = _true_labels(task, model, rng)
    snake = rng.random() < 0.5
    parse_failed = rng.random() < PARSE_FAILURE_RATE
    parse_error = PARSE_ERRORS[rng.randrange(len(PARSE_ERRORS))] if parse_failed else None
    judged = {c: _judge_label(truth[c], rng) for c in CRITERIA}
    parsed = {} if parse_failed else _scores(judged, snake, rng, "judge")
    aggregated = None if parse_failed else aggregate(judged)
    answer_ok = truth["Results Formulae"] == "Yes"
    extracted = task.answer if answer_ok else str(int(task.answer) + rng.choice((-2, -1, 1, 3)))
    verified = None if rng.random() < 0.1 else answer_ok
    reasons = _review_reasons(parse_error, aggregated, verified, rng)
    record = {
        "evaluation_id": f"eval_{uuid.UUID(int=rng.getrandbits(128), version=4)}",
        "task_id": task.task_id,
        "model_id": model.id,
        # Each record is a new response (its truth is drawn afresh): its id names the week too. One id for a task
        # and model across weeks made every week's record the same judged response, so a completed review in a later
        # week took an earlier week's waiting record out of the queue.
        "response_id": f"resp_{task.task_id}_{model.slug}_{week.label}",
        "ideal_response_id": f"ideal_{task.task_id}",
        "judge_llm_model": JUDGE_MODEL,
        "judge_prompt_template_path": JUDGE_TEMPLATE,
        "raw_judge_output": {"raw_content": _raw_output(judged, parse_error)},
        "parsed_rubric_scores": parsed,
        "aggregated_score": aggregated,
        "final_answer_verified": verified,
        "verification_message": _verification_message(verified, extracted, task.answer),
        "needs_human_review": bool(reasons),
        "review_reasons": reasons,
        "structured_model_response": None if parse_failed else {"final_answer": extracted,
                                                                 "steps": [task.prompt, f"= {extracted}"]},
        "structured_ideal_response": None if parse_failed else {"final_answer": task.answer},
        "parsing_error": parse_error,
        "human_review_status": "Not Required",
        "human_reviewer_id": None,
        "human_review_timestamp": None,
        "human_corrected_scores": None,
        "human_review_comments": None,
        "created_at": iso_z_micro(created),
        "structuring_api_calls": 0 if parse_failed else 2,
        "judging_api_calls": 1,
        "total_time_seconds": round(rng.uniform(4.0, 38.0), 2),
    }
    _review(record, truth, judged, snake, created, clock, rng)
    return record


def _true_labels(task: MathTask, model: Model, rng: random.Random) -> dict[str, str]:
    """What a careful reviewer would say per criterion. A sound answer is sound on (nearly) every criterion;
    a flawed one is flawed in several, and usually in its result."""
    sound = rng.random() < 1 / (1 + math.exp(-(model.skill_on("gsm8k") - task.difficulty)))
    labels = {}
    for criterion in CRITERIA:
        draw = rng.random()
        if sound:
            labels[criterion] = "Yes" if draw < 0.96 else "Partial"
        elif criterion == "Results Formulae":
            labels[criterion] = "No" if draw < 0.6 else "Partial"
        else:
            labels[criterion] = "Yes" if draw < 0.5 else "Partial" if draw < 0.8 else "No"
    return labels


def _judge_label(true_label: str, rng: random.Random) -> str:
    if rng.random() < JUDGE_ACCURACY:
        return true_label
    index = LABELS.index(true_label)
    return LABELS[index + 1] if index == 0 else LABELS[index - 1]


def aggregate(labels: dict[str, str]) -> str:
    """The tool's rule: any No gives Fail, else any Partial gives Partial, else Pass."""
    values = {v.lower() for v in labels.values()}
    if "no" in values:
        return "Fail"
    if "partial" in values:
        return "Partial"
    return "Pass"


def _scores(labels: dict[str, str], snake: bool, rng: random.Random, who: str) -> dict:
    """Criterion -> {score, justification}, with keys and label case as this judge or reviewer wrote them."""
    out = {}
    for criterion, label in labels.items():
        key = criterion.lower().replace(" ", "_") if snake else criterion
        out[key] = {"score": _cased(label, rng), "justification": _justification(criterion, label, who)}
    return out


def _cased(label: str, rng: random.Random) -> str:
    draw = rng.random()
    return label if draw < 0.6 else label.lower() if draw < 0.85 else label.upper()


def _justification(criterion: str, label: str, who: str) -> str | None:
    if who == "human":
        return None if label == "Yes" else f"Reviewer: {criterion.lower()} is {label.lower()}."
    verdict = {"Yes": "is fully met", "Partial": "is partly met", "No": "is not met"}[label]
    return f"{criterion} {verdict} in the structured response."


def _raw_output(labels: dict[str, str], parse_error: str | None) -> str:
    """The judge's reply as the API returned it; a failed parse has the flaw its parsing_error names."""
    body = ",\n".join(f'    "{c}": {{"score": "{v}", "justification": "..."}}' for c, v in labels.items())
    if parse_error == PARSE_ERRORS[0]:
        return "```json\n{\n" + body + "\n}\n```"
    if parse_error is not None:
        body = body.replace("},\n", "}\n", 1)
    return "```json\n{\n  \"evaluation\": {\n" + body + "\n  }\n}\n```"


def _verification_message(verified: bool | None, extracted: str, correct: str) -> str:
    if verified is None:
        return "Verification skipped: Extracted answer was None."
    outcome = "Match" if verified else "Mismatch"
    return f"Verification (SymPy): {outcome} (Extracted: '{extracted}', Correct: '{correct}')."


def _review_reasons(parse_error: str | None, aggregated: str | None, verified: bool | None,
                    rng: random.Random) -> list[str]:
    if parse_error is not None:
        return [f"LLM response parsing failed: {parse_error}"]
    reasons = []
    if aggregated != "Pass" and rng.random() < 0.7:
        reasons.append(f"Aggregated score is {aggregated}")
    if verified is False and aggregated == "Pass":
        reasons.append("Final answer verification failed but rubric passed")
    if rng.random() < 0.08:
        reasons.append("Random spot check")
    return reasons


def _review(record: dict, truth: dict[str, str], judged: dict[str, str], snake: bool, created, clock: Clock,
            rng: random.Random) -> None:
    """Most flagged records get a person's corrected scores; a few unflagged ones get a spot check."""
    flagged = record["needs_human_review"]
    when = clock.later(created, rng.randint(1, 4), rng)
    reviewed = rng.random() < (0.75 if flagged else 0.1)
    if not flagged and not reviewed:
        return
    if not reviewed or when is None:
        record["human_review_status"] = "Needs Review" if rng.random() < 0.5 else "Pending"
        return
    corrected = {c: truth[c] if rng.random() < REVIEWER_ACCURACY else judged[c] for c in CRITERIA}
    changes = [c for c in CRITERIA if corrected[c] != judged[c]]
    reviewer = rng.choice(HUMANS)
    record["human_review_status"] = "Completed"
    record["human_reviewer_id"] = reviewer.id
    record["human_review_timestamp"] = iso_z_micro(when + timedelta(microseconds=rng.randrange(1, 1_000_000)))
    record["human_corrected_scores"] = _scores(corrected, snake, rng, "human")
    record["human_review_comments"] = (
        "Agree with the judge." if not changes and record["parsed_rubric_scores"]
        else "Scored by hand: the judge's output could not be parsed." if not record["parsed_rubric_scores"]
        else "Changed " + ", ".join(f"{c} ({judged[c]} → {corrected[c]})" for c in changes) + "."
    )
