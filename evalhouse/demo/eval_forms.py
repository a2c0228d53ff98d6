"""Eval forms for every week: items, judge/human/SME ratings, hybrid reviews, one JSONL file per ISO week.

A form goes in the file of the ISO week its created_at falls in; lines are in created_at order, as an
append-only store would hold them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from evalhouse.demo.form_items import build_items
from evalhouse.demo.form_ratings import rate_week
from evalhouse.demo.form_reviews import needs_confirmation, review_judge_forms
from evalhouse.demo.timeline import Clock, Week, iso_week_label
from evalhouse.demo.world import shifted_week_index


@dataclass(frozen=True)
class FormsOutput:
    # ISO week label -> that week's valid forms, in file order.
    by_week: tuple[tuple[str, tuple[dict, ...]], ...]
    n_forms: int
    n_hybrids: int
    # Judge forms that needed a person's confirmation and have no hybrid review yet.
    n_unreviewed: int


def generate_forms(weeks: tuple[Week, ...], clock: Clock, seed: int) -> FormsOutput:
    shifted = shifted_week_index(len(weeks))
    last = len(weeks) - 1
    forms: list[dict] = []
    n_hybrids = 0
    for week in weeks:
        rated = rate_week(week, build_items(week, seed), shifted, clock, seed)
        hybrids = review_judge_forms(rated, last, clock, seed, week.index)
        forms += [form for _, form in rated] + hybrids
        n_hybrids += len(hybrids)
    reviewed = {f["derived_from"] for f in forms if f["rater"]["type"] == "hybrid"}
    unreviewed = [f for f in forms if f["rater"]["type"] == "llm_judge" and needs_confirmation(f)
                  and f["eval_id"] not in reviewed]
    by_week = {week.label: [] for week in weeks}
    for form in sorted(forms, key=lambda f: (f["created_at"], f["eval_id"])):
        by_week[iso_week_label(_day(form["created_at"]))].append(form)
    return FormsOutput(
        by_week=tuple((label, tuple(week_forms)) for label, week_forms in by_week.items()),
        n_forms=len(forms), n_hybrids=n_hybrids, n_unreviewed=len(unreviewed),
    )


def _day(created_at: str) -> date:
    return date.fromisoformat(created_at[:10])
