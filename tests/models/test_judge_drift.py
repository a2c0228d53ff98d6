"""Judge drift compares an LLM judge with independent people only; a person's review of the judge's verdict (a
hybrid form derived from the judge's) is counted apart, as an override of the judge, never as a second opinion."""

from __future__ import annotations

import copy

import pytest

from evalhouse.build import run_dbt
from tests.conftest import Warehouse, eval_form_record, write_lines

pytestmark = pytest.mark.slow

JUDGE = {"type": "llm_judge", "id": "judge-x#1", "model": "judge-x", "version": "v1"}


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory) -> tuple[Warehouse, dict]:
    """One response, rated by a judge (helpfulness 5, faithfulness 5), independently by h-ana (helpfulness 1) and
    reviewed by h-ana too, with the judge's form in front of her: she keeps helpfulness 5 and changes faithfulness
    to 2. The same person rated and reviewed, as the demo's h-chen did. The judge's chat extension score comes along
    in the review unchanged, as the app's review form copied it (it cannot edit it)."""
    root = tmp_path_factory.mktemp("judge_drift")
    judge = eval_form_record(rater=JUDGE, created_at="2026-11-16T09:00:00Z")
    judge["universal"]["helpfulness"]["score"] = 5
    judge["universal"]["faithfulness"]["score"] = 5
    judge["extensions"] = {"chat": {"turn_count": 2, "consistency_across_turns": 4}}
    person = eval_form_record(rater={"type": "human", "id": "h-ana"}, created_at="2026-11-16T10:00:00Z")
    person["universal"]["helpfulness"] = {"score": 1, "confidence": "high", "rationale": "Ignores the question."}
    review = copy.deepcopy(judge)
    review.update(eval_id=eval_form_record()["eval_id"], derived_from=judge["eval_id"],
                  rater={"type": "hybrid", "id": "h-ana"}, created_at="2026-11-17T09:00:00Z")
    review["universal"]["faithfulness"] = {"score": 2, "confidence": "high", "rationale": "Invents a policy."}
    warehouse = Warehouse(root / "w.duckdb")
    summary = warehouse.ingest(write_lines(root / "forms.jsonl", [judge, person, review]))
    assert warehouse.quarantine() == [], summary
    select = ("build", "--select", "+fct_judge_drift", "+fct_judge_overrides")
    result = run_dbt(warehouse.path, select, target_path=root / "target", quiet=True)
    assert result.ok, result.failures
    return warehouse, {"judge": judge, "person": person, "review": review}


def test_a_review_of_the_judges_verdict_is_not_an_independent_person_in_drift(reviewed):
    warehouse, _ = reviewed
    helpfulness = warehouse.rows(
        """
        select n_pairs, n_humans, n_items, exact_agreement, mean_bias
        from marts.fct_judge_drift where judge_id = 'judge-x#1' and dimension = 'helpfulness'
        """
    )
    # Pooled with the review, the judge would have 2 pairs, half of them agreeing, and a bias of 5 - (1 + 5) / 2 = 2.
    assert helpfulness == [(1, 1, 1, 0.0, 4.0)]


def test_the_review_counts_as_an_override_of_the_judge_where_it_changed_the_verdict(reviewed):
    warehouse, _ = reviewed
    overrides = dict(
        (dimension, rest) for dimension, *rest in warehouse.rows(
            """
            select dimension, n_reviews, n_reviewed_ratings, n_reviewers, n_overridden, override_rate,
                   mean_score_change
            from marts.fct_judge_overrides where judge_id = 'judge-x#1'
            """
        )
    )
    # The extension score the reviewer could not change is no confirmation of it: not counted.
    assert set(overrides) == {"helpfulness", "instruction_following", "faithfulness", "safety", "overall_quality"}
    assert overrides["helpfulness"] == [1, 1, 1, 0, 0.0, 0.0]
    assert overrides["faithfulness"] == [1, 1, 1, 1, 1.0, -3.0]
    low, high = warehouse.rows(
        "select override_rate_ci_low, override_rate_ci_high from marts.fct_judge_overrides "
        "where dimension = 'faithfulness'")[0]
    assert low == pytest.approx(1 / (1 + 1.96**2)) and high == pytest.approx(1.0)  # Wilson, 1 of 1
