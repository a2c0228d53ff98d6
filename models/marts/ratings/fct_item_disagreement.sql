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

items as (
    -- One pass over the ratings for each pairable item's own figures (m_u = n_ratings >= 2); int_agreement_ratings
    -- has one row per (dimension, item, rater), so n_ratings is also the number of raters.
    select
        unit_id as item_id,
        dimension,
        max(dimension_group) as dimension_group,
        max(scale) as scale,
        max(agreement_level) as agreement_level,
        max(model_id) as model_id,
        max(task_id) as task_id,
        min(item_week) as week_start,
        count(*) as n_ratings,
        count(*) as n_raters,  -- one row per rater and item (int_agreement_ratings' grain, tested there)
        count(distinct rater_group) as n_rater_groups,
        min(score) as min_score,
        max(score) as max_score,
        max(score) - min(score) as spread,
        stddev_samp(score) as score_stddev
    from one_per_rater
    group by unit_id, dimension
    having count(*) >= 2
),

item_value_counts as (
    -- The pairable items' ratings counted per value: everything below works on these counts.
    select one_per_rater.unit_id as item_id, one_per_rater.dimension, one_per_rater.value, count(*) as n_uc
    from one_per_rater
    inner join items on one_per_rater.unit_id = items.item_id and one_per_rater.dimension = items.dimension
    group by one_per_rater.unit_id, one_per_rater.dimension, one_per_rater.value
),

marginals as (
    -- Midranks for the ordinal metric: mid_v = (values below v) + n_v / 2, from the dimension's pairable ratings.
    select
        dimension,
        value,
        sum(n_uc) as n_v,
        sum(sum(n_uc)) over (partition by dimension order by value) - sum(n_uc) / 2.0 as midrank
    from item_value_counts
    group by dimension, value
),

metric_counts as (
    select
        item_value_counts.*,
        case when items.agreement_level = 'ordinal' then marginals.midrank else item_value_counts.value end
            as metric_value,
        items.n_ratings as m_u
    from item_value_counts
    inner join items
        on item_value_counts.item_id = items.item_id and item_value_counts.dimension = items.dimension
    inner join marginals
        on item_value_counts.dimension = marginals.dimension and item_value_counts.value = marginals.value
),

dimension_means as (
    select dimension, sum(n_uc * metric_value) / sum(n_uc) as mean_all, sum(n_uc) as n_all
    from metric_counts
    group by dimension
),

dimension_expected as (
    -- var_samp of the metric over the dimension's pairable ratings (two-pass, from the counts) ...
    select
        metric_counts.dimension,
        sum(metric_counts.n_uc * (metric_counts.metric_value - dimension_means.mean_all)
            * (metric_counts.metric_value - dimension_means.mean_all))
            / nullif(max(dimension_means.n_all) - 1, 0) as variance_all
    from metric_counts
    inner join dimension_means on metric_counts.dimension = dimension_means.dimension
    group by metric_counts.dimension
),

nominal_expected as (
    -- ... and D_e for the nominal metric: 1 - sum_c n_c^2 / n^2, corrected for sampling without replacement.
    select
        dimension,
        {{ safe_divide('cast(sum(n_v) as double) * sum(n_v) - sum(n_v * n_v)', 'cast(sum(n_v) as double) * (sum(n_v) - 1)') }}
            as expected_disagreement
    from marginals
    group by dimension
),

item_means as (
    select item_id, dimension, sum(n_uc * metric_value) / sum(n_uc) as mean_item
    from metric_counts
    group by item_id, dimension
),

item_observed as (
    -- Each item's own: the metric's var_samp (two-pass; an item whose values are all equal gets an exact 0) and
    -- its nominal disagreement (m^2 - sum_c n_uc^2) / (m (m - 1)).
    select
        metric_counts.item_id,
        metric_counts.dimension,
        case
            when count(*) = 1 then cast(0 as double)
            else sum(metric_counts.n_uc * (metric_counts.metric_value - item_means.mean_item)
                * (metric_counts.metric_value - item_means.mean_item)) / (max(metric_counts.m_u) - 1)
        end as variance_item,
        {{ safe_divide('cast(max(metric_counts.m_u) as double) * max(metric_counts.m_u) - sum(metric_counts.n_uc * metric_counts.n_uc)', 'cast(max(metric_counts.m_u) as double) * (max(metric_counts.m_u) - 1)') }}
            as observed_disagreement
    from metric_counts
    inner join item_means
        on metric_counts.item_id = item_means.item_id and metric_counts.dimension = item_means.dimension
    group by metric_counts.item_id, metric_counts.dimension
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
                then 1 - {{ safe_divide('item_observed.variance_item', 'dimension_expected.variance_all') }}
            else 1 - {{ safe_divide('item_observed.observed_disagreement', 'nominal_expected.expected_disagreement') }}
        end as item_agreement,
        targets.flag_below,
        coalesce(
            case
                when items.agreement_level = 'ordinal'
                    then 1 - {{ safe_divide('item_observed.variance_item', 'dimension_expected.variance_all') }}
                else 1 - {{ safe_divide('item_observed.observed_disagreement', 'nominal_expected.expected_disagreement') }}
            end < targets.flag_below,
            false
        ) as is_flagged
    from items
    inner join dimension_expected on items.dimension = dimension_expected.dimension
    inner join nominal_expected on items.dimension = nominal_expected.dimension
    inner join item_observed on items.item_id = item_observed.item_id and items.dimension = item_observed.dimension
    left join targets on items.dimension_group = targets.dimension_group
)

select * from final
