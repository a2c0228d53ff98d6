-- One row per rater: a person (by id) or an LLM judge (model + prompt), with what kind of rater they are and how
-- much they rated. A person who also reviews judge forms appears once: rater_type is their own kind (human,
-- sme, end_user), with n_hybrid_reviews counting the reviews; a rater seen only in reviews is 'hybrid'.
-- Counts are over the ratings that count (int_ratings_counted: a CogniBench verdict exported again with its review
-- is one rating, and a review superseded by a later one is none), all of them, so a rater's items agree with their
-- ratings. int_ratings_counted is read where used, not through an import CTE: DuckDB copies a CTE read more than
-- once whole (docs/performance.md, "What made it faster").
with

per_rater as (
    select
        rater_id,
        count(*) as n_ratings,
        min(case rater_type
            when 'llm_judge' then 1 when 'human' then 2 when 'sme' then 3 when 'end_user' then 4 else 5
        end) as type_rank,
        max(judge_model) as judge_model,
        max(training_cohort) as training_cohort,
        min(rated_at) as first_rated_at,
        max(rated_at) as last_rated_at
    from {{ ref('int_ratings_counted') }}
    where rater_id is not null
    group by rater_id
),

-- Distinct counts as a group by, then a count: count(distinct) over millions of ratings, and a window sorting
-- them per rater, took 1.05 s on the benchmark's 3.9 million ratings; these 0.39 s.
rater_items as (
    select rater_id, count(item_id) as n_items
    from (
        select rater_id, item_id from {{ ref('int_ratings_counted') }} as ratings
        where rater_id is not null
        group by rater_id, item_id
    ) as pairs
    group by rater_id
),

rater_reviews as (
    select rater_id, count(record_id) as n_hybrid_reviews
    from (
        select rater_id, record_id from {{ ref('int_ratings_counted') }} as ratings
        where rater_id is not null and rater_type = 'hybrid'
        group by rater_id, record_id
    ) as reviews
    group by rater_id
),

rater_versions as (
    select rater_id, count(rater_version) as n_versions
    from (
        select rater_id, rater_version from {{ ref('int_ratings_counted') }} as ratings
        where rater_id is not null
        group by rater_id, rater_version
    ) as pairs
    group by rater_id
),

versioned as (
    select rater_id, rated_at, record_id, rater_version
    from {{ ref('int_ratings_counted') }} as ratings
    where rater_version is not null
),

last_versioned_at as (
    select rater_id, max(rated_at) as rated_at
    from versioned
    group by rater_id
),

last_versioned_record as (
    -- The rater's latest versioned rating: the latest rated_at (an undated one only if none is dated), the first
    -- record among ties.
    select versioned.rater_id, versioned.rated_at, min(versioned.record_id) as record_id
    from versioned
    inner join last_versioned_at
        on versioned.rater_id = last_versioned_at.rater_id
        and versioned.rated_at is not distinct from last_versioned_at.rated_at
    group by versioned.rater_id, versioned.rated_at
),

latest_version as (
    select versioned.rater_id, min(versioned.rater_version) as rater_version
    from versioned
    inner join last_versioned_record
        on versioned.rater_id = last_versioned_record.rater_id
        and versioned.rated_at is not distinct from last_versioned_record.rated_at
        and versioned.record_id = last_versioned_record.record_id
    group by versioned.rater_id
),

final as (
    select
        per_rater.rater_id,
        case per_rater.type_rank
            when 1 then 'llm_judge' when 2 then 'human' when 3 then 'sme' when 4 then 'end_user' else 'hybrid'
        end as rater_type,
        per_rater.judge_model,
        latest_version.rater_version,
        coalesce(rater_versions.n_versions, 0) as n_versions,
        per_rater.training_cohort,
        per_rater.n_ratings,
        coalesce(rater_items.n_items, 0) as n_items,
        coalesce(rater_reviews.n_hybrid_reviews, 0) as n_hybrid_reviews,
        per_rater.first_rated_at,
        per_rater.last_rated_at
    from per_rater
    left join latest_version on per_rater.rater_id = latest_version.rater_id
    left join rater_items on per_rater.rater_id = rater_items.rater_id
    left join rater_reviews on per_rater.rater_id = rater_reviews.rater_id
    left join rater_versions on per_rater.rater_id = rater_versions.rater_id
)

select * from final
