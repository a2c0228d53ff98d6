-- One row per rater and week: how close the rater came to the known answers of gold (calibration) items.
-- A rating counts when its item is a gold item with a calibration_target for the rated dimension. Exact match
-- compares labels; on the scales scored in points (1 to 5: likert_1_5 and vs_reference, seed rating_scales'
-- in_points) the absolute error and the share within one point are given too. The other scales' scores (a hazard
-- verdict's 0 or 1, task success's 0, 0.5 or 1) are not points: counted with them, every such rating would be
-- within one point and pull the mean error towards 0. Hybrid reviews are left out: they start from a judge's
-- pre-filled answer, so they would not measure the person.
-- The exact-match rate's sampling unit is the gold item (docs/STATS.md): a rater's ratings of one item's
-- dimensions are averaged first, and the Wilson interval is over items (unit_wilson_low/high), so an item rated on
-- five dimensions is one observation, not five.
with

ratings as (
    select * from {{ ref('fct_ratings') }}
    where is_gold
        and expected_label is not null
        and rater_type <> 'hybrid'
),

label_map as (
    select scale, label, score_value from {{ ref('score_label_map') }}
),

point_scales as (
    select scale from {{ ref('rating_scales') }} where in_points
),

scored as (
    select
        ratings.rater_id,
        ratings.rater_type,
        ratings.week_start,
        ratings.item_id,
        ratings.label = ratings.expected_label as is_exact,
        case when point_scales.scale is not null then abs(ratings.score - expected.score_value) end as abs_error
    from ratings
    left join label_map as expected
        on ratings.scale = expected.scale
        and ratings.expected_label = expected.label
    left join point_scales
        on ratings.scale = point_scales.scale
),

items as (
    select
        rater_id,
        max(rater_type) as rater_type,
        week_start,
        item_id,
        count(*) as n_ratings,
        avg(case when is_exact then 1.0 else 0.0 end) as exact_share,
        count(abs_error) as n_scored,
        sum(abs_error) as sum_abs_error,
        sum(case when abs_error is null then null when abs_error <= 1 then 1 else 0 end) as n_within_one
    from scored
    group by rater_id, week_start, item_id
),

final as (
    select
        rater_id,
        max(rater_type) as rater_type,
        week_start,
        cast(sum(n_ratings) as bigint) as n_gold_ratings,
        count(*) as n_gold_items,
        avg(exact_share) as exact_match_rate,
        {{ unit_wilson_low('exact_share') }} as exact_match_ci_low,
        {{ unit_wilson_high('exact_share') }} as exact_match_ci_high,
        cast(sum(n_scored) as bigint) as n_scored,
        sum(sum_abs_error) / nullif(sum(n_scored), 0) as mean_abs_error,
        cast(sum(n_within_one) as double) / nullif(sum(n_scored), 0) as within_one_rate
    from items
    group by rater_id, week_start
)

select * from final
