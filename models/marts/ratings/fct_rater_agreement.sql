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
    select dimension, scale, rater_group, item_week, unit_id, value, count(*) as n_uc
    from ratings
    group by dimension, scale, rater_group, item_week, unit_id, value
),

unit_value_counts as (
    -- ... plus the 'all' rater group, summing both groups' counts. An item has one week, so every statistic is
    -- computed per week from additive terms (coincidence matrices, Fleiss' category sums, pair counts), and the
    -- all-time rows (week_start NULL) sum the weeks' terms instead of redoing the per-item work.
    select dimension, scale, rater_group, item_week, unit_id, value, n_uc
    from own_group_counts
    union all
    select dimension, scale, 'all' as rater_group, item_week, unit_id, value, sum(n_uc) as n_uc
    from own_group_counts
    group by dimension, scale, item_week, unit_id, value
),

weekly_coincidences as (
    {{ krippendorff_coincidences('unit_value_counts', ['dimension', 'rater_group', 'item_week'], weight='n_uc') }}
),

coincidences as (
    select dimension, rater_group, item_week as week_start, value_a, value_b, coincidences, pairable_ratings
    from weekly_coincidences
    union all
    select
        dimension,
        rater_group,
        cast(null as date) as week_start,
        value_a,
        value_b,
        sum(coincidences) as coincidences,
        sum(pairable_ratings) as pairable_ratings
    from weekly_coincidences
    group by dimension, rater_group, value_a, value_b
),

unit_counts as (
    -- Per item and group: its ratings m_u and its agreeing pairs sum_c n_uc (n_uc - 1).
    select
        dimension,
        rater_group,
        item_week,
        unit_id,
        sum(n_uc) as m_u,
        sum(n_uc * (n_uc - 1)) as agreeing_pairs
    from unit_value_counts
    group by dimension, rater_group, item_week, unit_id
),

group_sizes as (
    -- Items and ratings per week, and over all weeks (an item has one week, so they add up).
    select
        dimension,
        rater_group,
        case when grouping(item_week) = 1 then null else item_week end as week_start,
        count(*) as n_items,
        cast(sum(m_u) as bigint) as n_ratings
    from unit_counts
    group by grouping sets ((dimension, rater_group, item_week), (dimension, rater_group))
),

rater_weeks as (
    -- Each rater once per (dimension, rater group, week): distinct raters do not add up across groups, so each
    -- grouping counts its own, from this far smaller table.
    select distinct dimension, dimension_group, scale, agreement_level, rater_group, item_week, rater_id
    from ratings
),

group_universe as (
    select
        raters.dimension,
        raters.rater_group,
        raters.week_start,
        raters.dimension_group,
        raters.scale,
        raters.agreement_level,
        sizes.n_ratings,
        sizes.n_items,
        raters.n_raters
    from (
        select
            dimension,
            case when grouping(rater_group) = 1 then 'all' else rater_group end as rater_group,
            case when grouping(item_week) = 1 then null else item_week end as week_start,
            max(dimension_group) as dimension_group,
            max(scale) as scale,
            max(agreement_level) as agreement_level,
            count(distinct rater_id) as n_raters
        from rater_weeks
        group by grouping sets (
            (dimension, rater_group, item_week),
            (dimension, item_week),
            (dimension, rater_group),
            (dimension)
        )
    ) as raters
    inner join group_sizes as sizes
        on raters.dimension = sizes.dimension
        and raters.rater_group = sizes.rater_group
        and raters.week_start is not distinct from sizes.week_start
),

ordinal_coincidences as (
    select * from coincidences
    where dimension in (select dimension from group_universe where agreement_level = 'ordinal')
),

alpha_nominal as (
    {{ krippendorff_alpha_from_coincidences('coincidences', group_by, level='nominal') }}
),

alpha_ordinal as (
    {{ krippendorff_alpha_from_coincidences('ordinal_coincidences', group_by, level='ordinal') }}
),

alpha_interval as (
    {{ krippendorff_alpha_from_coincidences('ordinal_coincidences', group_by, level='interval') }}
),

positioned_counts as (
    -- Each value's position among its scale's declared labels (NULL when undeclared: Fleiss leaves it out), so
    -- one pass of fleiss_category_sums serves every scale.
    select
        unit_value_counts.*,
        case
            {%- for scale, labels in declared_labels().items() %}
            when scale = '{{ scale }}' then {{ stats_label_position('value', labels) }}
            {%- endfor %}
        end as category_position
    from unit_value_counts
),

{%- set most_categories = declared_labels().values() | map('length') | max %}

weekly_fleiss_sums as (
    {{ fleiss_category_sums('positioned_counts', ['dimension', 'scale', 'rater_group', 'item_week'],
                            value='category_position', categories=range(1, most_categories + 1) | list,
                            weight='n_uc') }}
),

{% for scale, labels in declared_labels().items() %}
fleiss_sums_{{ scale }} as (
    select dimension, rater_group, item_week as week_start, category_position, units_first_seen, share_sum,
        agreement_sum
    from weekly_fleiss_sums
    where scale = '{{ scale }}'
    union all
    select
        dimension,
        rater_group,
        cast(null as date) as week_start,
        category_position,
        sum(units_first_seen) as units_first_seen,
        sum(share_sum) as share_sum,
        sum(agreement_sum) as agreement_sum
    from weekly_fleiss_sums
    where scale = '{{ scale }}'
    group by dimension, rater_group, category_position
),

fleiss_{{ scale }} as (
    {{ fleiss_from_category_sums('fleiss_sums_' ~ scale, group_by, labels | length) }}
),
{% endfor %}

fleiss as (
    {%- for scale in declared_labels() %}
    select * from fleiss_{{ scale }}
    {% if not loop.last %}union all{% endif %}
    {%- endfor %}
),

pair_sums as (
    -- Pairable items (two or more ratings) summed per week and over all weeks.
    select
        dimension,
        rater_group,
        case when grouping(item_week) = 1 then null else item_week end as week_start,
        count(*) as n_units,
        cast(sum(m_u) as bigint) as n_pairable_ratings,
        sum(agreeing_pairs) as agreeing_pairs,
        sum(m_u * (m_u - 1)) as all_pairs
    from unit_counts
    where m_u >= 2
    group by grouping sets ((dimension, rater_group, item_week), (dimension, rater_group))
),

percent_agreement as (
    -- The share of agreeing pairs of ratings within items, over all pairable items (pairs, not items, weigh).
    select
        dimension,
        rater_group,
        week_start,
        n_units,
        n_pairable_ratings,
        {{ safe_divide('agreeing_pairs', 'all_pairs') }} as percent_agreement
    from pair_sums
),

prevalence as (
    -- The most common value among pairable ratings and its share: agreement's baseline on skewed data.
    select dimension, rater_group, week_start, value as top_value, share as top_value_share
    from (
        select
            dimension,
            rater_group,
            week_start,
            value_a as value,
            {{ safe_divide('pairable_ratings', 'sum(pairable_ratings) over (partition by dimension, rater_group, week_start)') }}
                as share,
            row_number() over (
                partition by dimension, rater_group, week_start order by pairable_ratings desc, value_a
            ) as popularity
        from coincidences
        where value_a = value_b
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
        coalesce(p.n_units, 0) as n_units,
        coalesce(p.n_pairable_ratings, 0) as n_pairable_ratings,
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
