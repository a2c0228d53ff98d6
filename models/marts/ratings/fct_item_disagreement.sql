-- One row per item and dimension rated by two or more raters: how far apart the ratings are, and the item's own
-- agreement, flagged for rubric clarification when it is below the seed's threshold.
--
-- item_agreement = 1 - D_o(item) / D_e(dimension): the item's observed disagreement against the disagreement
-- expected by chance over all of the dimension's pairable ratings, at the dimension's level (ordinal on midranks,
-- nominal on label codes). It is the per-item term of Krippendorff's alpha: the all-time alpha of the 'all' rater
-- group equals the average of item_agreement weighted by n_ratings (a singular test holds that identity).
-- Raters as in fct_rater_agreement (int_agreement_ratings): each counts once per item (latest rating), hybrid
-- reviews left out.
with

one_per_rater as (
    -- Every rater, all time: each counts once per item (latest rating), hybrid reviews left out.
    select * from {{ ref('int_agreement_ratings') }}
),

targets as (
    select * from {{ ref('agreement_targets') }}
),

unit_sizes as (
    select unit_id, dimension, count(*) as m_u
    from one_per_rater
    group by unit_id, dimension
    having count(*) >= 2
),

pairable as (
    select one_per_rater.*, one_per_rater.unit_id as item_id, unit_sizes.m_u
    from one_per_rater
    inner join unit_sizes
        on one_per_rater.unit_id = unit_sizes.unit_id
        and one_per_rater.dimension = unit_sizes.dimension
),

marginals as (
    -- Midranks for the ordinal metric: mid_v = (values below v) + n_v / 2, from the dimension's pairable ratings.
    select
        dimension,
        value,
        count(*) as n_v,
        sum(count(*)) over (partition by dimension order by value) - count(*) / 2.0 as midrank
    from pairable
    group by dimension, value
),

ranked as (
    select
        pairable.*,
        case when pairable.agreement_level = 'ordinal' then marginals.midrank else pairable.value end as metric_value
    from pairable
    inner join marginals on pairable.dimension = marginals.dimension and pairable.value = marginals.value
),

dimension_expected as (
    select
        dimension,
        var_samp(metric_value) as variance_all,
        count(*) as n_all
    from ranked
    group by dimension
),

nominal_expected as (
    -- D_e for the nominal metric: 1 - sum_c n_c^2 / n^2, corrected for sampling without replacement.
    select
        dimension,
        {{ safe_divide('cast(sum(n_v) as double) * sum(n_v) - sum(n_v * n_v)', 'cast(sum(n_v) as double) * (sum(n_v) - 1)') }}
            as expected_disagreement
    from marginals
    group by dimension
),

item_value_counts as (
    select item_id, dimension, value, count(*) as n_uc
    from ranked
    group by item_id, dimension, value
),

item_nominal as (
    select
        item_id,
        dimension,
        {{ safe_divide('cast(sum(n_uc) as double) * sum(n_uc) - sum(n_uc * n_uc)', 'cast(sum(n_uc) as double) * (sum(n_uc) - 1)') }}
            as observed_disagreement
    from item_value_counts
    group by item_id, dimension
),

items as (
    select
        item_id,
        dimension,
        max(dimension_group) as dimension_group,
        max(scale) as scale,
        max(agreement_level) as agreement_level,
        max(model_id) as model_id,
        max(task_id) as task_id,
        min(item_week) as week_start,
        count(*) as n_ratings,
        count(distinct rater_id) as n_raters,
        count(distinct rater_group) as n_rater_groups,
        min(score) as min_score,
        max(score) as max_score,
        max(score) - min(score) as spread,
        stddev_samp(score) as score_stddev,
        var_samp(metric_value) as variance_item
    from ranked
    group by item_id, dimension
),

final as (
    select
        items.item_id,
        items.dimension,
        items.dimension_group,
        items.scale,
        items.agreement_level,
        items.model_id,
        items.task_id,
        items.week_start,
        items.n_ratings,
        items.n_raters,
        items.n_rater_groups,
        items.min_score,
        items.max_score,
        items.spread,
        items.score_stddev,
        case
            when items.agreement_level = 'ordinal'
                then 1 - {{ safe_divide('items.variance_item', 'dimension_expected.variance_all') }}
            else 1 - {{ safe_divide('item_nominal.observed_disagreement', 'nominal_expected.expected_disagreement') }}
        end as item_agreement,
        targets.flag_below,
        coalesce(
            case
                when items.agreement_level = 'ordinal'
                    then 1 - {{ safe_divide('items.variance_item', 'dimension_expected.variance_all') }}
                else 1 - {{ safe_divide('item_nominal.observed_disagreement', 'nominal_expected.expected_disagreement') }}
            end < targets.flag_below,
            false
        ) as is_flagged
    from items
    inner join dimension_expected on items.dimension = dimension_expected.dimension
    inner join nominal_expected on items.dimension = nominal_expected.dimension
    inner join item_nominal on items.item_id = item_nominal.item_id and items.dimension = item_nominal.dimension
    left join targets on items.dimension_group = targets.dimension_group
)

select * from final
