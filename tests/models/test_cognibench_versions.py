"""CogniBench exports a judged response again when a person completes its review: one version of it counts (its
judge ratings and its trial; the person's ratings from the completed one), in a full build and in incremental builds
that receive the completion in a later batch alike."""

from __future__ import annotations

import datetime as dt

import pytest

from evalhouse.build import build_in_process
from evalhouse.checksums import mart_differences
from tests.conftest import Warehouse, built_warehouse_path, cognibench_record, write_lines

pytestmark = pytest.mark.slow

CRITERIA = {"Problem Understanding": {"score": "Yes", "justification": "Sound."},
            "Results Formulae": {"score": "Partial", "justification": "An arithmetic slip."}}
REVIEW = {"human_review_status": "Completed", "human_reviewer_id": "reviewer-1",
          "human_review_timestamp": "2026-11-18T09:00:00.000001Z",
          "human_corrected_scores": {"Results Formulae": {"score": "No", "justification": "Wrong result."}},
          "human_review_comments": "Changed Results Formulae (Partial -> No)."}


def _judged(task_id: int, response_id: str, **changes) -> dict:
    return cognibench_record(**{
        "task_id": task_id, "response_id": response_id, "parsed_rubric_scores": CRITERIA, "aggregated_score": "Partial",
        "needs_human_review": True, "human_review_status": "Needs Review",
        "review_reasons": ["Aggregated score is Partial"], "created_at": "2026-11-10T08:00:00.000001Z", **changes})


def test_a_completion_in_a_later_batch_replaces_its_first_export_as_in_a_full_build(tmp_path):
    first = _judged(1, "r1")
    second_attempt = _judged(1, "r1b", created_at="2026-11-11T08:00:00.000001Z")  # another response: a trial
    renamed = _judged(2, "r2")
    untouched = _judged(3, "r3", aggregated_score="Pass", needs_human_review=False, human_review_status="Not Required",
                        review_reasons=[])
    judged = write_lines(tmp_path / "judged.jsonl", [first, second_attempt, renamed, untouched])
    # the first completed under its evaluation_id, the other under a new one: both are the same verdict reviewed
    completed = write_lines(tmp_path / "completed.jsonl",
                            [{**first, **REVIEW}, {**renamed, **REVIEW, "evaluation_id": "eval_renamed_completed"}])

    incremental = Warehouse(built_warehouse_path(tmp_path / "incremental"))
    incremental.ingest(judged)
    assert build_in_process(incremental.path, target_path=tmp_path / "t1", quiet=True).ok
    assert incremental.scalar("select count(*) from marts.fct_review_queue") == 3
    incremental.ingest(completed)
    assert build_in_process(incremental.path, target_path=tmp_path / "t1", quiet=True).ok

    full = Warehouse(built_warehouse_path(tmp_path / "full"))
    full.ingest(judged)
    full.ingest(completed)
    full.build(target_path=tmp_path / "t2")
    assert full.quarantine() == []
    assert mart_differences(full.path, incremental.path) == []

    for warehouse in (full, incremental):
        # four responses, two criteria each: one judge rating per response and criterion, not one per export
        judge = warehouse.rows("select record_id, count(*) from marts.fct_ratings where rater_type = 'llm_judge' "
                               "group by record_id order by record_id")
        completed_first = warehouse.scalar("select record_id from raw.cognibench where natural_key = ? "
                                           "and record_id <> natural_key", [first["evaluation_id"]])
        assert judge == sorted([(completed_first, 2), ("eval_renamed_completed", 2),
                                (second_attempt["evaluation_id"], 2), (untouched["evaluation_id"], 2)])
        assert warehouse.scalar("select count(*) from marts.fct_ratings where rater_type = 'human'") == 4
        # each trial's grade is its aggregated score's ("Partial" 0.5, "Pass" 1), as the seed's lower-case labels map it
        trials = warehouse.rows("select sample_id, trial_index, trial_id, score from marts.fct_trials order by 1, 2")
        assert trials == [("1", 1, completed_first, 0.5), ("1", 2, second_attempt["evaluation_id"], 0.5),
                          ("2", 1, "eval_renamed_completed", 0.5), ("3", 1, untouched["evaluation_id"], 1.0)]
        assert warehouse.scalar("select sum(n_attempts) from marts.dim_models") == 4
        assert warehouse.scalar("select n_ratings from marts.dim_raters where rater_id = 'gpt-4o'") == 8
        assert warehouse.scalar("select sum(n_reviewed_ratings) from marts.fct_judge_overrides") == 4
        # the reviewed responses left the queue; the second attempt still waits
        assert warehouse.rows("select record_id from marts.fct_review_queue") == [(second_attempt["evaluation_id"],)]


def test_a_review_superseded_by_a_later_one_counts_nowhere_and_its_reviewer_keeps_only_counted_items(tmp_path):
    """Two people complete the review of one response (two completed exports, the later review counts: review_rank 1):
    the earlier reviewer's ratings of it are in no mart, so dim_raters counts for them the items of the ratings it
    counts (their other review), and the override rate one review per response."""
    reviewed, other = _judged(1, "r1"), _judged(2, "r2")
    later_review = {**REVIEW, "human_reviewer_id": "reviewer-2", "human_corrected_scores": {},
                    "human_review_timestamp": "2026-11-19T09:00:00.000001Z"}
    records = write_lines(tmp_path / "records.jsonl", [
        reviewed, other,
        {**reviewed, **REVIEW, "evaluation_id": "eval_first_review"},
        {**other, **REVIEW, "evaluation_id": "eval_other_review"},
        {**reviewed, **later_review, "evaluation_id": "eval_second_review"},
    ])
    warehouse = Warehouse(tmp_path / "w.duckdb")
    warehouse.ingest(records)
    assert warehouse.quarantine() == []
    warehouse.build(target_path=tmp_path / "t")

    assert warehouse.rows("select record_id, rater_id, count(*) from marts.fct_ratings where rater_type = 'human' "
                          "group by all order by 1") == [("eval_other_review", "reviewer-1", 2),
                                                         ("eval_second_review", "reviewer-2", 2)]
    # reviewer-1's ratings: their correction with their reason; a score they confirmed has no reason of theirs
    assert warehouse.rows("select dimension_label, label, rationale from marts.fct_ratings where rater_type = 'human' "
                          "and record_id = 'eval_other_review' order by 1") == [
        ("Problem Understanding", "yes", None), ("Results Formulae", "no", "Wrong result.")]
    # a person's ratings are dated when they completed the review, not when the judge judged (2026-11-10)
    assert warehouse.rows("select distinct record_id, rated_at from marts.fct_ratings where rater_type = 'human' "
                          "order by 1") == [("eval_other_review", dt.datetime(2026, 11, 18, 9, 0, 0, 1)),
                                            ("eval_second_review", dt.datetime(2026, 11, 19, 9, 0, 0, 1))]
    assert warehouse.rows("select rater_id, n_ratings, n_items from marts.dim_raters where rater_id like 'reviewer-%' "
                          "order by 1") == [("reviewer-1", 2, 1), ("reviewer-2", 2, 1)]
    # reviewer-2 kept both of the judge's scores, reviewer-1 changed Results Formulae on the other response
    assert warehouse.rows("select sum(n_reviews), sum(n_overridden) from marts.fct_judge_overrides") == [(4, 1)]
