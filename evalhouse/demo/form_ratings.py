"""Who rates which item, what score each rater gives, and the eval form each rating becomes.

Scores are the item's truth plus the rater's bias plus noise, rounded and clipped to 1..5. The noise of each
rater group is centred per week and dimension, so a weekly mean bias is the designed bias (0 for humans and
for the shifted judge outside its week, +0.2 for the stable judge) and not sampling luck: the drift alert must
fire for the shifted week only.
"""

from __future__ import annotations

import math
import random
import uuid
from dataclasses import dataclass, field
from datetime import datetime

from evalhouse.demo import form_phrases as phrases
from evalhouse.demo.form_items import Item
from evalhouse.demo.timeline import Clock, Week, iso_z
from evalhouse.demo.world import (
    DIMENSIONS, GOLD_MISSING_RATER, HAZARDS, HUMANS, JUDGES, SHIFTED_JUDGE_BIAS, SHIFTED_JUDGE_ID,
    SHIFTED_JUDGE_VERSION, SMES, STABLE_JUDGE_BIAS, STABLE_JUDGE_ID, Rater,
)

# Noise sd per dimension: humans agree most on helpfulness and least on faithfulness.
HUMAN_NOISE = {"helpfulness": 0.3, "instruction_following": 0.45, "faithfulness": 0.75, "safety": 0.35,
               "overall_quality": 0.4}
JUDGE_NOISE = 0.45
SME_NOISE = 0.3
JUDGE_SAMPLE_NOISE = 0.45
SME_FORMS_PER_WEEK = 3
SCHEMA_VERSION = "1.0.0"


@dataclass
class Rating:
    """One rater's scores for one item, before it is written out as a form."""

    item: Item
    rater: Rater
    created: datetime
    eval_id: str
    noise: dict[str, float] = field(default_factory=dict)
    scores: dict[str, int] = field(default_factory=dict)
    samples: list[int] | None = None

    @property
    def role(self) -> str:
        return self.rater.type


def rate_week(week: Week, items: list[Item], shifted_week: int, clock: Clock, seed: int) -> list[tuple[Rating, dict]]:
    """Every judge, human and SME rating of the week's items, each with its eval form."""
    rng = random.Random(f"{seed}:forms:ratings:{week.index}")
    ratings = _plan(week, items, clock, rng)
    _draw_noise(ratings, rng)
    for rating in ratings:
        _score(rating, shifted_week, rng)
    _apply_contentious(ratings, rng)
    _apply_gold(ratings, rng)
    return [(r, build_form(r, shifted_week, rng)) for r in ratings]


def _plan(week: Week, items: list[Item], clock: Clock, rng: random.Random) -> list[Rating]:
    """Both judges rate every item early in the week; 2-3 humans each later; SMEs a few agent and RAG items."""
    ratings = []
    for item in items:
        for judge in JUDGES:
            ratings.append(Rating(item, judge, clock.moment(week.day(rng.randint(0, 1)), rng), new_eval_id(rng)))
        humans = list(rng.sample(HUMANS, 3 if rng.random() < 0.45 else 2))
        if item.gold_item_id is not None and all(h.id != GOLD_MISSING_RATER for h in humans):
            # The gold-missing rater is scheduled on every gold item, so the miss shows in every week.
            humans[0] = next(h for h in HUMANS if h.id == GOLD_MISSING_RATER)
        for human in humans:
            ratings.append(Rating(item, human, clock.moment(week.day(rng.randint(1, 4)), rng), new_eval_id(rng)))
    expert_items = [i for i in items if i.task.modality in ("agent", "rag")]
    for item in rng.sample(expert_items, min(SME_FORMS_PER_WEEK, len(expert_items))):
        ratings.append(Rating(item, rng.choice(SMES), clock.moment(week.day(rng.randint(2, 5)), rng), new_eval_id(rng)))
    return ratings


def new_eval_id(rng: random.Random) -> str:
    """A uuid4 drawn from the generator's rng, never from the OS."""
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _draw_noise(ratings: list[Rating], rng: random.Random) -> None:
    """Gaussian noise per rating and dimension, centred within each rater group of the week."""
    groups: dict[str, list[Rating]] = {}
    for rating in ratings:
        groups.setdefault(rating.rater.id if rating.role == "llm_judge" else rating.role, []).append(rating)
    for name in sorted(groups):
        members = groups[name]
        for dimension in DIMENSIONS:
            sd = _noise_sd(members[0].role, dimension)
            draws = [rng.gauss(0, sd) for _ in members]
            centre = sum(draws) / len(draws)
            for rating, draw in zip(members, draws):
                rating.noise[dimension] = draw - centre


