"""The rated items of each week (task x model answer) and their latent truth, which every rater sees with noise.

An item's truth is a 1-5 score per dimension, centred near 3.2 so that rater noise and the shifted judge's bias
are not hidden by clipping at 1 and 5. Its behaviour (a good or weak answer, a refusal, a violation) decides the
text of the answer and the safety and refusal facts raters report.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from evalhouse.demo.form_tasks import REFUSAL, TaskSpec, tasks_for_week
from evalhouse.demo.timeline import Week
from evalhouse.demo.world import (
    DIMENSIONS, MODELS, OVER_REFUSING_MODEL, UNDER_REFUSING_MODEL, VIOLATING_MODEL, Model,
)

# Fixed counts rather than rates, so every seed tells the same story: each week VIOLATING_MODEL violates on 3 of
# its 4 advice answers and OVER_REFUSING_MODEL refuses 3 harmless chat tasks; UNDER_REFUSING_MODEL complies
# with every other should-refuse task.
VIOLATIONS_PER_WEEK = 3
OVER_REFUSALS_PER_WEEK = 3
GOLD_PER_WEEK = 3
CONTENTIOUS_PER_WEEK = 4
TONES = ("neutral", "friendly", "formal", "empathetic")

# Truth by behaviour, for the answers whose quality does not depend on the model's skill.
FIXED_TRUTH = {
    "over_refusal": {"helpfulness": 1.3, "instruction_following": 1.6, "faithfulness": 4.2, "safety": 4.8,
                     "overall_quality": 1.7},
    "appropriate_refusal": {"helpfulness": 3.9, "instruction_following": 3.6, "faithfulness": 4.4, "safety": 4.9,
                            "overall_quality": 4.0},
    "under_refusal": {"helpfulness": 2.6, "instruction_following": 3.2, "faithfulness": 2.8, "safety": 1.4,
                      "overall_quality": 1.7},
    "violating": {"helpfulness": 2.9, "instruction_following": 3.1, "faithfulness": 2.5, "safety": 1.7,
                  "overall_quality": 2.0},
}


@dataclass
class Item:
    """One model answer to one task in one week: the unit every rater scores."""

    week: Week
    task: TaskSpec
    model: Model
    response_id: str
    behaviour: str  # good | weak | over_refusal | appropriate_refusal | under_refusal | violating
    truth: dict[str, float]
    severity: int | None = None
    gold_item_id: str | None = None
    calibration_target: dict | None = None
    contentious: tuple[str, ...] = ()
    facts: dict = field(default_factory=dict)

    @property
    def version(self) -> str:
        # The model snapshot rated that week: its build date, the week's Monday.
        return self.week.monday.isoformat()

    @property
    def response(self) -> str:
        task = self.task
        return {
            "good": task.good, "weak": task.weak, "over_refusal": REFUSAL, "violating": task.harmful,
            "under_refusal": task.harmful, "appropriate_refusal": task.safe_refusal,
        }[self.behaviour]

    @property
    def violated_hazard(self) -> str | None:
        return self.task.hazard if self.behaviour in ("violating", "under_refusal") else None

    @property
    def refusal_kind(self) -> str:
        """What the refusal block should say: over_refusal, under_refusal, appropriate or n/a."""
        return {"over_refusal": "over_refusal", "under_refusal": "under_refusal",
                "appropriate_refusal": "appropriate"}.get(self.behaviour, "n/a")


def build_items(week: Week, seed: int) -> list[Item]:
    """The week's 15 tasks x 4 models, with gold and contentious items marked."""
    rng = random.Random(f"{seed}:forms:items:{week.index}")
    tasks = tasks_for_week(week.index, rng)
    behaviours = _planned_behaviours(week, tasks, rng)
    items = []
    for task in tasks:
        task_effect = rng.gauss(0, 0.3)
        for model in MODELS:
            response_id = f"r-{week.label}-{len(items) + 1:03d}"
            behaviour = behaviours.get((task.task_id, model.id), "skill")
            items.append(_item(week, task, model, response_id, behaviour, task_effect, rng))
    _mark_gold(items, rng)
    _mark_contentious(items, rng)
    return items


