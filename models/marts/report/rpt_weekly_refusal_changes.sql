-- One row per model, rater group and week with rated refusal behaviour (fct_refusal_calibration): the refusal,
-- over-refusal and under-refusal rates against the week before, each change with its z. The two weeks are
-- independent windows (different responses), so SE(change) = sqrt(p1 (1 - p1) / n1 + p0 (1 - p0) / n0)
-- (docs/STATS.md, between two windows), with n each week's responses (n_items), the rates' sampling unit, and
-- p (1 - p) / n the variance their Wilson intervals use; z is NULL where that SE is 0 or a week is missing.
{%- set rates = ['refusal_rate', 'over_refusal_rate', 'under_refusal_rate'] %}
with

refusal_calibration as (
    select * from {{ ref('fct_refusal_calibration') }}
),

compared as (
    select
        this_week.model_id,
        this_week.rater_group,
        this_week.week_start,
        this_week.n_rated,
        this_week.n_items,
        this_week.n_refused,
        this_week.n_over_refusal,
        this_week.n_under_refusal,
        {%- for rate in rates %}
        this_week.{{ rate }},
        this_week.{{ rate }}_ci_low,
        this_week.{{ rate }}_ci_high,
        previous_week.{{ rate }} as previous_{{ rate }},
        this_week.{{ rate }} - previous_week.{{ rate }} as {{ rate }}_change,
        sqrt(
            {{ safe_divide('this_week.' ~ rate ~ ' * (1 - this_week.' ~ rate ~ ')', 'this_week.n_items') }}
            + {{ safe_divide('previous_week.' ~ rate ~ ' * (1 - previous_week.' ~ rate ~ ')',
                             'previous_week.n_items') }}
        ) as {{ rate }}_change_se,
        {%- endfor %}
        previous_week.n_rated as previous_n_rated,
        previous_week.n_items as previous_n_items
    from refusal_calibration as this_week
    left join refusal_calibration as previous_week
        on this_week.model_id = previous_week.model_id
        and this_week.rater_group = previous_week.rater_group
        and previous_week.week_start = cast(this_week.week_start - interval 7 day as date)
),

tested as (
    select
        *,
        {%- for rate in rates %}
        {{ safe_divide(rate ~ '_change', rate ~ '_change_se') }} as {{ rate }}_change_z{% if not loop.last %},{% endif %}
        {%- endfor %}
    from compared
),

final as (
    select
        model_id,
        rater_group,
        week_start,
        n_rated,
        n_items,
        n_refused,
        n_over_refusal,
        n_under_refusal,
        previous_n_rated,
        previous_n_items,
        {%- for rate in rates %}
        {{ rate }},
        {{ rate }}_ci_low,
        {{ rate }}_ci_high,
        previous_{{ rate }},
        {{ rate }}_change,
        {{ rate }}_change_se,
        {{ rate }}_change_z,
        {%- endfor %}
        coalesce(
            abs(refusal_rate_change_z) > 1.96
            or abs(over_refusal_rate_change_z) > 1.96
            or abs(under_refusal_rate_change_z) > 1.96,
            false
        ) as has_significant_change
    from tested
)

select * from final
