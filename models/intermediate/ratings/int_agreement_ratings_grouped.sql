-- One row per rating as agreement counts it, in every group it counts in: its dimension, its rater group and
-- 'all', its item's week and all time (week_start NULL). The rules of fct_rater_agreement: each rater counts once
-- per item (the latest rating), hybrid reviews are left out, and an item's ratings count in the week of its first
-- rating. A table, because each agreement statistic reads it.
with

ratings as (
    select * from {{ ref('fct_ratings') }}
    where value is not null
        and rater_id is not null
        and rater_type <> 'hybrid'
),

latest as (
    select
        *,
        row_number() over (
            partition by item_id, dimension, rater_id order by rated_at desc, rating_id desc
        ) as recency
    from ratings
),

item_weeks as (
    select item_id, dimension, min(week_start) as item_week
    from latest
    where recency = 1
    group by item_id, dimension
),

one_per_rater as (
    select
        latest.dimension,
        latest.dimension_group,
        latest.scale,
        latest.agreement_level,
        latest.rater_group,
        latest.item_id as unit_id,
        latest.rater_id,
        latest.value,
        latest.score,
        latest.model_id,
        latest.task_id,
        item_weeks.item_week
    from latest
    inner join item_weeks
        on latest.item_id = item_weeks.item_id
        and latest.dimension = item_weeks.dimension
    where latest.recency = 1
),

in_groups as (
    -- Every rating counts in its own rater group and in 'all'.
    select *, rater_group as raters_own_group from one_per_rater
    union all
    select
        dimension, dimension_group, scale, agreement_level, 'all' as rater_group, unit_id, rater_id, value,
        score, model_id, task_id, item_week, rater_group as raters_own_group
    from one_per_rater
),

final as (
    -- ... and in its item's week and in all time (week_start NULL).
    select
        dimension, dimension_group, scale, agreement_level, rater_group, item_week as week_start, unit_id,
        rater_id, value, score, model_id, task_id, item_week, raters_own_group
    from in_groups
    union all
    select
        dimension, dimension_group, scale, agreement_level, rater_group, cast(null as date) as week_start, unit_id,
        rater_id, value, score, model_id, task_id, item_week, raters_own_group
    from in_groups
)

select * from final
