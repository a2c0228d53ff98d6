-- One row per (dimension, item, rater) as agreement counts it: each rater once per item (the latest rating),
-- hybrid reviews left out, and every rating of an item in the week of the item's first rating (item_week). The
-- rules of fct_rater_agreement and fct_item_disagreement, kept in one place; the marts count these rows into their
-- groups (a rater group and 'all', a week and all time) themselves, on counts rather than on copies of the rows.
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

final as (
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
)

select * from final
