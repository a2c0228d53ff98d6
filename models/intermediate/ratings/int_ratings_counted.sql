-- One row per rating that counts: the ratings of int_ratings_unioned, less those of a CogniBench record that is not
-- the counted version of its judged response. CogniBench exports a judged response again when a person completes
-- its review (the same verdict, the reviewer's scores), so the warehouse holds several versions of it;
-- int_judge_records_ranked says which counts: the judge's ratings from the version ranked first (version_rank 1),
-- the person's from the latest completed one (review_rank 1). An eval form is never exported again: all its
-- ratings count. What asks for "the ratings" reads this model (fct_ratings is a view of it, dim_raters, dim_models,
-- and fct_judge_overrides for the reviews that count), so none of them repeats the rule.
-- A view, not a table: int_ratings_unioned is appended to by ingest batch, and a later version takes ratings already
-- stored out of the count (a completion supersedes the pending export), which an appended copy could not follow;
-- a copy of its millions of rows would also cost every build an append (fct_ratings is a view for that reason).
-- The eval forms' ratings are a branch of their own, taken as they are: only CogniBench's pay the anti-join on
-- (record_id, rater_type), so a reader scanning all the ratings does not read and probe every record id (on a
-- synthetic table of 3.9 million ratings, a count per rater type took 58 to 70 ms with the anti-join over all, 19
-- to 21 ms split, 16 ms on the table alone). int_ratings_unioned is read where used, not through an import CTE read
-- twice: DuckDB copies such a CTE whole (docs/performance.md, "What made it faster").
{{ config(materialized='view') }}
with

uncounted_records as (
    -- A record whose ratings by this rater type do not count: an older version's judge verdict, an earlier review.
    select record_id, 'llm_judge' as rater_type
    from {{ ref('int_judge_records_ranked') }}
    where version_rank > 1
    union all
    select record_id, 'human' as rater_type
    from {{ ref('int_judge_records_ranked') }}
    where review_rank > 1
),

final as (
    select *
    from {{ ref('int_ratings_unioned') }} as ratings
    where ratings.source_format <> 'cognibench'

    union all

    select *
    from {{ ref('int_ratings_unioned') }} as ratings
    where ratings.source_format = 'cognibench'
        and not exists (
            select 1
            from uncounted_records
            where uncounted_records.record_id = ratings.record_id
                and uncounted_records.rater_type = ratings.rater_type
        )
)

select * from final
