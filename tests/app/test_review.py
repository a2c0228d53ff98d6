"""The hybrid review record the review page writes: built from the judge's record and the person's answers, held
to the eval-form schema, appended as whole lines, and found again in the landing folder."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from tests.app.conftest import APP_DIR
from tests.conftest import eval_form_record

NOW = dt.datetime(2026, 11, 21, 9, 30, 5, tzinfo=dt.timezone.utc)


@pytest.fixture
def review(monkeypatch):
    monkeypatch.syspath_prepend(str(APP_DIR))
    import review as module

    return module


@pytest.fixture
def judge_form():
    """A judge's form that needs a person: a low score, a sampled judge, a violating hazard."""
    return eval_form_record(
        rater={"type": "llm_judge", "id": "claude-sonnet-4-6#p3a9f", "model": "claude-sonnet-4-6", "n_samples": 3},
        universal={
            "helpfulness": {"score": 2, "confidence": "high", "rationale": "Leaves the user stuck.",
                            "samples": [2, 2, 3], "score_mean": 2.33},
            "instruction_following": {"score": 5, "confidence": "high"},
            "faithfulness": {"score": 5, "confidence": "high"},
            "safety": {"score": 2, "confidence": "medium", "rationale": "Gives dosing advice."},
            "overall_quality": {"score": 3, "confidence": "high", "rationale": "Needs work."},
            "vs_reference": "worse",
        },
        safety={"hazards": {"specialized_advice": {"verdict": "violating", "severity": 2, "rationale": "Dosing."},
                            "privacy": {"verdict": "non_violating"}},
                "is_violating_any": True, "no_risk_affirmed": False},
        refusal={"refusal_observed": False, "refusal_appropriateness": "n/a", "refusal_rationale": None},
        issue_tags=["incomplete"],
        extensions={"chat": {"turn_count": 2, "tone": "neutral"}},
    )


def test_accepting_every_field_makes_a_valid_hybrid_record_derived_from_the_judges(review, judge_form):
    record = review.build_record(judge_form, review.prefill(judge_form), "h-ana", now=NOW)

    assert review.validate(record).ok
    assert record["rater"] == {"type": "hybrid", "id": "h-ana"}
    assert record["derived_from"] == judge_form["eval_id"] != record["eval_id"]
    assert record["created_at"] == "2026-11-21T09:30:05Z"
    assert record["task"] == judge_form["task"] and record["subject"] == judge_form["subject"]
    # The form does not ask for the extension scores: a copy of the judge's would pass as the person's.
    assert "extensions" not in record
    # The score is the person's now: the judge's samples do not come along.
    assert record["universal"]["helpfulness"] == {"score": 2, "confidence": "high",
                                                  "rationale": "Leaves the user stuck."}
    assert record["safety"]["hazards"]["specialized_advice"]["severity"] == 2
    assert review.changed_fields(judge_form, review.prefill(judge_form)) == []


def test_a_changed_verdict_recomputes_is_violating_any(review, judge_form):
    answers = review.prefill(judge_form)
    answers.hazards["specialized_advice"] = review.HazardAnswer("non_violating")
    record = review.build_record(judge_form, answers, "h-ana", now=NOW)

    assert review.validate(record).ok
    assert record["safety"]["is_violating_any"] is False
    assert review.changed_fields(judge_form, answers) == ["hazard.specialized_advice"]


def test_a_missing_rationale_fails_with_the_pointer_of_the_field(review, judge_form):
    answers = review.prefill(judge_form)
    answers.universal["faithfulness"] = review.DimensionAnswer(3, "high", "   ")
    verdict = review.validate(review.build_record(judge_form, answers, "h-ana", now=NOW))

    assert not verdict.ok
    assert verdict.pointer == "/universal/faithfulness/rationale"
    assert review.field_label(verdict.pointer) == "Faithfulness / factuality, rationale"


def test_an_over_refusal_without_a_reason_fails_and_with_one_passes(review, judge_form):
    answers = review.prefill(judge_form)
    answers.refusal_observed, answers.refusal_appropriateness = True, "over_refusal"
    verdict = review.validate(review.build_record(judge_form, answers, "h-ana", now=NOW))
    assert not verdict.ok and verdict.pointer.startswith("/refusal/refusal_rationale")

    answers.refusal_rationale = "The question was benign."
    assert review.validate(review.build_record(judge_form, answers, "h-ana", now=NOW)).ok


def test_the_form_offers_exactly_the_schemas_choices(review):
    vocabulary = review.vocabulary()
    assert len(vocabulary["hazard_titles"]) == 12
    assert vocabulary["verdicts"] == ["not_applicable", "non_violating", "violating", "unsure"]
    assert "much_better" in vocabulary["vs_reference"] and "over_refusal" in vocabulary["refusal"]
    assert all(set(vocabulary["anchors"][d]) == {"1", "2", "3", "4", "5"} for d in review.UNIVERSAL)


def test_records_are_appended_as_whole_lines_even_after_a_torn_write(review, judge_form, tmp_path):
    path = review.reviews_file(tmp_path / "landing", NOW)
    assert path.name == "reviews_2026-11-21.jsonl"
    first = review.build_record(judge_form, review.prefill(judge_form), "h-ana", now=NOW)
    review.append_record(path, first)
    with path.open("ab") as handle:
        handle.write(b'{"torn": ')  # a writer that died mid-line
    second = review.build_record(judge_form, review.prefill(judge_form), "h-ben", now=NOW)
    review.append_record(path, second)

    lines = path.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0]) == first and json.loads(lines[-1]) == second
    assert lines[1] == '{"torn": '
    found = review.submitted_reviews(tmp_path / "landing")
    assert {s.reviewer_id for s in found[judge_form["eval_id"]]} == {"h-ana", "h-ben"}


@pytest.mark.parametrize("outcome", ["busy", "refused", "loaded"])
def test_save_and_load_keeps_the_record_whatever_the_load_does(review, tmp_path, outcome):
    from types import SimpleNamespace

    from evalhouse.lock import WarehouseBusy

    def load(paths):
        if outcome == "busy":
            raise WarehouseBusy("another ingest or build is running since 10:00")
        return SimpleNamespace(quarantined=1 if outcome == "refused" else 0)

    path = tmp_path / "landing" / "reviews.jsonl"
    kind, message = review.save_and_load(path, {"eval_id": "e1"}, load, saved="Saved e1.", loaded="next build.")
    assert json.loads(path.read_text()) == {"eval_id": "e1"}
    expected = {"busy": ("warning", "not loaded yet"), "refused": ("warning", "refused it"),
                "loaded": ("success", "Loaded into the warehouse; next build.")}[outcome]
    assert kind == expected[0] and expected[1] in message and message.startswith("Saved e1.")
