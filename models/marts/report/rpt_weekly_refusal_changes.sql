-- One row per model, rater group and week with rated refusal behaviour (fct_refusal_calibration): the refusal,
-- over-refusal and under-refusal rates against the week before, each change with its z and whether it is more than
-- noise. The two weeks are independent windows (different responses), n each week's responses (n_items), the rates'
-- sampling unit. The z tests no change, so its SE is the pooled one, sqrt(p (1 - p) (1/n1 + 1/n0)) with p the two
-- weeks' rate together (pooled_rate_change_se): the unpooled SE collapses when last week's rate was 0, and flagged
-- 3 of 10 against 0 of 10 at z = 2.07 where Fisher's exact p is 0.21 (pooled, z = 1.88). As in
-- rpt_weekly_model_changes, a week pair with fewer than var `refusal_change_min_items` responses in either week is
-- not tested: the *_is_significant columns and has_significant_change are NULL ("too few responses to test"), never
-- false. The weekly report quotes the var as this build used it (rpt_build_settings) to say where that line is.
-- n_refused, n_over_refusal and n_under_refusal count forms (several to a response); n_items_refused,
-- n_items_over_refusal and n_items_under_refusal count responses (fct_refusal_calibration).
{%- set rates = ['refusal_rate', 'over_refusal_rate', 'under_refusal_rate'] %}
{%- set min_items_to_test = var('refusal_change_min_items') %}
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
        this_week.n_items_refused,
        this_week.n_items_over_refusal,
        this_week.n_items_under_refusal,
        {%- for rate in rates %}
        this_week.{{ rate }},
        this_week.{{ rate }}_ci_low,
        this_week.{{ rate }}_ci_high,
        previous_week.{{ rate }} as previous_{{ rate }},
        this_week.{{ rate }} - previous_week.{{ rate }} as {{ rate }}_change,
        {{ pooled_rate_change_se('this_week.' ~ rate, 'this_week.n_items',
                                 'previous_week.' ~ rate, 'previous_week.n_items') }} as {{ rate }}_change_se,
        {%- endfor %}
        previous_week.n_rated as previous_n_rated,
        previous_week.n_items as previous_n_items,
        case
            when previous_week.n_items is null then null
            when previous_week.n_items < this_week.n_items then previous_week.n_items
            else this_week.n_items
        end as n_compared
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

-- A pooled SE of 0 means both weeks' rates were 0 (or both 1): tested, and no change.
judged as (
    select
        *,
        {%- for rate in rates %}
        case
            when n_compared is null or n_compared < {{ min_items_to_test }} or {{ rate }}_change_se is null then null
            when {{ rate }}_change_se = 0 then false
            else abs({{ rate }}_change_z) > 1.96
        end as {{ rate }}_change_is_significant{% if not loop.last %},{% endif %}
        {%- endfor %}
    from tested
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
        n_items_refused,
        n_items_over_refusal,
        n_items_under_refusal,
        previous_n_rated,
        previous_n_items,
        n_compared,
        {%- for rate in rates %}
        {{ rate }},
        {{ rate }}_ci_low,
        {{ rate }}_ci_high,
        previous_{{ rate }},
        {{ rate }}_change,
        {{ rate }}_change_se,
        {{ rate }}_change_z,
        {{ rate }}_change_is_significant,
        {%- endfor %}
        -- SQL's three-valued or: true when any change is significant, NULL when none was tested.
        refusal_rate_change_is_significant
        or over_refusal_rate_change_is_significant
        or under_refusal_rate_change_is_significant as has_significant_change
    from judged
)

select * from final
