-- One row per CogniBench record, ranked among the versions of its judged response: which one counts.
-- CogniBench writes a record per judged response and, when a person completes the review, exports it again (the
-- same verdict, human_review_status 'Completed', the reviewer's scores), under the same evaluation_id or another;
-- raw rows are never updated, so the warehouse holds both. One version per judged response (the item, macros/
-- item_ids.sql, by one judge model) counts: the judge's ratings (fct_ratings) and the trial (int_trials_unioned)
-- come from version_rank 1 only, the person's ratings from the latest completed version (review_rank 1).
-- The order, latest first: created_at (the verdict's time: a later run of the judge is a newer verdict), then a
-- Completed record before one that is not (its completion: the same verdict, a later review state), then the
-- later human_reviewed_at, then the later ingest (ingested_at, source_path, source_line, record_id: the last
-- resolves ties). So a completed record supersedes every record of its item and judge created at or before it,
-- the review queue's rule (int_review_records_queued reads is_superseded_by_review), and a judge's later run waits
-- for its own review while counting as the newest verdict.
-- A table over all CogniBench records (rebuilt when they change: few rows): the ratings and trials built
-- incrementally upstream keep every version, and what reads them leaves the uncounted ones out (the ratings:
-- int_ratings_counted; the trials: int_trials_unioned joins version_rank 1).
with

judge_records as (
    select * from {{ ref('stg_cognibench__judge_records') }}
),

versions as (
    select
        record_id,
        {{ cognibench_item_id() }} as item_id,
        judge_model,
        created_at,
        coalesce(human_review_status = 'Completed', false) as is_completed,
        needs_human_review,
        human_review_status,
        human_reviewed_at,
        ingested_at,
        source_path,
        source_line
    from judge_records
),

ranked as (
    select
        *,
        row_number() over (
            partition by item_id, judge_model
            order by created_at desc nulls last, case when is_completed then 0 else 1 end,
                human_reviewed_at desc nulls last, ingested_at desc, source_path desc, source_line desc,
                record_id desc
        ) as version_rank
    from versions
),

final as (
    select
        record_id,
        item_id,
        judge_model,
        created_at,
        is_completed,
        needs_human_review,
        human_review_status,
        version_rank,
        case
            when is_completed then row_number() over (
                partition by item_id, judge_model, is_completed order by version_rank
            )
        end as review_rank,
        coalesce(
            min(case when is_completed then version_rank end) over (partition by item_id, judge_model)
                < version_rank,
            false
        ) as is_superseded_by_review
    from ranked
)

select * from final
