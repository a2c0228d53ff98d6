-- One row per rated dimension and week: the people's inter-rater agreement against the dimension's target (the
-- verdict), all raters' and the judges' alphas beside it, last week's people's alpha and the items newly flagged for
-- rubric clarification. What the weekly report's "Do our raters agree?" reads.
-- The verdict is the people's: whether people read the rubric the same way. Pooled with them, a judge that drifts
-- drags all raters' alpha below target in its week though the people agree; a judge's disagreement with people is
-- what fct_judge_drift measures.
-- Alphas are fct_rater_agreement's (ordinal on ordinal scales, nominal on nominal ones, reviews of a judge's verdict
-- left out, a hazard's on the violating-or-not verdict with 'unsure' no value); the week is the week of an item's
-- first rating. A row per dimension rated that week by anyone, so a dimension with no people's alpha is listed as such.
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
    -- fct_item_disagreement holds items rated by two or more people: the flags are the people's.
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
        all_raters.n_raters,
        coalesce(humans.n_raters, 0) as human_n_raters,
        coalesce(humans.n_units, 0) as human_n_units,
        coalesce(humans.n_pairable_ratings, 0) as human_n_pairable_ratings,
        humans.alpha as human_alpha,
        humans.percent_agreement as human_percent_agreement,
        humans.top_value_share as human_top_value_share,
        all_raters.target,
        humans.meets_target,
        case
            when humans.alpha is null then 'undefined'
            when humans.meets_target then 'meets_target'
            else 'below_target'
        end as target_status,
        all_raters.n_units as all_raters_n_units,
        all_raters.alpha as all_raters_alpha,
        coalesce(judges.n_units, 0) as judge_n_units,
        judges.alpha as judge_alpha,
        coalesce(previous_week.n_units, 0) as previous_human_n_units,
        previous_week.alpha as previous_human_alpha,
        humans.alpha - previous_week.alpha as human_alpha_change,
        coalesce(flags.n_items_compared, 0) as n_items_compared,
        coalesce(flags.n_items_flagged, 0) as n_items_flagged
    from all_raters
    left join humans
        on all_raters.dimension = humans.dimension
        and all_raters.week_start = humans.week_start
    left join judges
        on all_raters.dimension = judges.dimension
        and all_raters.week_start = judges.week_start
    left join humans as previous_week
        on all_raters.dimension = previous_week.dimension
        and previous_week.week_start = cast(all_raters.week_start - interval 7 day as date)
    left join flags
        on all_raters.dimension = flags.dimension
        and all_raters.week_start = flags.week_start
)

select * from final
