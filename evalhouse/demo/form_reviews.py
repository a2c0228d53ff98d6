"""Hybrid reviews: a person confirms or corrects a judge's form, writing a new form derived from it.

A judge form needs confirmation when it reports a violating hazard, a universal score of 3 or lower, or low
confidence. Most get reviewed 1 to 3 days later; the last week's and a few older ones stay in the queue, so
the review queue the app shows is never empty.
"""

from __future__ import annotations

import random

from evalhouse.demo import form_phrases as phrases
from evalhouse.demo.form_ratings import Rating, clip_score, new_eval_id
from evalhouse.demo.timeline import Clock, iso_z
from evalhouse.demo.world import DIMENSIONS, GOLD_MISSING_RATER, HUMANS

REVIEW_RATE = 0.88
# Reviewers change a judge's score this often; far more when the judge is plainly off.
CHANGE_RATE = 0.25
CHANGE_RATE_WHEN_OFF = 0.85
REVIEWER_NOISE = 0.35
REVIEWERS = tuple(h for h in HUMANS if h.id != GOLD_MISSING_RATER)


def needs_confirmation(form: dict) -> bool:
    """The confirmation rule, read from the form alone (as the warehouse's review queue reads it)."""
    universal = form["universal"]
    hazards = form.get("safety", {}).get("hazards", {})
    return (any(v.get("verdict") == "violating" for v in hazards.values())
            or any(universal[d]["score"] <= 3 for d in DIMENSIONS)
            or any(universal[d]["confidence"] == "low" for d in DIMENSIONS))


def review_judge_forms(rated: list[tuple[Rating, dict]], last_week: int, clock: Clock,
                       seed: int, week_index: int) -> list[dict]:
    """Hybrid forms for the week's judge forms that needed confirmation and got it."""
    rng = random.Random(f"{seed}:forms:reviews:{week_index}")
    hybrids = []
    for rating, form in rated:
        if rating.role != "llm_judge" or not needs_confirmation(form):
            continue
        # Draw every random number whether or not the review happens, so one choice does not shift the rest.
        reviewed = rng.random() < REVIEW_RATE
        when = clock.later(rating.created, rng.randint(1, 3), rng)
        reviewer = rng.choice(REVIEWERS)
        if week_index == last_week or not reviewed or when is None:
            continue
        hybrids.append(_hybrid(rating, form, reviewer, iso_z(when), rng))
    return hybrids


def _hybrid(rating: Rating, form: dict, reviewer, created_at: str, rng: random.Random) -> dict:
    hybrid = {
        "schema_version": form["schema_version"],
        "eval_id": new_eval_id(rng),
        "created_at": created_at,
        "derived_from": form["eval_id"],
        "rater": reviewer.block(),
    }
    hybrid["rater"]["type"] = "hybrid"
    for key in ("subject", "task", "gold_item_id", "calibration_target"):
        hybrid[key] = form[key]
    hybrid["universal"] = _reviewed_universal(rating, form["universal"], rng)
    # The judge's extension scores stay out, as the app's review form leaves them: it does not show them, and a
    # score a review carries is the reviewer's confirmation or override (fct_judge_overrides counts every one).
    for key in ("safety", "refusal", "issue_tags", "free_text"):
        if key in form:
            hybrid[key] = _resolve_unsure(form[key], rating) if key == "safety" else form[key]
    return hybrid


def _reviewed_universal(rating: Rating, universal: dict, rng: random.Random) -> dict:
    """The judge's scores, some corrected toward what the reviewer sees; judge samples are dropped."""
    out = {}
    for dimension in DIMENSIONS:
        judged = universal[dimension]["score"]
        seen = clip_score(rating.item.truth[dimension] + rng.gauss(0, REVIEWER_NOISE))
        rate = CHANGE_RATE_WHEN_OFF if abs(seen - judged) >= 2 else CHANGE_RATE
        score = seen if rng.random() < rate else judged
        confidence = "high" if rng.random() < 0.85 else "medium"
        block: dict = {"score": score, "confidence": confidence}
        if score != judged:
            block["rationale"] = f"Changed from {judged}: " + phrases.rationale(dimension, score,
                                                                               rating.item.behaviour, rng)
        elif score <= 3 or confidence != "high":
            block["rationale"] = universal[dimension].get("rationale") or phrases.rationale(
                dimension, score, rating.item.behaviour, rng)
        out[dimension] = block
    if "vs_reference" in universal:
        out["vs_reference"] = universal["vs_reference"]
    return out


def _resolve_unsure(safety: dict, rating: Rating) -> dict:
    """A reviewer settles the judge's "unsure" verdicts: violating when the answer does violate, else not."""
    hazards = {}
    for name, verdict in safety["hazards"].items():
        if verdict["verdict"] != "unsure":
            hazards[name] = verdict
        elif name == rating.item.violated_hazard:
            hazards[name] = {"verdict": "violating", "severity": rating.item.severity,
                             "rationale": phrases.SAFETY_VIOLATION_NOTES[name][0]}
        else:
            hazards[name] = {"verdict": "non_violating"}
    violating = any(v["verdict"] == "violating" for v in hazards.values())
    out = {"hazards": hazards, "is_violating_any": violating}
    out["no_risk_affirmed"] = not violating
    return out
