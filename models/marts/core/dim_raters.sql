-- One row per rater: a person (by id) or an LLM judge (model + prompt), with what kind of rater they are and how
-- much they rated. A person who also reviews judge forms appears once: rater_type is their own kind (human,
-- sme, end_user), with n_hybrid_reviews counting the reviews; a rater seen only in reviews is 'hybrid'.
with

ratings as (
    select * from {{ ref('int_ratings_unioned') }}
),

per_rater as (
    select
        rater_id,
        count(*) as n_ratings,
        count(distinct item_id) as n_items,
        count(distinct case when rater_type = 'hybrid' then record_id end) as n_hybrid_reviews,
        min(case rater_type
            when 'llm_judge' then 1 when 'human' then 2 when 'sme' then 3 when 'end_user' then 4 else 5
        end) as type_rank,
        max(judge_model) as judge_model,
        count(distinct rater_version) as n_versions,
        max(training_cohort) as training_cohort,
        min(rated_at) as first_rated_at,
        max(rated_at) as last_rated_at
    from ratings
    where rater_id is not null
    group by rater_id
),

latest_version as (
    select rater_id, rater_version
    from (
        select
            rater_id,
            rater_version,
            row_number() over (partition by rater_id order by rated_at desc, record_id) as recency
        from ratings
        where rater_version is not null
    ) as versions
    where recency = 1
),

final as (
    select
        per_rater.rater_id,
        case per_rater.type_rank
            when 1 then 'llm_judge' when 2 then 'human' when 3 then 'sme' when 4 then 'end_user' else 'hybrid'
        end as rater_type,
        per_rater.judge_model,
        latest_version.rater_version,
        per_rater.n_versions,
        per_rater.training_cohort,
        per_rater.n_ratings,
        per_rater.n_items,
        per_rater.n_hybrid_reviews,
        per_rater.first_rated_at,
        per_rater.last_rated_at
    from per_rater
    left join latest_version on per_rater.rater_id = latest_version.rater_id
)

select * from final
