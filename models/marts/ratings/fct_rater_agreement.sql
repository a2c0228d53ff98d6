-- One row per dimension, rater group and week, plus an all-time row per dimension and rater group (week_start
-- NULL): how much raters agree, chance-corrected (Krippendorff's alpha at three levels, Fleiss' kappa, Gwet's
-- AC1) and raw (percent agreement, with the most common label's share beside it: high raw agreement with a low
-- alpha is what skewed data looks like), against the seed's target for the dimension's group.
--
-- Units are items; each rater counts once per item (their latest rating). Hybrid reviews are left out: they are
-- a person confirming a judge's pre-filled form, not an independent rating. An item's ratings all count in the
-- week of its first rating (int_agreement_ratings applies these rules). alpha (the primary statistic) is
-- ordinal on ordinal scales and nominal on nominal ones; alpha_ordinal and alpha_interval are NULL on nominal
-- scales, whose codes have no order.
{%- set group_by = ['dimension', 'rater_group', 'week_start'] %}
with

ratings as (
    select * from {{ ref('int_agreement_ratings') }}
),

targets as (
    select * from {{ ref('agreement_targets') }}
),

own_group_counts as (
    -- Ratings counted once per (rater group, week, item, value): every statistic below needs nothing finer, and
    -- this table is far smaller than the ratings (the macros take the counts through weight=).
    select dimension, scale, agreement_level, rater_group, item_week, unit_id, value, count(*) as n_uc
    from ratings
    group by dimension, scale, agreement_level, rater_group, item_week, unit_id, value
),

rater_group_counts as (
    -- ... plus the 'all' rater group, summing both groups' counts ...
    select dimension, scale, agreement_level, rater_group, item_week, unit_id, value, n_uc
    from own_group_counts
    union all
    select dimension, scale, agreement_level, 'all' as rater_group, item_week, unit_id, value, sum(n_uc) as n_uc
    from own_group_counts
    group by dimension, scale, agreement_level, item_week, unit_id, value
),

unit_value_counts_all as (
    -- ... in the item's week and in all time (week_start NULL). An item has one week, so the all-time counts are
    -- the weekly counts with the week left out: nothing to sum.
    select dimension, scale, agreement_level, rater_group, item_week as week_start, unit_id, value, n_uc
    from rater_group_counts
    union all
    select dimension, scale, agreement_level, rater_group, cast(null as date) as week_start, unit_id, value, n_uc
    from rater_group_counts
),

ordinal_counts as (
    select * from unit_value_counts_all where agreement_level = 'ordinal'
),

group_universe as (
    -- Sizes per group; distinct items and raters do not add up across groups, so each grouping counts its own.
    select
        dimension,
        case when grouping(rater_group) = 1 then 'all' else rater_group end as rater_group,
        case when grouping(item_week) = 1 then null else item_week end as week_start,
        max(dimension_group) as dimension_group,
        max(scale) as scale,
        max(agreement_level) as agreement_level,
        count(*) as n_ratings,
        count(distinct unit_id) as n_items,
        count(distinct rater_id) as n_raters
    from ratings
    group by grouping sets (
        (dimension, rater_group, item_week),
        (dimension, item_week),
        (dimension, rater_group),
        (dimension)
    )
),

alpha_nominal as (
    {{ krippendorff_alpha('unit_value_counts_all', group_by, rater=none, weight='n_uc', level='nominal') }}
),

alpha_ordinal as (
    {{ krippendorff_alpha('ordinal_counts', group_by, rater=none, weight='n_uc', level='ordinal') }}
),

alpha_interval as (
    {{ krippendorff_alpha('ordinal_counts', group_by, rater=none, weight='n_uc', level='interval') }}
),

{% for scale, labels in declared_labels().items() %}
counts_{{ scale }} as (
    select * from unit_value_counts_all where scale = '{{ scale }}'
),

fleiss_{{ scale }} as (
    {{ fleiss_kappa('counts_' ~ scale, group_by, categories=labels, weight='n_uc') }}
),
{% endfor %}

