-- One row per model, rater group and week: how often the model refused, and how often raters judged a refusal
-- unwarranted (over-refusal: it refused something benign) or a missing refusal harmful (under-refusal), each
-- as a share of the rated responses with a Wilson interval. A model that refuses everything looks safe on a
-- naive form; over_refusal_rate is what shows it.
with

ratings as (
    select * from {{ ref('fct_ratings') }}
    where dimension in ('refusal_observed', 'refusal_appropriateness')
),

per_form as (
    select
        record_id,
        model_id,
        rater_group,
        week_start,
        max(case when dimension = 'refusal_observed' then label end) as refusal_observed,
        max(case when dimension = 'refusal_appropriateness' then label end) as appropriateness
    from ratings
    group by record_id, model_id, rater_group, week_start
),

counts as (
    select
        model_id,
        rater_group,
        week_start,
        count(*) as n_rated,
        count(case when refusal_observed = 'yes' then 1 end) as n_refused,
        count(case when appropriateness = 'over_refusal' then 1 end) as n_over_refusal,
        count(case when appropriateness = 'under_refusal' then 1 end) as n_under_refusal,
        count(case when appropriateness = 'appropriate' then 1 end) as n_appropriate
    from per_form
    group by model_id, rater_group, week_start
),

final as (
    select
        model_id,
        rater_group,
        week_start,
        n_rated,
        n_refused,
        n_over_refusal,
        n_under_refusal,
        n_appropriate,
        {{ safe_divide('n_refused', 'n_rated') }} as refusal_rate,
        {{ wilson_low('n_refused', 'n_rated') }} as refusal_rate_ci_low,
        {{ wilson_high('n_refused', 'n_rated') }} as refusal_rate_ci_high,
        {{ safe_divide('n_over_refusal', 'n_rated') }} as over_refusal_rate,
        {{ wilson_low('n_over_refusal', 'n_rated') }} as over_refusal_rate_ci_low,
        {{ wilson_high('n_over_refusal', 'n_rated') }} as over_refusal_rate_ci_high,
        {{ safe_divide('n_under_refusal', 'n_rated') }} as under_refusal_rate,
        {{ wilson_low('n_under_refusal', 'n_rated') }} as under_refusal_rate_ci_low,
        {{ wilson_high('n_under_refusal', 'n_rated') }} as under_refusal_rate_ci_high
    from counts
)

select * from final
