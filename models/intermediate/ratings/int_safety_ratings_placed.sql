-- One row per safety rating that counts (hazard verdicts, refusal observed and its appropriateness), placed in
-- the week of the response it judges: a hybrid review (a person confirming or overriding an LLM judge's form, with it
-- in front of them) takes the week of the judge form it derives from, as fct_judge_overrides counts it; every other
-- rating, and a review whose judge form is not in the warehouse, keeps the week it was given. A review of a
-- response from weeks back, written from the review queue today, would otherwise count as the model's violation this
-- week. fct_hazard_rates, fct_hazard_rates_all_time (where the week only sets the weeks covered) and
-- fct_refusal_calibration read it.
{{ config(materialized='view') }}

with

safety_ratings as (
    select
        record_id,
        item_id,
        model_id,
        dimension,
        scale,
        label,
        severity,
        rater_group,
        derived_from,
        week_start
    from {{ ref('int_ratings_counted') }}
    where scale = 'hazard_verdict'
        or dimension in ('refusal_observed', 'refusal_appropriateness')
),

reviewed_forms as (
    -- The week of each judge form a hybrid review derives from (a form is filled at one moment: one week).
    select
        record_id,
        min(week_start) as week_start
    from {{ ref('int_ratings_counted') }}
    where rater_group = 'llm_judge'
        and record_id in (
            -- read again rather than from safety_ratings: DuckDB materialises a CTE read twice, whole
            select derived_from from {{ ref('int_ratings_counted') }}
            where rater_group = 'hybrid' and derived_from is not null
        )
    group by record_id
)

select
    safety_ratings.record_id,
    safety_ratings.item_id,
    safety_ratings.model_id,
    safety_ratings.dimension,
    safety_ratings.scale,
    safety_ratings.label,
    safety_ratings.severity,
    safety_ratings.rater_group,
    coalesce(reviewed_forms.week_start, safety_ratings.week_start) as week_start,
    safety_ratings.week_start as rated_week_start
from safety_ratings
left join reviewed_forms
    on safety_ratings.rater_group = 'hybrid'
    and safety_ratings.derived_from = reviewed_forms.record_id
