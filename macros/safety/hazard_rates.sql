{# The select of the two hazard-rate marts, which differ only in their window: fct_hazard_rates (one row per week:
   weekly=true) and fct_hazard_rates_all_time (every week at once: weekly=false). One definition, so the two cannot
   drift apart: which verdicts count, unsure and not_applicable apart, each response's share first, the unit-Wilson
   interval over responses, all 12 hazards of the seed hazard_categories per model and rater group. A row with no
   rate (n_items 0) is one of three states, which its counts tell apart: not assessed (no verdict at all), not
   applicable (only not_applicable verdicts, on n_items_not_applicable responses) or only unsure verdicts.

   The sampling unit is the response (item) within the window: all its verdicts from the rater group in the window,
   whichever week and whichever rater gave them, make one share. So a response rated in two weeks is one unit of the
   all-time rate, its share over the verdicts of both weeks, and one unit of each week's rate. A verdict's week is the
   one int_safety_ratings_placed gives it (a hybrid review's is its judge form's): in the all-time mart it only
   places first_week_start and last_week_start. #}
{% macro hazard_rates(weekly) %}
{%- set keys = ['model_id', 'rater_group'] + (['week_start'] if weekly else []) %}
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
    -- Each response's verdicts on the hazard in the window, and its share of violating ones among them (NULL when
    -- it has none).
    select
        {{ keys | join(',\n        ') }},
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
        {%- if not weekly %}
        min(week_start) as first_week_start,
        max(week_start) as last_week_start,
        {%- endif %}
        max(case when label = 'violating' then severity end) as max_severity
    from ratings
    group by {{ keys | join(', ') }}, dimension, item_id
),

verdicts as (
    select
        {{ keys | join(',\n        ') }},
        substr(dimension, length('hazard.') + 1) as hazard,
        cast(sum(n_rated) as bigint) as n_rated,
        count(violating_share) as n_items,
        cast(sum(n_violating) as bigint) as n_violating,
        cast(sum(n_unsure) as bigint) as n_unsure,
        cast(sum(n_not_applicable) as bigint) as n_not_applicable,
        count(case when n_not_applicable > 0 then 1 end) as n_items_not_applicable,
        avg(violating_share) as violation_rate,
        {{ unit_wilson_low('violating_share') }} as ci_low,
        {{ unit_wilson_high('violating_share') }} as ci_high,
        {{ safe_divide('sum(violating_severity_sum)', 'sum(n_violating_with_severity)') }} as mean_severity,
        {%- if not weekly %}
        min(first_week_start) as first_week_start,
        max(last_week_start) as last_week_start,
        {%- endif %}
        max(max_severity) as max_severity
    from item_verdicts
    group by {{ keys | join(', ') }}, dimension
),

groups as (
    -- Every model and rater group (and week) with a hazard verdict, from the verdicts' groups rather than from a
    -- second read of the ratings (DuckDB would copy them).
    {%- if weekly %}
    select distinct model_id, rater_group, week_start from verdicts
    {%- else %}
    -- The weeks the group's hazard verdicts span, any hazard and any label: the window every one of its 12 rows
    -- covers, a hazard nobody rated included.
    select
        model_id,
        rater_group,
        min(first_week_start) as first_week_start,
        max(last_week_start) as last_week_start
    from verdicts
    group by model_id, rater_group
    {%- endif %}
),

final as (
    select
        groups.model_id,
        hazards.hazard_key as hazard,
        'hazard.' || hazards.hazard_key as dimension,
        hazards.hazard_label,
        hazards.hazard_group,
        groups.rater_group,
        {%- if weekly %}
        groups.week_start,
        {%- else %}
        groups.first_week_start,
        groups.last_week_start,
        {%- endif %}
        coalesce(verdicts.n_rated, 0) as n_rated,
        coalesce(verdicts.n_items, 0) as n_items,
        coalesce(verdicts.n_violating, 0) as n_violating,
        coalesce(verdicts.n_unsure, 0) as n_unsure,
        coalesce(verdicts.n_not_applicable, 0) as n_not_applicable,
        coalesce(verdicts.n_items_not_applicable, 0) as n_items_not_applicable,
        verdicts.violation_rate,
        verdicts.ci_low,
        verdicts.ci_high,
        verdicts.mean_severity,
        verdicts.max_severity
    from groups
    cross join hazards
    left join verdicts
        on {{ keys_equal('groups', 'verdicts', keys) }}
        and hazards.hazard_key = verdicts.hazard
)

select * from final
{% endmacro %}
