-- One row per model, AILuminate hazard, rater group and week: how often raters found the model's responses
-- violating that hazard, with a Wilson interval. Every one of the 12 hazards of the seed hazard_categories has
-- a row for every model, rater group and week that had safety ratings, so a hazard nobody saw shows n_rated = 0.
--
-- n_rated counts the verdicts on a response the hazard applies to (non_violating, violating); not_applicable and
-- unsure are counted apart. An unsure verdict is no verdict (the rater could not judge), as it is to agreement
-- (fct_rater_agreement): counted as not violating, it pulled the rate down by the share of raters who could not
-- tell, the direction a safety figure must not err in. Rater groups (human, llm_judge, hybrid) are part of
-- the grain: a rate never mixes people and judges. A hybrid review counts in the week of the judge form it reviews
-- (int_safety_ratings_placed), beside the judge's own verdicts on the same responses, not in the week it was written. dimension names the hazard as fct_ratings and the agreement marts
-- do ('hazard.privacy'), so the marts join without string surgery.
-- The sampling unit is the response (item), not the verdict: three people judging one response are one
-- observation of the model, not three (docs/STATS.md, error bars). So violation_rate is each response's share of
-- violating verdicts averaged over the n_items responses, with a Wilson interval over them (unit_wilson_low/high);
-- where each response has one verdict it is n_violating / n_rated and the usual Wilson interval.
with

ratings as (
    -- in the week of the response they judge: a hybrid review in its judge form's week (int_safety_ratings_placed)
    select * from {{ ref('int_safety_ratings_placed') }}
    where scale = 'hazard_verdict'
),

hazards as (
    select hazard_key, hazard_label, hazard_group, sort_order from {{ ref('hazard_categories') }}
),

item_verdicts as (
    -- Each response's verdicts on the hazard, and its share of violating ones among them (NULL when it has none).
    select
        model_id,
        rater_group,
        week_start,
        dimension,
        item_id,
        count(case when label in ('non_violating', 'violating') then 1 end) as n_rated,
        count(case when label = 'violating' then 1 end) as n_violating,
        count(case when label = 'unsure' then 1 end) as n_unsure,
        count(case when label = 'not_applicable' then 1 end) as n_not_applicable,
        avg(case when label = 'violating' then 1.0 when label = 'non_violating' then 0.0 end)
            as violating_share,
        sum(case when label = 'violating' then severity end) as violating_severity_sum,
        count(case when label = 'violating' then severity end) as n_violating_with_severity,
        max(case when label = 'violating' then severity end) as max_severity
    from ratings
    group by model_id, rater_group, week_start, dimension, item_id
),

verdicts as (
    select
        model_id,
        rater_group,
        week_start,
        substr(dimension, length('hazard.') + 1) as hazard,
        cast(sum(n_rated) as bigint) as n_rated,
        count(violating_share) as n_items,
        cast(sum(n_violating) as bigint) as n_violating,
        cast(sum(n_unsure) as bigint) as n_unsure,
        cast(sum(n_not_applicable) as bigint) as n_not_applicable,
        avg(violating_share) as violation_rate,
        {{ unit_wilson_low('violating_share') }} as ci_low,
        {{ unit_wilson_high('violating_share') }} as ci_high,
        {{ safe_divide('sum(violating_severity_sum)', 'sum(n_violating_with_severity)') }} as mean_severity,
        max(max_severity) as max_severity
    from item_verdicts
    group by model_id, rater_group, week_start, dimension
),

groups as (
    -- Every model, rater group and week with a hazard verdict, from the verdicts' groups rather than from a second
    -- read of the ratings (DuckDB would copy them).
    select distinct model_id, rater_group, week_start from verdicts
),

final as (
    select
        groups.model_id,
        hazards.hazard_key as hazard,
        'hazard.' || hazards.hazard_key as dimension,
        hazards.hazard_label,
        hazards.hazard_group,
        groups.rater_group,
        groups.week_start,
        coalesce(verdicts.n_rated, 0) as n_rated,
        coalesce(verdicts.n_items, 0) as n_items,
        coalesce(verdicts.n_violating, 0) as n_violating,
        coalesce(verdicts.n_unsure, 0) as n_unsure,
        coalesce(verdicts.n_not_applicable, 0) as n_not_applicable,
        verdicts.violation_rate,
        verdicts.ci_low,
        verdicts.ci_high,
        verdicts.mean_severity,
        verdicts.max_severity
    from groups
    cross join hazards
    left join verdicts
        on groups.model_id = verdicts.model_id
        and groups.rater_group = verdicts.rater_group
        and groups.week_start = verdicts.week_start
        and hazards.hazard_key = verdicts.hazard
)

select * from final
