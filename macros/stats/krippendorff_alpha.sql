{#
    krippendorff_alpha: Krippendorff's alpha per group, for any number of raters, missing ratings and the four
    levels of measurement (nominal, ordinal, interval, ratio).

    Input: one row per (group, unit, rater) with a numeric value; the caller guarantees that grain (a duplicate
    (unit, rater) row would inflate m_u). NULL values are ignored. A unit is pairable when it has >= 2 non-null
    ratings; the others drop out, and only groups with at least one pairable unit produce a row (left join from
    the groups' dimension to show the rest as NULL).

    Formula (Krippendorff 2011; docs/STATS.md), with m_u the number of ratings of unit u (per unit), n the number
    of pairable values, n_c the pairable values equal to c and o_ck the coincidences:
        alpha = 1 - (n - 1) * sum_ck o_ck d2(c, k) / sum_ck n_c n_k d2(c, k)
    computed without any value-by-value table where a closed form exists:
      - nominal  : 1 - (n - 1) * sum_u [(m_u^2 - sum_c n_uc^2) / (m_u - 1)] / (n^2 - sum_c n_c^2), summed row by
                   row: sum over a unit's rows of (m_u - n_uc) / (m_u - 1) is that unit's term, and the sum over
                   rows of n_c is sum_c n_c^2.
      - interval : 1 - (n - 1) * sum_rows (x - mean_u)^2 m_u / (m_u - 1) / (n * sum_rows (x - mean)^2), which is
                   1 - sum_u m_u s2_u / (n s2_all) with deviations taken from window means (two-pass, so a large
                   common offset does not cancel digits away).
      - ordinal  : interval on midranks mid_v = #{pairable values < v} + n_v / 2, computed from the group's
                   pairable marginals: (mid_c - mid_k)^2 is exactly Krippendorff's ordinal d2.
      - ratio    : d2 = ((c - k) / (c + k))^2 has no closed form, so the coincidence form is summed over the
                   distinct values: observed over pairs of distinct values within each unit, expected over pairs
                   of the group's distinct values (O(V^2) per group, V = distinct values). Fine for rating scales
                   and rounded measures; for thousands of distinct continuous values per group prefer interval.
                   As in the reference implementation, d2 = 0 when c + k = 0.

    weight: optional. A column saying how many identical ratings the row stands for (input already counted per
    unit and value); then `rater` may be none, and n_raters is NULL.

    Speed: everything is computed from aggregates, never from windows over individual ratings: the ratings are
    counted once per (group, unit, value) (the n_uc of the coincidence matrix, a much smaller table), and each
    level's sums come from that table and per-group marginals. Only the count of distinct raters reads the
    ratings again.

    Edge cases: alpha is NULL when the expected disagreement is 0, detected exactly as "all pairable values are
    equal" (min = max) rather than by comparing a float to 0, because a mean of equal non-representable values
    need not return the value itself. Within a unit whose values are all equal the observed term is set to an
    exact 0 for the same reason. Every denominator goes through nullif(..., 0).

    Output: group_by columns, n_units (pairable units), n_pairable_values, n_raters (distinct raters among the
    pairable values), alpha. Reference: krippendorff.alpha(reliability_data=raters x units, level_of_measurement=
    level), tested to 1e-9 in tests/models/test_stat_macros.py.
#}
{% macro krippendorff_alpha(relation, group_by, unit='unit_id', rater='rater_id', value='value', level='nominal', weight=none) -%}
{%- if level not in ['nominal', 'ordinal', 'interval', 'ratio'] -%}
    {{ exceptions.raise_compiler_error(
        "krippendorff_alpha: level must be nominal, ordinal, interval or ratio, not '" ~ level ~ "'"
    ) }}
{%- endif -%}
{%- set g = stats_group_select(group_by) -%}
with alpha_input_ratings as (

    select
        {{ g }}{{ unit }} as unit_key,
        {% if rater is not none %}{{ rater }}{% else %}cast(null as varchar){% endif %} as rater_key,
        {% if weight is not none %}cast({{ weight }} as bigint){% else %}cast(1 as bigint){% endif %} as ratings,
        cast({{ value }} as double) as rating_value
    from {{ relation }}
    where {{ value }} is not null

),

alpha_all_unit_values as (

    select
        {{ g }}unit_key,
        rating_value,
        sum(ratings) as unit_value_ratings
    from alpha_input_ratings
    {{ stats_group_by(group_by, ['unit_key', 'rating_value']) }}

),

alpha_units as (

    select
        {{ g }}unit_key,
        cast(sum(unit_value_ratings) as bigint) as unit_ratings,
        min(rating_value) = max(rating_value) as unit_has_one_value
    from alpha_all_unit_values
    {{ stats_group_by(group_by, ['unit_key']) }}
    having sum(unit_value_ratings) >= 2

),

alpha_unit_values as (

    select
        {{ stats_group_select(group_by, 'unit_values') }}unit_values.unit_key,
        unit_values.rating_value,
        units.unit_ratings,
        units.unit_has_one_value,
        unit_values.unit_value_ratings
    from alpha_all_unit_values as unit_values
    inner join alpha_units as units
        on {{ stats_join_groups('unit_values', 'units', group_by) }}
        and unit_values.unit_key is not distinct from units.unit_key

),

alpha_values as (

    select
        {{ g }}rating_value,
        cast(sum(unit_value_ratings) as bigint) as value_ratings
    from alpha_unit_values
    {{ stats_group_by(group_by, ['rating_value']) }}

),

alpha_raters as (

    {%- if rater is not none %}
    select
        {{ stats_group_select(group_by, 'ratings') }}count(distinct ratings.rater_key) as n_raters
    from alpha_input_ratings as ratings
    inner join alpha_units as units
        on {{ stats_join_groups('ratings', 'units', group_by) }}
        and ratings.unit_key is not distinct from units.unit_key
    {{ stats_group_by(group_by, alias='ratings') }}
    {%- else %}
    select {{ g }}cast(null as bigint) as n_raters
    from alpha_units
    {{ stats_group_by(group_by) }}
    {%- endif %}

),

alpha_group_sizes as (

    select
        {{ stats_group_select(group_by, 'values_by_group') }}values_by_group.n_units,
        values_by_group.n_pairable_values,
        raters.n_raters,
        values_by_group.has_one_value
    from (
        select
            {{ g }}count(distinct unit_key) as n_units,
            cast(sum(unit_value_ratings) as bigint) as n_pairable_values,
            min(rating_value) = max(rating_value) as has_one_value
        from alpha_unit_values
        {{ stats_group_by(group_by) }}
    ) as values_by_group
    inner join alpha_raters as raters
        on {{ stats_join_groups('values_by_group', 'raters', group_by) }}

),

{%- if level == 'nominal' %}

alpha_unit_terms as (

    -- (m_u^2 - sum_c n_uc^2) / (m_u - 1) for each unit: its disagreeing pairs, weighted as the coincidences are
    select
        {{ g }}(
            cast(max(unit_ratings) as double) * cast(max(unit_ratings) as double)
            - sum(cast(unit_value_ratings as double) * cast(unit_value_ratings as double))
        ) / cast(max(unit_ratings) - 1 as double) as unit_disagreement
    from alpha_unit_values
    {{ stats_group_by(group_by, ['unit_key']) }}

),

alpha_disagreements as (

    select
        {{ stats_group_select(group_by, 'observed') }}observed.observed_disagreement,
        expected.expected_disagreement
    from (
        select {{ g }}sum(unit_disagreement) as observed_disagreement
        from alpha_unit_terms
        {{ stats_group_by(group_by) }}
    ) as observed
    inner join (
        select
            {{ g }}cast(sum(value_ratings) as double) * cast(sum(value_ratings) as double)
                - sum(cast(value_ratings as double) * cast(value_ratings as double)) as expected_disagreement
        from alpha_values
        {{ stats_group_by(group_by) }}
    ) as expected
        on {{ stats_join_groups('observed', 'expected', group_by) }}

),

{%- elif level in ['interval', 'ordinal'] %}

{%- if level == 'ordinal' %}

alpha_scale as (

    -- midranks from the group's pairable marginals: mid_v = (values below v) + n_v / 2
    select
        {{ g }}rating_value,
        cast(sum(value_ratings) over ({{ stats_partition_by(group_by) }} order by rating_value) - value_ratings
            as double) + cast(value_ratings as double) / 2 as scaled_value
    from alpha_values

),

{%- else %}

alpha_scale as (

    select {{ g }}rating_value, rating_value as scaled_value
    from alpha_values

),

{%- endif %}

alpha_scaled_unit_values as (

    select
        {{ stats_group_select(group_by, 'unit_values') }}unit_values.unit_key,
        unit_values.unit_ratings,
        unit_values.unit_has_one_value,
        cast(unit_values.unit_value_ratings as double) as weight,
        scale.scaled_value
    from alpha_unit_values as unit_values
    inner join alpha_scale as scale
        on {{ stats_join_groups('unit_values', 'scale', group_by) }}
        and unit_values.rating_value = scale.rating_value

),

alpha_unit_means as (

    select
        {{ g }}unit_key,
        sum(weight * scaled_value) / sum(weight) as unit_mean
    from alpha_scaled_unit_values
    {{ stats_group_by(group_by, ['unit_key']) }}

),

alpha_group_means as (

    select
        {{ g }}sum(weight * scaled_value) / sum(weight) as group_mean
    from alpha_scaled_unit_values
    {{ stats_group_by(group_by) }}

),

alpha_deviations as (

    -- two-pass deviations (from the unit's and the group's means), so a large common offset cancels no digits;
    -- a unit whose values are all equal contributes an exact 0
    select
        {{ stats_group_select(group_by, 'scaled') }}scaled.weight,
        scaled.unit_ratings,
        case
            when scaled.unit_has_one_value then cast(0 as double)
            else scaled.scaled_value - unit_means.unit_mean
        end as unit_deviation,
        scaled.scaled_value - group_means.group_mean as group_deviation
    from alpha_scaled_unit_values as scaled
    inner join alpha_unit_means as unit_means
        on {{ stats_join_groups('scaled', 'unit_means', group_by) }}
        and scaled.unit_key is not distinct from unit_means.unit_key
    inner join alpha_group_means as group_means
        on {{ stats_join_groups('scaled', 'group_means', group_by) }}

),

alpha_disagreements as (

    select
        {{ g }}sum(
            scaled_weight_unit_term
        ) * cast(sum(weight) - 1 as double) as observed_disagreement,
        sum(weight * group_deviation * group_deviation) * cast(sum(weight) as double) as expected_disagreement
    from (
        select
            *,
            weight * unit_deviation * unit_deviation * cast(unit_ratings as double)
                / cast(unit_ratings - 1 as double) as scaled_weight_unit_term
        from alpha_deviations
    ) as terms
    {{ stats_group_by(group_by) }}

),

{%- else %}

alpha_observed_pairs as (

    select
        {{ stats_group_select(group_by, 'value_a') }}sum(
            cast(value_a.unit_value_ratings * value_b.unit_value_ratings as double)
            * {{ stats_ratio_distance('value_a.rating_value', 'value_b.rating_value') }}
            / cast(value_a.unit_ratings - 1 as double)
        ) as observed_sum
    from alpha_unit_values as value_a
    inner join alpha_unit_values as value_b
        on {{ stats_join_groups('value_a', 'value_b', group_by) }}
        and value_a.unit_key is not distinct from value_b.unit_key
        and value_a.rating_value <> value_b.rating_value
    {{ stats_group_by(group_by, alias='value_a') }}

),

alpha_expected_pairs as (

    select
        {{ stats_group_select(group_by, 'value_a') }}sum(
            cast(value_a.value_ratings * value_b.value_ratings as double)
            * {{ stats_ratio_distance('value_a.rating_value', 'value_b.rating_value') }}
        ) as expected_sum
    from alpha_values as value_a
    inner join alpha_values as value_b
        on {{ stats_join_groups('value_a', 'value_b', group_by) }}
        and value_a.rating_value <> value_b.rating_value
    {{ stats_group_by(group_by, alias='value_a') }}

),

alpha_disagreements as (

    select
        {{ stats_group_select(group_by, 'group_sizes') }}coalesce(observed_pairs.observed_sum, cast(0 as double))
            * cast(group_sizes.n_pairable_values - 1 as double) as observed_disagreement,
        expected_pairs.expected_sum as expected_disagreement
    from alpha_group_sizes as group_sizes
    left join alpha_observed_pairs as observed_pairs
        on {{ stats_join_groups('group_sizes', 'observed_pairs', group_by) }}
    left join alpha_expected_pairs as expected_pairs
        on {{ stats_join_groups('group_sizes', 'expected_pairs', group_by) }}

),

{%- endif %}

alpha_final as (

    select
        {{ stats_group_select(group_by, 'group_sizes') }}group_sizes.n_units,
        group_sizes.n_pairable_values,
        group_sizes.n_raters,
        case
            when group_sizes.has_one_value then null
            {%- if level == 'nominal' %}
            else 1 - cast(group_sizes.n_pairable_values - 1 as double) * disagreements.observed_disagreement
                / nullif(disagreements.expected_disagreement, 0)
            {%- else %}
            else 1 - disagreements.observed_disagreement / nullif(disagreements.expected_disagreement, 0)
            {%- endif %}
        end as alpha
    from alpha_group_sizes as group_sizes
    inner join alpha_disagreements as disagreements
        on {{ stats_join_groups('group_sizes', 'disagreements', group_by) }}

)

select * from alpha_final
{%- endmacro %}

{#
    Krippendorff's ratio distance ((c - k) / (c + k))^2, 0 when c + k = 0 as in the reference implementation.
    nullif rather than a case guard, so no engine ever evaluates a division by zero (Spark's ANSI mode raises).
#}
{% macro stats_ratio_distance(first, second) -%}
    coalesce(
        (({{ first }} - {{ second }}) / nullif({{ first }} + {{ second }}, 0))
        * (({{ first }} - {{ second }}) / nullif({{ first }} + {{ second }}, 0)),
        cast(0 as double)
    )
{%- endmacro %}
