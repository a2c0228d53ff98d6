-- One row per dimension, rater group and week, plus an all-time row per dimension and rater group (week_start
-- NULL): how much raters agree, chance-corrected (Krippendorff's alpha at three levels, Fleiss' kappa, Gwet's
-- AC1) and raw (percent agreement, with the most common label's share beside it: high raw agreement with a low
-- alpha is what skewed data looks like), against the seed's target for the dimension's group.
--
-- Units are items; each rater counts once per item (their latest rating). Reviews are left out (hybrid forms and
-- CogniBench completed reviews, derived from a judge's record): a person confirming or correcting a judge's
-- verdict with it in view gives no independent rating. An item's ratings all count in the
-- week of its first rating (int_agreement_ratings applies these rules). alpha (the primary statistic) is
-- ordinal on ordinal scales and nominal on nominal ones; alpha_ordinal and alpha_interval are NULL on nominal
-- scales, whose codes have no order.
--
-- What is compared (macros/declared_labels.sql: agreement_labels): a hazard's agreement is on the verdict its
-- violation rates count (fct_hazard_rates: violating or not), so that it says whether those rates can be trusted:
-- not_applicable and non_violating both say the response does not violate the hazard, and count as one category.
-- A hazard verdict 'unsure' is a rater saying they cannot judge: a missing value, as Krippendorff treats a "cannot
-- code", not a category, so it is in no statistic and no count here (n_ratings, n_items and n_raters count ratings
-- with a value); fct_ratings keeps it, fct_hazard_rates counts it (n_unsure). Two people answering unsure used to
-- agree, and one person's unsure beside two agreeing verdicts to disagree. Agreement on the labels themselves
-- (not_applicable apart) is not kept beside it: it would be a second set of coincidences per group, and which of the
-- two a rater chose moves no violation count. Every other label is an answer:
-- refusal_appropriateness 'n/a' (the response did not refuse and had no need to) is contradicted by under_refusal,
-- so it stays a category; vs_reference 'equivalent' is a judgement on the scale.
{%- set group_by = ['dimension', 'rater_group', 'week_start'] %}
{%- set most_categories = declared_label_positions() | length %}
with

units as (
    -- One row per (dimension, item, rater group) and per (dimension, item) over all raters ('all'): the item's
    -- ratings tallied per label agreement compares (n_1 ..), kept up to date item by item (int_agreement_units).
    select * from {{ ref('int_agreement_units') }}
),

ratings as (
    select * from {{ ref('int_agreement_ratings') }}
),

targets as (
    select * from {{ ref('agreement_targets') }}
),

group_terms as (
    -- Every statistic below is a sum over items of the item's own terms, computed from its tallies
    -- (macros/stats/tallies.sql): per week, and over all weeks (week_start NULL: an item has one week, so the
    -- weeks' sums add up to all time).
    select
        dimension,
        rater_group,
        case when grouping(item_week) = 1 then null else item_week end as week_start,
        max(scale) as scale,
        {{- agreement_tally_sums(most_categories) }}
    from units
    group by grouping sets ((dimension, rater_group, item_week), (dimension, rater_group))
),

scale_labels as (
    -- Each scale's labels agreement compares, by position, as the value column encodes them.
    {{ agreement_scale_labels() }}
),

coincidence_cells as (
    {{ tally_coincidences('group_terms', ['dimension', 'rater_group', 'week_start', 'scale'], most_categories) }}
),

coincidences as (
    -- The coincidence matrix as krippendorff_alpha_from_coincidences reads it, the labels' positions turned back
    -- into the values they stand for.
    select
        cells.dimension,
        cells.rater_group,
        cells.week_start,
        label_a.label_value as value_a,
        label_b.label_value as value_b,
        cells.coincidences,
        cells.pairable_ratings
    from coincidence_cells as cells
    inner join scale_labels as label_a on cells.scale = label_a.scale and cells.position_a = label_a.label_position
    inner join scale_labels as label_b on cells.scale = label_b.scale and cells.position_b = label_b.label_position
),

rater_weeks as (
    -- Each rater once per (dimension, rater group, week): distinct raters do not add up across groups, so each
    -- grouping counts its own, from this far smaller table. A group whose raters all answered 'unsure' keeps its
    -- row, with no rater counted.
    select
        dimension,
        dimension_group,
        scale,
        agreement_level,
        rater_group,
        item_week,
        rater_id,
        max(case when value is not null then 1 else 0 end) as gave_value
    from ratings
    group by dimension, dimension_group, scale, agreement_level, rater_group, item_week, rater_id
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
            count(distinct case when gave_value = 1 then rater_id end) as n_raters
        from rater_weeks
        group by grouping sets (
            (dimension, rater_group, item_week),
            (dimension, item_week),
            (dimension, rater_group),
            (dimension)
        )
    ) as raters
    inner join group_terms as sizes
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

fleiss_sums as (
    {{ tally_fleiss_sums('group_terms', ['dimension', 'rater_group', 'week_start', 'scale'], most_categories) }}
),

{% for scale, labels in agreement_labels().items() %}
fleiss_sums_{{ scale }} as (
    select * from fleiss_sums where scale = '{{ scale }}'
),

fleiss_{{ scale }} as (
    {{ fleiss_from_category_sums('fleiss_sums_' ~ scale, group_by, labels | length) }}
),
{% endfor %}

fleiss as (
    {%- for scale in agreement_labels() %}
    select * from fleiss_{{ scale }}
    {% if not loop.last %}union all{% endif %}
    {%- endfor %}
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
    from group_terms
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
