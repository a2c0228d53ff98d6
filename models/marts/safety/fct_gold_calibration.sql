-- One row per rater and week: how close the rater came to the known answers of gold (calibration) items.
-- A rating counts when its item is a gold item with a calibration_target for the rated dimension. Exact match
-- compares labels; on scales with scores (1-5, vs_reference) the absolute error and the share within one
-- point are given too (NULL on label-only scales such as hazard verdicts). Hybrid reviews are left out: they
-- start from a judge's pre-filled answer, so they would not measure the person.
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

scored as (
    select
        ratings.rater_id,
        ratings.rater_type,
        ratings.week_start,
        ratings.label = ratings.expected_label as is_exact,
        abs(ratings.score - expected.score_value) as abs_error
    from ratings
    left join label_map as expected
        on ratings.scale = expected.scale
        and ratings.expected_label = expected.label
),

final as (
    select
        rater_id,
        max(rater_type) as rater_type,
        week_start,
        count(*) as n_gold_ratings,
        avg(case when is_exact then 1.0 else 0.0 end) as exact_match_rate,
        {{ wilson_low('sum(case when is_exact then 1 else 0 end)', 'count(*)') }} as exact_match_ci_low,
        {{ wilson_high('sum(case when is_exact then 1 else 0 end)', 'count(*)') }} as exact_match_ci_high,
        count(abs_error) as n_scored,
        avg(abs_error) as mean_abs_error,
        avg(case when abs_error is null then null when abs_error <= 1 then 1.0 else 0.0 end) as within_one_rate
    from scored
    group by rater_id, week_start
)

select * from final
