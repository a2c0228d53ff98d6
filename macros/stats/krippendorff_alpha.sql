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

    Edge cases: alpha is NULL when the expected disagreement is 0, detected exactly as "all pairable values are
    equal" (min = max) rather than by comparing a float to 0, because a mean of equal non-representable values
    need not return the value itself. Within a unit whose values are all equal the observed term is set to an
    exact 0 for the same reason. Every denominator goes through nullif(..., 0).

    Output: group_by columns, n_units (pairable units), n_pairable_values, n_raters (distinct raters among the
    pairable values), alpha. Reference: krippendorff.alpha(reliability_data=raters x units, level_of_measurement=
    level), tested to 1e-9 in tests/models/test_stat_macros.py.
#}
{% macro krippendorff_alpha(relation, group_by, unit='unit_id', rater='rater_id', value='value', level='nominal') -%}
{%- if level not in ['nominal', 'ordinal', 'interval', 'ratio'] -%}
    {{ exceptions.raise_compiler_error(
        "krippendorff_alpha: level must be nominal, ordinal, interval or ratio, not '" ~ level ~ "'"
    ) }}
{%- endif -%}
{%- set g = stats_group_select(group_by) -%}
with alpha_input_ratings as (

    select
        {{ g }}{{ unit }} as unit_key,
        {{ rater }} as rater_key,
        cast({{ value }} as double) as rating_value
    from {{ relation }}
    where {{ value }} is not null

),

alpha_counted_ratings as (

    select
        *,
        count(*) over ({{ stats_partition_by(group_by, ['unit_key']) }}) as unit_ratings
    from alpha_input_ratings

),

alpha_pairable_ratings as (

    select *
    from alpha_counted_ratings
    where unit_ratings >= 2

),

alpha_group_sizes as (

    select
        {{ g }}count(distinct unit_key) as n_units,
        count(*) as n_pairable_values,
        count(distinct rater_key) as n_raters,
        min(rating_value) = max(rating_value) as has_one_value
    from alpha_pairable_ratings
    {{ stats_group_by(group_by) }}

),

{%- if level == 'nominal' %}

alpha_rows_with_counts as (

    select
        {{ g }}unit_ratings,
        count(*) over ({{ stats_partition_by(group_by, ['unit_key', 'rating_value']) }}) as unit_value_ratings,
        count(*) over ({{ stats_partition_by(group_by, ['rating_value']) }}) as value_ratings
    from alpha_pairable_ratings

),

alpha_disagreements as (

    select
        {{ g }}sum(
            cast(unit_ratings - unit_value_ratings as double) / cast(unit_ratings - 1 as double)
        ) as observed_disagreement,
        cast(count(*) as double) * cast(count(*) as double)
            - cast(sum(value_ratings) as double) as expected_disagreement
    from alpha_rows_with_counts
    {{ stats_group_by(group_by) }}

),

{%- elif level in ['interval', 'ordinal'] %}

{%- if level == 'ordinal' %}

alpha_midranked_ratings as (

    select
        {{ g }}unit_key,
        unit_ratings,
        cast(rank() over ({{ stats_partition_by(group_by) }} order by rating_value) - 1 as double)
            + cast(count(*) over ({{ stats_partition_by(group_by, ['rating_value']) }}) as double) / 2
            as scaled_value
    from alpha_pairable_ratings

),
{%- set scaled = 'alpha_midranked_ratings' %}
{%- else %}

alpha_scaled_ratings as (

    select
        {{ g }}unit_key,
        unit_ratings,
        rating_value as scaled_value
    from alpha_pairable_ratings

),
{%- set scaled = 'alpha_scaled_ratings' %}
{%- endif %}

alpha_deviations as (

    select
        {{ g }}unit_ratings,
        case
            when min(scaled_value) over ({{ stats_partition_by(group_by, ['unit_key']) }})
                = max(scaled_value) over ({{ stats_partition_by(group_by, ['unit_key']) }})
                then cast(0 as double)
            else scaled_value - avg(scaled_value) over ({{ stats_partition_by(group_by, ['unit_key']) }})
        end as unit_deviation,
        scaled_value - avg(scaled_value) over ({{ stats_partition_by(group_by) }}) as group_deviation
    from {{ scaled }}

),

alpha_disagreements as (

    select
        {{ g }}sum(
            unit_deviation * unit_deviation * cast(unit_ratings as double) / cast(unit_ratings - 1 as double)
        ) * cast(count(*) - 1 as double) as observed_disagreement,
        sum(group_deviation * group_deviation) * cast(count(*) as double) as expected_disagreement
    from alpha_deviations
    {{ stats_group_by(group_by) }}

),

{%- else %}

alpha_unit_values as (

    select
        {{ g }}unit_key,
        rating_value,
        max(unit_ratings) as unit_ratings,
        count(*) as unit_value_ratings
    from alpha_pairable_ratings
    {{ stats_group_by(group_by, ['unit_key', 'rating_value']) }}

),

alpha_values as (

    select
        {{ g }}rating_value,
        count(*) as value_ratings
    from alpha_pairable_ratings
    {{ stats_group_by(group_by, ['rating_value']) }}

),

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