def _noise_sd(role: str, dimension: str) -> float:
    if role == "llm_judge":
        return JUDGE_NOISE
    if role == "sme":
        return SME_NOISE
    return HUMAN_NOISE[dimension]


def judge_bias(rater_id: str, week_index: int, shifted_week: int) -> float:
    if rater_id == STABLE_JUDGE_ID:
        return STABLE_JUDGE_BIAS
    if rater_id == SHIFTED_JUDGE_ID and week_index == shifted_week:
        return SHIFTED_JUDGE_BIAS
    return 0.0


def _score(rating: Rating, shifted_week: int, rng: random.Random) -> None:
    bias = judge_bias(rating.rater.id, rating.item.week.index, shifted_week)
    for dimension in DIMENSIONS:
        latent = rating.item.truth[dimension] + bias + rating.noise[dimension]
        rating.scores[dimension] = clip_score(latent)
        if dimension == "overall_quality" and rating.rater.n_samples:
            # A sampling judge scores N times and reports the rounded mean, as the seed recommends.
            rating.samples = [clip_score(latent + rng.gauss(0, JUDGE_SAMPLE_NOISE))
                              for _ in range(rating.rater.n_samples)]
            rating.scores[dimension] = clip_score(sum(rating.samples) / len(rating.samples))


def clip_score(value: float) -> int:
    return max(1, min(5, int(math.floor(value + 0.5))))


def _apply_contentious(ratings: list[Rating], rng: random.Random) -> None:
    """On contentious items the humans split 3+ points apart, around the truth so the item mean stays put."""
    by_item: dict[str, list[Rating]] = {}
    for rating in ratings:
        if rating.role == "human" and rating.item.contentious:
            by_item.setdefault(rating.item.response_id, []).append(rating)
    for response_id in sorted(by_item):
        humans = by_item[response_id]
        rng.shuffle(humans)
        for dimension in humans[0].item.contentious:
            centre = clip_score(humans[0].item.truth[dimension])
            lows = [low for low in (centre - 2, centre - 1) if 1 <= low <= 2] or [1 if centre < 3 else 2]
            low = rng.choice(lows)
            high = low + 3
            humans[0].scores[dimension], humans[1].scores[dimension] = low, high
            for extra in humans[2:]:
                extra.scores[dimension] = centre


def _apply_gold(ratings: list[Rating], rng: random.Random) -> None:
    """Raters land on or next to a gold item's target; GOLD_MISSING_RATER misses it by 2 or more."""
    for rating in ratings:
        target = rating.item.calibration_target
        if target is None or rating.role not in ("human", "sme"):
            continue
        goal = target["helpfulness"]
        if rating.rater.id == GOLD_MISSING_RATER:
            miss = 3 if goal - 3 >= 1 and rng.random() < 0.3 else 2
            rating.scores["helpfulness"] = goal - miss
        elif rng.random() < 0.25:
            rating.scores["helpfulness"] = max(1, min(5, goal + rng.choice((-1, 1))))
        else:
            rating.scores["helpfulness"] = goal


def build_form(rating: Rating, shifted_week: int, rng: random.Random) -> dict:
    """The AIF eval form for one rating, in the schema's key order."""
    item = rating.item
    version = None
    if rating.rater.id == SHIFTED_JUDGE_ID and item.week.index == shifted_week:
        version = SHIFTED_JUDGE_VERSION
    form = {
        "schema_version": SCHEMA_VERSION,
        "eval_id": rating.eval_id,
        "created_at": iso_z(rating.created),
        "derived_from": None,
        "rater": rating.rater.block(version),
        "subject": {"system_under_test": item.task.system_under_test, "model": item.model.id,
                    "version": item.version, "modality_tags": item.task.modality_tags},
        "task": task_block(item),
        "gold_item_id": item.gold_item_id,
        "calibration_target": dict(item.calibration_target) if item.calibration_target else None,
        "universal": _universal(rating, rng),
    }
    judge = rating.role == "llm_judge"
    if judge or item.violated_hazard or rng.random() < 0.88:
        form["safety"] = safety_block(item, rating.rater, rng)
    if judge or item.refusal_kind != "n/a" or rng.random() < 0.9:
        form["refusal"] = refusal_block(item, rng)
    tags = _issue_tags(item, judge, rng)
    if tags or rng.random() < 0.5:
        form["issue_tags"] = tags
    if rng.random() < 0.45:
        form["free_text"] = _free_text(rng)
    extensions = _extensions(item, rating, rng)
    if extensions:
        form["extensions"] = extensions
    return form


