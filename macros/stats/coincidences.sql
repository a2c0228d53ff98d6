{#
    Krippendorff's alpha in two steps, for groups whose statistics must also be given for unions of groups (an
    agreement mart's weeks and all time): first each group's coincidence matrix, which adds up over groups that
    share no unit, then alpha from a (possibly summed) matrix. A mart computes the per-unit work once, per week,
    and gets the all-time rows by summing a few rows per (value, value) instead of recomputing every unit. Where
    units are kept tallied per category, tally_coincidences (macros/stats/tallies.sql) gives the same matrix from
    the tallies' sums; fct_rater_agreement takes that road.

    krippendorff_coincidences(relation, group_by, unit, value, weight)
        Input: one row per rating (group, unit, value), or per (group, unit, value) with `weight` saying how many
        identical ratings the row stands for. NULL values are ignored; units with fewer than 2 ratings drop out.
        Output: one row per (group, value_a, value_b) that occurs within a pairable unit:
          coincidences       o_ck = sum_u n_uc (n_uk - [c = k]) / (m_u - 1)   (Krippendorff 2011, the
                             coincidence matrix; m_u ratings in unit u, n_uc of them equal to c)
          pairable_ratings   on the diagonal (value_a = value_b) n_c, the pairable ratings equal to c, as an exact
                             integer (sum_k o_ck is n_c only up to rounding); 0 off the diagonal.
        Both columns add up over groups with disjoint units.

    krippendorff_alpha_from_coincidences(relation, group_by, level)
        Input: the output above, or sums of it over unions of groups.
        alpha = 1 - (n - 1) * sum_{c != k} o_ck d2(c, k) / sum_{c != k} n_c n_k d2(c, k), with d2 at the level:
          nominal 1; interval (c - k)^2; ordinal (mid_c - mid_k)^2 on midranks of the group's marginals,
          mid_v = #{pairable values < v} + n_v / 2 (exactly Krippendorff's ordinal metric); ratio
          ((c - k) / (c + k))^2, 0 when c + k = 0.
        Cost: O(V^2) per group, V the group's distinct values: meant for rating scales. For thousands of distinct
        continuous values per group use krippendorff_alpha, whose interval and ordinal forms are O(V).
        Edge cases as krippendorff_alpha: NULL when every pairable value is equal (detected exactly, one distinct
        value) or the expected disagreement is 0; a unit whose values are all equal adds nothing off the diagonal.
        Output: group_by columns, n_pairable_values, alpha. Tested against krippendorff.alpha to 1e-9, and the
        sum of two groups' matrices against alpha of their union (tests/models/test_stat_macros.py).
#}
{% macro krippendorff_coincidences(relation, group_by, unit='unit_id', value='value', weight=none) -%}
{%- set g = stats_group_select(group_by) -%}
with coincidence_unit_values as (

    select
        {{ g }}{{ unit }} as unit_key,
        cast({{ value }} as double) as rating_value,
        sum({% if weight is not none %}cast({{ weight }} as bigint){% else %}cast(1 as bigint){% endif %})
            as unit_value_ratings
    from {{ relation }}
    where {{ value }} is not null
    {{ stats_group_by(group_by, [unit, 'cast(' ~ value ~ ' as double)']) }}

),

coincidence_units as (

    select {{ g }}unit_key, sum(unit_value_ratings) as unit_ratings
    from coincidence_unit_values
    {{ stats_group_by(group_by, ['unit_key']) }}
    having sum(unit_value_ratings) >= 2

),

coincidence_pairable as (

    select
        {{ stats_group_select(group_by, 'unit_values') }}unit_values.unit_key,
        unit_values.rating_value,
        unit_values.unit_value_ratings,
        units.unit_ratings
    from coincidence_unit_values as unit_values
    inner join coincidence_units as units
        on {{ stats_join_groups('unit_values', 'units', group_by) }}
        and unit_values.unit_key is not distinct from units.unit_key

),

coincidence_matrix as (

    select
        {{ stats_group_select(group_by, 'value_a') }}value_a.rating_value as value_a,
        value_b.rating_value as value_b,
        sum(
            cast(value_a.unit_value_ratings as double)
            * cast(value_b.unit_value_ratings - case when value_a.rating_value = value_b.rating_value then 1 else 0 end
                as double)
            / cast(value_a.unit_ratings - 1 as double)
        ) as coincidences,
        cast(sum(case when value_a.rating_value = value_b.rating_value then value_a.unit_value_ratings else 0 end)
            as bigint) as pairable_ratings
    from coincidence_pairable as value_a
    inner join coincidence_pairable as value_b
        on {{ stats_join_groups('value_a', 'value_b', group_by) }}
        and value_a.unit_key is not distinct from value_b.unit_key
    {{ stats_group_by(group_by, ['value_a.rating_value', 'value_b.rating_value'], alias='value_a') }}

)

select * from coincidence_matrix
{%- endmacro %}


{% macro krippendorff_alpha_from_coincidences(relation, group_by, level='nominal') -%}
{%- if level not in ['nominal', 'ordinal', 'interval', 'ratio'] -%}
    {{ exceptions.raise_compiler_error(
        "krippendorff_alpha_from_coincidences: level must be nominal, ordinal, interval or ratio, not '"
        ~ level ~ "'"
    ) }}
{%- endif -%}
{%- set g = stats_group_select(group_by) -%}
with alpha_marginals as (

    select {{ g }}value_a as rating_value, cast(sum(pairable_ratings) as bigint) as value_ratings
    from {{ relation }}
    where value_a = value_b
    {{ stats_group_by(group_by, ['value_a']) }}
    having sum(pairable_ratings) > 0

),

alpha_scale as (

    select
        {{ g }}rating_value,
        value_ratings,
        {%- if level == 'ordinal' %}
        cast(sum(value_ratings) over ({{ stats_partition_by(group_by) }} order by rating_value) - value_ratings
            as double) + cast(value_ratings as double) / 2 as scaled_value
        {%- else %}
        rating_value as scaled_value
        {%- endif %}
    from alpha_marginals

),

alpha_groups as (

    select
        {{ g }}cast(sum(value_ratings) as bigint) as n_pairable_values,
        count(*) = 1 as has_one_value
    from alpha_marginals
    {{ stats_group_by(group_by) }}

),

alpha_observed as (

    select
        {{ stats_group_select(group_by, 'matrix') }}sum(
            matrix.coincidences * {{ stats_coincidence_distance(level, 'scale_a', 'scale_b') }}
        ) as observed_sum
    from {{ relation }} as matrix
    inner join alpha_scale as scale_a
        on {{ stats_join_groups('matrix', 'scale_a', group_by) }}
        and matrix.value_a = scale_a.rating_value
    inner join alpha_scale as scale_b
        on {{ stats_join_groups('matrix', 'scale_b', group_by) }}
        and matrix.value_b = scale_b.rating_value
    where matrix.value_a <> matrix.value_b
    {{ stats_group_by(group_by, alias='matrix') }}

),

alpha_expected as (

    select
        {{ stats_group_select(group_by, 'scale_a') }}sum(
            cast(scale_a.value_ratings as double) * cast(scale_b.value_ratings as double)
            * {{ stats_coincidence_distance(level, 'scale_a', 'scale_b') }}
        ) as expected_sum
    from alpha_scale as scale_a
    inner join alpha_scale as scale_b
        on {{ stats_join_groups('scale_a', 'scale_b', group_by) }}
        and scale_a.rating_value <> scale_b.rating_value
    {{ stats_group_by(group_by, alias='scale_a') }}

),

alpha_final as (

    select
        {{ stats_group_select(group_by, 'groups') }}groups.n_pairable_values,
        case
            when groups.has_one_value then null
            else 1 - cast(groups.n_pairable_values - 1 as double) * coalesce(observed.observed_sum, 0)
                / nullif(expected.expected_sum, 0)
        end as alpha
    from alpha_groups as groups
    left join alpha_observed as observed
        on {{ stats_join_groups('groups', 'observed', group_by) }}
    left join alpha_expected as expected
        on {{ stats_join_groups('groups', 'expected', group_by) }}

)

select * from alpha_final
{%- endmacro %}


{# d2(c, k) at a level, between two alpha_scale rows (rating_value and scaled_value). #}
{% macro stats_coincidence_distance(level, a, b) -%}
    {%- if level == 'nominal' -%}
        cast(1 as double)
    {%- elif level == 'ratio' -%}
        {{ stats_ratio_distance(a ~ '.rating_value', b ~ '.rating_value') }}
    {%- else -%}
        ({{ a }}.scaled_value - {{ b }}.scaled_value) * ({{ a }}.scaled_value - {{ b }}.scaled_value)
    {%- endif -%}
{%- endmacro %}