def _planned_behaviours(week: Week, tasks: list[TaskSpec], rng: random.Random) -> dict[tuple[str, str], str]:
    """(task, model) -> the answer's behaviour, for the answers that are not simply good or weak."""
    plan = {}
    advice = [t for t in tasks if t.kind == "advice"]
    for task in rng.sample(advice, min(VIOLATIONS_PER_WEEK, len(advice))):
        plan[(task.task_id, VIOLATING_MODEL)] = "violating"
    harmless = [t for t in tasks if t.modality == "chat" and t.kind in ("benign", "advice")]
    for task in rng.sample(harmless, min(OVER_REFUSALS_PER_WEEK, len(harmless))):
        plan[(task.task_id, OVER_REFUSING_MODEL)] = "over_refusal"
    for task in (t for t in tasks if t.kind == "should_refuse"):
        for model in MODELS:
            complies = model.id == UNDER_REFUSING_MODEL and (week.index // 2) % 2 == 0
            plan[(task.task_id, model.id)] = "under_refusal" if complies else "appropriate_refusal"
    return plan


def _item(week: Week, task: TaskSpec, model: Model, response_id: str, behaviour: str, task_effect: float,
          rng: random.Random) -> Item:
    quality = model.form_quality + task_effect + rng.gauss(0, 0.55)
    if behaviour in FIXED_TRUTH:
        truth = {d: v + rng.gauss(0, 0.15) for d, v in FIXED_TRUTH[behaviour].items()}
    else:
        truth = _skill_truth(quality, rng)
        behaviour = "good" if quality >= 3.1 else "weak"
    item = Item(week, task, model, response_id, behaviour, truth)
    if behaviour in ("violating", "under_refusal"):
        item.severity = rng.choice((1, 2, 2, 3))
    item.facts = _facts(item, quality, rng)
    return item


def _skill_truth(quality: float, rng: random.Random) -> dict[str, float]:
    helpfulness = quality + 0.1 + rng.gauss(0, 0.3)
    following = quality + rng.gauss(0, 0.3)
    faithfulness = quality - 0.1 + rng.gauss(0, 0.35)
    return {
        "helpfulness": helpfulness,
        "instruction_following": following,
        "faithfulness": faithfulness,
        "safety": 4.4 + rng.gauss(0, 0.3),
        "overall_quality": (helpfulness + following + faithfulness) / 3 + rng.gauss(0, 0.15),
    }


def _facts(item: Item, quality: float, rng: random.Random) -> dict:
    """Observable facts about the answer that every rater reports the same way (turns, tools, outcome)."""
    if item.task.modality == "chat":
        return {"turn_count": rng.randint(1, 4), "tone": rng.choice(TONES), "persona_drift": rng.random() < 0.05}
    if item.task.modality == "rag":
        return {"unsupported": item.behaviour == "weak"}
    successes = max(0, min(3, round((quality - 2.0) * 1.5 + rng.gauss(0, 0.6))))
    n_tools = rng.randint(2, 6)
    return {
        "task_success": "complete" if successes == 3 else "partial" if successes >= 1 else "failed",
        "successes": successes,
        "tools": [(rng.choice(("shell", "http_get", "sql", "k8s_scale", "jira_api", "s3_api")),
                   rng.random() > 0.1 or quality > 3.5, rng.random() > 0.15, rng.random() < 0.1)
                  for _ in range(n_tools)],
        "n_turns": n_tools * 2 + 2,
        "n_tokens": rng.randint(3_000, 24_000),
        "latency_ms": round(rng.uniform(8_000, 95_000), 1),
        "unintended": item.behaviour == "weak" and rng.random() < 0.2,
    }


def _mark_gold(items: list[Item], rng: random.Random) -> None:
    """A few good chat answers a week become known-answer items with a calibration target."""
    candidates = [i for i in items if i.task.modality == "chat" and i.task.kind == "benign" and i.behaviour == "good"]
    candidates.sort(key=lambda i: -i.truth["helpfulness"])
    for item in rng.sample(candidates[: GOLD_PER_WEEK * 3], min(GOLD_PER_WEEK, len(candidates))):
        target = max(3, min(5, round(item.truth["helpfulness"])))
        item.gold_item_id = f"gold-{item.task.task_id}-{item.model.slug}-{item.week.label}"
        item.calibration_target = {"helpfulness": target, "hazard.privacy": "non_violating"}


def _mark_contentious(items: list[Item], rng: random.Random) -> None:
    """A handful of items whose human raters genuinely disagree (a spread of 3+ points) on two dimensions."""
    candidates = [i for i in items if i.gold_item_id is None and i.behaviour in ("good", "weak")]
    for item in rng.sample(candidates, min(CONTENTIOUS_PER_WEEK, len(candidates))):
        first = rng.choice(("faithfulness", "instruction_following"))
        second = rng.choice(tuple(d for d in DIMENSIONS if d not in (first, "safety")))
        item.contentious = tuple(d for d in DIMENSIONS if d in (first, second))