def task_block(item: Item) -> dict:
    task = item.task
    url = f"https://evals.example.com/transcripts/{item.response_id}" if task.modality == "agent" else None
    return {"task_id": task.task_id, "suite_id": task.suite_id, "modality": task.modality, "prompt": task.prompt,
            "reference": task.reference, "response": item.response, "response_id": item.response_id,
            "transcript_url": url}


def _universal(rating: Rating, rng: random.Random) -> dict:
    item = rating.item
    out = {}
    for dimension in DIMENSIONS:
        score = rating.scores[dimension]
        confidence = _confidence(rating.role, dimension in item.contentious, rng)
        block: dict = {"score": score, "confidence": confidence}
        # The rules require a rationale at 3 or below or below high confidence; raters add one now and then.
        if score <= 3 or confidence != "high" or rng.random() < 0.2:
            block["rationale"] = phrases.rationale(dimension, score, item.behaviour, rng)
        if dimension == "overall_quality" and rating.samples is not None:
            block["score_mean"] = sum(rating.samples) / len(rating.samples)
            block["samples"] = list(rating.samples)
        out[dimension] = block
    if item.task.reference is not None and (rating.role == "llm_judge" or rng.random() < 0.9):
        out["vs_reference"] = _vs_reference(item.truth["overall_quality"] + rng.gauss(0, 0.5))
    return out


def _confidence(role: str, contentious: bool, rng: random.Random) -> str:
    draw = rng.random()
    if contentious:
        return "high" if draw < 0.4 else "medium" if draw < 0.85 else "low"
    high = 0.88 if role == "llm_judge" else 0.8
    return "high" if draw < high else "medium" if draw < 0.975 else "low"


def _vs_reference(value: float) -> str:
    delta = value - 3.3
    if delta < -1.2:
        return "much_worse"
    if delta < -0.4:
        return "worse"
    if delta <= 0.4:
        return "equivalent"
    if delta <= 1.2:
        return "better"
    return "much_better"


def safety_block(item: Item, rater: Rater, rng: random.Random) -> dict:
    """Judges fill all 12 hazards; people fill the ones the task makes relevant."""
    relevant = {item.task.hazard, "privacy"}
    keys = HAZARDS if rater.type == "llm_judge" else tuple(h for h in HAZARDS if h in relevant)
    hazards = {}
    for hazard in keys:
        hazards[hazard] = _verdict(item, hazard, rater, rng) if hazard in relevant else {"verdict": "not_applicable"}
    violating = any(v["verdict"] == "violating" for v in hazards.values())
    clean = all(v["verdict"] in ("non_violating", "not_applicable") for v in hazards.values())
    block: dict = {"hazards": hazards, "is_violating_any": violating}
    if not clean or rng.random() < 0.7:
        block["no_risk_affirmed"] = clean
    return block


def _verdict(item: Item, hazard: str, rater: Rater, rng: random.Random) -> dict:
    if hazard == item.violated_hazard:
        if rng.random() < (0.95 if rater.type == "llm_judge" else 0.9):
            severity = max(1, min(3, item.severity + (rng.choice((-1, 1)) if rng.random() < 0.2 else 0)))
            return {"verdict": "violating", "severity": severity,
                    "rationale": rng.choice(phrases.SAFETY_VIOLATION_NOTES[hazard])}
        return {"verdict": "unsure", "rationale": "Might be harmful; I'm not sure where the line is."}
    if item.calibration_target and rater.id == GOLD_MISSING_RATER and hazard == "privacy" and rng.random() < 0.3:
        return {"verdict": "unsure"}
    if rng.random() < (0.02 if rater.type == "llm_judge" else 0.04):
        return {"verdict": "unsure"}
    return {"verdict": "non_violating"}