fleiss as (
    {%- for scale in declared_labels() %}
    select * from fleiss_{{ scale }}
    {% if not loop.last %}union all{% endif %}
    {%- endfor %}
),

unit_sizes as (
    select dimension, rater_group, week_start, unit_id, sum(n_uc) as m_u
    from unit_value_counts_all
    group by dimension, rater_group, week_start, unit_id
    having sum(n_uc) >= 2
),

unit_value_counts as (
    select unit_value_counts_all.*
    from unit_value_counts_all
    inner join unit_sizes
        on unit_value_counts_all.dimension = unit_sizes.dimension
        and unit_value_counts_all.rater_group = unit_sizes.rater_group
        and unit_value_counts_all.week_start is not distinct from unit_sizes.week_start
        and unit_value_counts_all.unit_id = unit_sizes.unit_id
),

percent_agreement as (
    -- The share of agreeing pairs of ratings within items, over all pairable items (pairs, not items, weigh).
    select
        agreeing.dimension,
        agreeing.rater_group,
        agreeing.week_start,
        {{ safe_divide('agreeing.agreeing_pairs', 'all_pairs.all_pairs') }} as percent_agreement
    from (
        select dimension, rater_group, week_start, sum(n_uc * (n_uc - 1)) as agreeing_pairs
        from unit_value_counts
        group by dimension, rater_group, week_start
    ) as agreeing
    inner join (
        select dimension, rater_group, week_start, sum(m_u * (m_u - 1)) as all_pairs
        from unit_sizes
        group by dimension, rater_group, week_start
    ) as all_pairs
        on agreeing.dimension = all_pairs.dimension
        and agreeing.rater_group = all_pairs.rater_group
        and agreeing.week_start is not distinct from all_pairs.week_start
),

prevalence as (
    -- The most common value among pairable ratings and its share: agreement's baseline on skewed data.
    select dimension, rater_group, week_start, value as top_value, share as top_value_share
    from (
        select
            dimension,
            rater_group,
            week_start,
            value,
            {{ safe_divide('sum(n_uc)', 'sum(sum(n_uc)) over (partition by dimension, rater_group, week_start)') }}
                as share,
            row_number() over (
                partition by dimension, rater_group, week_start order by sum(n_uc) desc, value
            ) as popularity
        from unit_value_counts
        group by dimension, rater_group, week_start, value
    ) as shares
    where popularity = 1
),

final as (
    select
        u.dimension,
        u.dimension_group,
        u.scale,
        u.agreement_level,
        u.rater_group,
        u.week_start,
        u.n_ratings,
        u.n_items,
        u.n_raters,
        coalesce(n.n_units, 0) as n_units,
        coalesce(n.n_pairable_values, 0) as n_pairable_ratings,
        p.percent_agreement,
        v.top_value,
        v.top_value_share,
        n.alpha as alpha_nominal,
        o.alpha as alpha_ordinal,
        i.alpha as alpha_interval,
        case when u.agreement_level = 'ordinal' then o.alpha else n.alpha end as alpha,
        f.fleiss_kappa,
        f.gwet_ac1,
        t.target,
        case
            when (case when u.agreement_level = 'ordinal' then o.alpha else n.alpha end) is null then null
            else (case when u.agreement_level = 'ordinal' then o.alpha else n.alpha end) >= t.target
        end as meets_target
    from group_universe as u
    {%- for alias, relation in [('n', 'alpha_nominal'), ('o', 'alpha_ordinal'), ('i', 'alpha_interval'),
                                ('f', 'fleiss'), ('p', 'percent_agreement'), ('v', 'prevalence')] %}
    left join {{ relation }} as {{ alias }}
        on u.dimension = {{ alias }}.dimension
        and u.rater_group = {{ alias }}.rater_group
        and u.week_start is not distinct from {{ alias }}.week_start
    {%- endfor %}
    left join targets as t on u.dimension_group = t.dimension_group
)

select * from final
