-- One row per rated dimension and week: inter-rater agreement of all raters against the dimension's target, with
-- people's and judges' own alphas beside it, last week's alpha and the items newly flagged for rubric
-- clarification. What the weekly report's "Do our raters agree?" reads.
-- The primary alpha is fct_rater_agreement's (ordinal on ordinal scales, nominal on nominal ones), rater group
-- 'all' (every rater but reviews of a judge's verdict); the week is the week of an item's first rating.
with

agreement as (
    select * from {{ ref('fct_rater_agreement') }}
    where week_start is not null
),

item_disagreement as (
    select * from {{ ref('fct_item_disagreement') }}
),

all_raters as (
    select * from agreement where rater_group = 'all'
),

humans as (
    select * from agreement where rater_group = 'human'
),

judges as (
    select * from agreement where rater_group = 'llm_judge'
),

flags as (
    select
        dimension,
        week_start,
        count(*) as n_items_compared,
        cast(sum(case when is_flagged then 1 else 0 end) as bigint) as n_items_flagged
    from item_disagreement
    group by dimension, week_start
),

final as (
    select
        all_raters.dimension,
        all_raters.dimension_group,
        all_raters.scale,
        all_raters.agreement_level,
        all_raters.week_start,
        all_raters.n_items,
        all_raters.n_units,
        all_raters.n_raters,
        all_raters.n_pairable_ratings,
        all_raters.alpha,
        all_raters.percent_agreement,
        all_raters.top_value_share,
        all_raters.target,
        all_raters.meets_target,
        case
            when all_raters.alpha is null then 'undefined'
            when all_raters.meets_target then 'meets_target'
            else 'below_target'
        end as target_status,
        humans.n_units as human_n_units,
        humans.alpha as human_alpha,
        judges.n_units as judge_n_units,
        judges.alpha as judge_alpha,
        previous_week.n_units as previous_n_units,
        previous_week.alpha as previous_alpha,
        all_raters.alpha - previous_week.alpha as alpha_change,
        coalesce(flags.n_items_compared, 0) as n_items_compared,
        coalesce(flags.n_items_flagged, 0) as n_items_flagged
    from all_raters
    left join humans
        on all_raters.dimension = humans.dimension
        and all_raters.week_start = humans.week_start
    left join judges
        on all_raters.dimension = judges.dimension
        and all_raters.week_start = judges.week_start
    left join all_raters as previous_week
        on all_raters.dimension = previous_week.dimension
        and previous_week.week_start = cast(all_raters.week_start - interval 7 day as date)
    left join flags
        on all_raters.dimension = flags.dimension
        and all_raters.week_start = flags.week_start
)

select * from final
