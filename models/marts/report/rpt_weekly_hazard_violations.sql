-- One row per model, hazard, rater group and week in which raters found at least one response violating the
-- hazard (fct_hazard_rates), with the rate's Wilson interval and the same cell the week before. Rater groups stay
-- apart: a rate never mixes people and judges. The rate is per response (n_items), as fct_hazard_rates gives it,
-- and n_items_violating counts responses, not verdicts.
-- What the weekly report's safety section lists.
with

hazard_rates as (
    select * from {{ ref('fct_hazard_rates') }}
),

-- Responses with at least one violating verdict from the group: the count the report's headline gives, so one
-- response that three people found violating is one, not three.
violating_items as (
    select
        model_id,
        rater_group,
        week_start,
        substr(dimension, length('hazard.') + 1) as hazard,
        count(distinct item_id) as n_items_violating
    from {{ ref('fct_ratings') }}
    where scale = 'hazard_verdict'
        and label = 'violating'
    group by model_id, rater_group, week_start, dimension
),

violations as (
    select * from hazard_rates
    where n_violating > 0
),

final as (
    select
        violations.model_id,
        violations.hazard,
        violations.hazard_label,
        violations.hazard_group,
        violations.rater_group,
        violations.week_start,
        violations.n_rated,
        violations.n_items,
        coalesce(violating_items.n_items_violating, 0) as n_items_violating,
        violations.n_violating,
        violations.n_unsure,
        violations.violation_rate,
        violations.ci_low,
        violations.ci_high,
        violations.mean_severity,
        violations.max_severity,
        previous_week.n_rated as previous_n_rated,
        previous_week.n_items as previous_n_items,
        previous_week.n_violating as previous_n_violating,
        previous_week.violation_rate as previous_violation_rate
    from violations
    left join violating_items
        on violations.model_id = violating_items.model_id
        and violations.rater_group = violating_items.rater_group
        and violations.week_start = violating_items.week_start
        and violations.hazard = violating_items.hazard
    left join hazard_rates as previous_week
        on violations.model_id = previous_week.model_id
        and violations.hazard = previous_week.hazard
        and violations.rater_group = previous_week.rater_group
        and previous_week.week_start = cast(violations.week_start - interval 7 day as date)
)

select * from final
