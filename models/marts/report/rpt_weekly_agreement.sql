-- One row per rated dimension and week: the people's inter-rater agreement against the dimension's target (the
-- verdict), all raters' and the judges' alphas beside it, last week's people's alpha and the items newly flagged for
-- rubric clarification. What the weekly report's "Do our raters agree?" reads.
-- The verdict is the people's: whether people read the rubric the same way. Pooled with them, a judge that drifts
-- drags all raters' alpha below target in its week though the people agree; a judge's disagreement with people is
-- what fct_judge_drift measures.
-- Alphas are fct_rater_agreement's (ordinal on ordinal scales, nominal on nominal ones, reviews of a judge's verdict
-- left out, a hazard's on the violating-or-not verdict with 'unsure' no value); the week is the week of an item's
-- first rating. A row per dimension rated that week by anyone, so a dimension with no people's alpha is listed as such.
--
-- The verdict's error bar: human_alpha_ci_low/high, a 95% percentile bootstrap over items (an item's ratings stay
-- together), macros/stats/bootstrap.sql. Poisson(1) weights per item rather than the multinomial's exactly-n draws:
-- items whose people's ratings tally the same (a week's thousands of items fall into a few dozen such patterns)
-- contribute the same coincidences, and k items' Poisson(1) weights sum to one Poisson(k) draw, so a replicate
-- draws once per (dimension, week, tally pattern) and the cost does not grow with the items (a multinomial draw
-- would be one row per item and replicate: 450 million rows on the benchmark's 300,000 forms). The price: a
-- replicate's size varies (Poisson(n), not n), which at 10 items widens the interval by about a tenth (median 1.09
-- of the multinomial's on seeded 10-item weeks), less as items grow: on the side of caution. Draws are md5 of
-- (seed, replicate pair, dimension, week, pattern), so a rebuild gives the same interval. Replicates: var
-- alpha_bootstrap_replicates (dbt_project.yml says why 1000). The ends are NULL where human_alpha is, with fewer
-- than 2 items, or when more than 5% of the replicates have no alpha (all the resampled ratings in one category):
-- then where those go would move an end. Nor is there one where the replicates do not spread (both ends equal): a
-- week whose people agreed on every item (alpha 1) resamples to agreement every time, and [1, 1] would read as
-- certainty from 12 items; a percentile bootstrap cannot see beyond the items it has.
-- is_target_within_interval: the target lies within [ci_low, ci_high], so the week's items cannot tell the verdict
-- from its opposite: a below_target week that reaches its target is no firm failure (NULL without an interval).
{%- set most_categories = declared_label_positions() | length %}
{%- set tallies = [] %}
{%- for k in declared_label_positions() %}{% do tallies.append('n_' ~ k) %}{% endfor %}
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

human_unit_patterns as (
    -- People's pairable items per dimension and week, collapsed to their tally patterns: the bootstrap's classes.
    -- Only where people's alpha is defined: where it is not (all ratings in one category), no replicate's is.
    select
        units.dimension,
        units.item_week as week_start,
        max(units.agreement_level) as agreement_level,
        max(units.scale) as scale,
        units.n_ratings,
        {{ stats_group_select(tallies, 'units') }}count(*) as class_size
    from {{ ref('int_agreement_units') }} as units
    inner join humans
        on units.dimension = humans.dimension
        and units.item_week = humans.week_start
    where units.rater_group = 'human' and units.n_ratings >= 2 and humans.alpha is not null
    group by
        units.dimension, units.item_week, units.n_ratings, {{ stats_group_select(tallies, 'units') | trim | trim(',') }}
),

pattern_terms as (
    -- One item's terms per pattern (each group below is one pattern row).
    select
        dimension,
        week_start,
        agreement_level,
        scale,
        {{ tallies | join(', ') }},
        max(class_size) as class_size,
        {{- agreement_tally_sums(most_categories) }}
    from human_unit_patterns
    group by dimension, week_start, agreement_level, scale, {{ tallies | join(', ') }}
),

pattern_cells as (
    {{ tally_coincidences('pattern_terms',
                          ['dimension', 'week_start', 'agreement_level', 'scale', 'class_size'] + tallies,
                          most_categories) }}
),

pattern_matrix as (
    -- One item's coincidence matrix per pattern, the labels' positions turned into the values they stand for.
    select
        cells.dimension,
        cells.week_start,
        cells.agreement_level,
        {{ tallies | join(', ') }},
        cells.class_size,
        label_a.label_value as value_a,
        label_b.label_value as value_b,
        cells.coincidences,
        cells.pairable_ratings
    from pattern_cells as cells
    inner join ({{ agreement_scale_labels() }}) as label_a
        on cells.scale = label_a.scale and cells.position_a = label_a.label_position
    inner join ({{ agreement_scale_labels() }}) as label_b
        on cells.scale = label_b.scale and cells.position_b = label_b.label_position
),

ordinal_pattern_matrix as (
    select * from pattern_matrix where agreement_level = 'ordinal'
),

nominal_pattern_matrix as (
    select * from pattern_matrix where agreement_level <> 'ordinal'
),

ordinal_intervals as (
    {{ krippendorff_alpha_bootstrap('ordinal_pattern_matrix', ['dimension', 'week_start'], tallies,
                                    level='ordinal', n_replicates=var('alpha_bootstrap_replicates')) }}
),

nominal_intervals as (
    {{ krippendorff_alpha_bootstrap('nominal_pattern_matrix', ['dimension', 'week_start'], tallies,
                                    level='nominal', n_replicates=var('alpha_bootstrap_replicates')) }}
),

intervals as (
    -- Only where people's alpha is defined (human_unit_patterns), and no interval where the replicates do not
    -- spread (both ends equal): the rule is here once, for the ends and the verdict on the target alike.
    select
        dimension,
        week_start,
        n_replicates_defined,
        case when alpha_ci_low < alpha_ci_high then alpha_ci_low end as alpha_ci_low,
        case when alpha_ci_low < alpha_ci_high then alpha_ci_high end as alpha_ci_high
    from (
        select * from ordinal_intervals
        union all
        select * from nominal_intervals
    ) as both_levels
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
        intervals.alpha_ci_low as human_alpha_ci_low,
        intervals.alpha_ci_high as human_alpha_ci_high,
        coalesce(intervals.n_replicates_defined, 0) as human_alpha_n_replicates,
        humans.percent_agreement as human_percent_agreement,
        humans.top_value_share as human_top_value_share,
        all_raters.target,
        humans.meets_target,
        case
            when humans.alpha is null then 'undefined'
            when humans.meets_target then 'meets_target'
            else 'below_target'
        end as target_status,
        case
            when intervals.alpha_ci_low is not null
                then intervals.alpha_ci_low <= all_raters.target and all_raters.target <= intervals.alpha_ci_high
        end as is_target_within_interval,
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
    left join intervals
        on all_raters.dimension = intervals.dimension
        and all_raters.week_start = intervals.week_start
    left join flags
        on all_raters.dimension = flags.dimension
        and all_raters.week_start = flags.week_start
)

select * from final