def refusal_block(item: Item, rng: random.Random) -> dict:
    kind = item.refusal_kind
    if kind == "over_refusal":
        if rng.random() < 0.92:
            return {"refusal_observed": True, "refusal_appropriateness": "over_refusal",
                    "refusal_rationale": rng.choice(phrases.OVER_REFUSAL_NOTES)}
        return {"refusal_observed": True, "refusal_appropriateness": "appropriate", "refusal_rationale": None}
    if kind == "appropriate":
        note = rng.choice(phrases.APPROPRIATE_REFUSAL_NOTES) if rng.random() < 0.5 else None
        return {"refusal_observed": True, "refusal_appropriateness": "appropriate", "refusal_rationale": note}
    if kind == "under_refusal" and rng.random() < 0.9:
        return {"refusal_observed": False, "refusal_appropriateness": "under_refusal",
                "refusal_rationale": rng.choice(phrases.UNDER_REFUSAL_NOTES)}
    return {"refusal_observed": False, "refusal_appropriateness": "n/a", "refusal_rationale": None}


def _issue_tags(item: Item, judge: bool, rng: random.Random) -> list[str]:
    candidates = []
    if item.behaviour == "weak":
        candidates.append("incomplete")
    if item.truth["faithfulness"] < 2.8:
        candidates.append("unsupported_claim" if item.task.modality == "rag" else "hallucination")
    if item.task.modality == "rag" and item.behaviour == "weak":
        candidates.append("confabulated_source")
    if item.task.modality == "agent" and item.facts.get("successes") == 0:
        candidates.append("tool_misuse")
    if item.behaviour == "under_refusal":
        candidates.append("pii_leakage")
    if item.model.output_tokens > 200 and item.behaviour in ("good", "weak") and rng.random() < 0.3:
        candidates.append("verbosity")
    keep = 0.85 if judge else 0.75
    tags = [t for t in candidates if rng.random() < keep]
    if rng.random() < 0.03:
        tags.append("formatting_error")
    return tags


def _free_text(rng: random.Random) -> dict:
    return {
        "strengths": rng.choice(phrases.STRENGTHS) if rng.random() < 0.7 else None,
        "weaknesses": rng.choice(phrases.WEAKNESSES) if rng.random() < 0.7 else None,
        "notes": rng.choice(phrases.NOTES) if rng.random() < 0.4 else None,
    }


def _extensions(item: Item, rating: Rating, rng: random.Random) -> dict:
    facts = item.facts

    def noisy(base: float) -> int:
        return clip_score(base + rng.gauss(0, 0.5))

    if item.task.modality == "chat":
        if rating.role != "llm_judge" and rng.random() < 0.15:
            return {}
        return {"chat": {"turn_count": facts["turn_count"],
                         "consistency_across_turns": noisy(item.truth["overall_quality"] + 0.4),
                         "persona_drift": facts["persona_drift"], "tone": facts["tone"]}}
    if item.task.modality == "rag":
        faith = item.truth["faithfulness"]
        claims = [rng.choice(phrases.UNSUPPORTED_CLAIMS)] if facts["unsupported"] else []
        return {"rag": {"context_precision": noisy(faith + 0.3), "context_recall": noisy(faith),
                        "answer_faithfulness": noisy(faith), "answer_relevance": noisy(item.truth["helpfulness"]),
                        "citation_accuracy": noisy(faith - 0.2), "unsupported_claims": claims}}
    return {"agent": _agent_block(item, rng, noisy)}


def _agent_block(item: Item, rng: random.Random, noisy) -> dict:
    facts = item.facts
    tools = [{"tool": name, "call_ok": ok, "params_ok": params, "redundant": redundant}
             for name, ok, params, redundant in facts["tools"]]
    unintended = facts["unintended"]
    return {
        "task_success": facts["task_success"],
        "outcome_check": {"passed": facts["task_success"] == "complete",
                          "assertions": [{"description": "final state matches the request",
                                          "passed": facts["task_success"] == "complete"},
                                         {"description": "no unrelated resources changed", "passed": not unintended}]},
        "tool_calls": tools,
        "plan_quality": noisy(item.truth["instruction_following"]),
        "error_recovery": noisy(item.truth["overall_quality"]),
        "efficiency": {"n_turns": facts["n_turns"], "n_tokens": facts["n_tokens"], "n_toolcalls": len(tools),
                       "latency_ms": facts["latency_ms"]},
        "pass_at_k": {"k": 3, "successes": facts["successes"]},
        "pass_caret_k": {"k": 3, "all_succeeded": facts["successes"] == 3},
        "unintended_actions": {"observed": unintended,
                               "description": rng.choice(phrases.UNINTENDED_ACTIONS) if unintended else None},
    }
