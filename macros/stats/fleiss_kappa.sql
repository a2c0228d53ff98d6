{#
    fleiss_kappa: Fleiss' kappa and Gwet's AC1 per group, for several raters on a nominal scale, with units
    that may have different numbers of ratings.

    Input: one row per rating (group, unit, value). Values outside the declared `categories` (NULL included)
    are ignored. Units with fewer than 2 ratings drop out; only groups with at least one unit left produce a
    row (as krippendorff_alpha: left join from the groups' dimension).

    Formula (docs/STATS.md), over the n units with r_i >= 2 ratings, r_ik of them in category k, and q the
    number of declared categories:
        p_a   = (1/n) sum_i sum_k r_ik (r_ik - 1) / (r_i (r_i - 1))
        pi_k  = (1/n) sum_i r_ik / r_i
        Fleiss: p_e = sum_k pi_k^2                      kappa = (p_a - p_e) / (1 - p_e)
        AC1:    p_e = sum_k pi_k (1 - pi_k) / (q - 1)   ac1   = (p_a - p_e) / (1 - p_e)
    The per-unit shares r_ik / r_i are formed once per (unit, category) and then summed, so a unit (or a group)
    that used a single category contributes exactly 1, and the sums stay O(units x categories).

    Edge cases: Fleiss' kappa is NULL when p_e = 1, i.e. every kept rating of the group is in one category,
    detected exactly (one category used) rather than by comparing a float sum to 1. AC1's p_e is at most 1/q,
    so AC1 is defined whenever q >= 2; with q = 1 it is NULL (nullif on q - 1).

    In two steps, so a mart can give the statistic for unions of groups without redoing the per-unit work:
    fleiss_category_sums(relation, group_by, ...) gives one row per (group, category_position) with
    units_first_seen, share_sum (sum_i r_ik / r_i) and agreement_sum (sum_i r_ik (r_ik - 1) / (r_i (r_i - 1)));
    all three add up over groups that share no unit. fleiss_from_category_sums(relation, group_by, n_categories)
    takes those rows, or their sums per (union of groups, category_position), and gives the statistics.
    fleiss_kappa is the two in a row.

    Output: group_by columns, n_units (units with >= 2 ratings), fleiss_kappa, gwet_ac1.
    Reference: the formulas above in numpy, and on complete data a textbook Fleiss implementation (the same as
    statsmodels' fleiss_kappa), tested to 1e-9 in tests/models/test_stat_macros.py.
#}
{% macro fleiss_kappa(relation, group_by, unit='unit_id', value='value', categories=[1, 2, 3, 4, 5], weight=none) -%}
with fleiss_counted_categories as (

    {{ fleiss_category_sums(relation, group_by, unit=unit, value=value, categories=categories, weight=weight) | indent(4) }}

),

fleiss_result as (

    {{ fleiss_from_category_sums('fleiss_counted_categories', group_by, categories | length) | indent(4) }}

)

select * from fleiss_result
{%- endmacro %}


{% macro fleiss_category_sums(relation, group_by, unit='unit_id', value='value', categories=[1, 2, 3, 4, 5], weight=none) -%}
{%- if categories | length == 0 -%}
    {{ exceptions.raise_compiler_error("fleiss_kappa: categories must list at least one category") }}
{%- endif -%}
{%- set g = stats_group_select(group_by) -%}
with fleiss_positioned_ratings as (

    select
        {{ g }}{{ unit }} as unit_key,
        {{ stats_label_position(value, categories) }} as category_position,
        {% if weight is not none %}cast({{ weight }} as bigint){% else %}cast(1 as bigint){% endif %} as ratings
    from {{ relation }}

),

fleiss_unit_categories as (

    select
        {{ g }}unit_key,
        category_position,
        sum(ratings) as category_ratings
    from fleiss_positioned_ratings
    where category_position is not null
    {{ stats_group_by(group_by, ['unit_key', 'category_position']) }}

),

fleiss_unit_sizes as (

    select
        *,
        sum(category_ratings) over ({{ stats_partition_by(group_by, ['unit_key']) }}) as unit_ratings,
        row_number() over (
            {{ stats_partition_by(group_by, ['unit_key']) }} order by category_position
        ) as category_order
    from fleiss_unit_categories

),

fleiss_unit_shares as (

    select
        {{ g }}category_position,
        case when category_order = 1 then 1 else 0 end as is_first_category_of_unit,
        cast(category_ratings as double) / cast(unit_ratings as double) as category_share,
        cast(category_ratings * (category_ratings - 1) as double)
            / cast(unit_ratings * (unit_ratings - 1) as double) as category_agreement
    from fleiss_unit_sizes
    where unit_ratings >= 2

),

fleiss_categories as (

    select
        {{ g }}category_position,
        sum(is_first_category_of_unit) as units_first_seen,
        sum(category_share) as share_sum,
        sum(category_agreement) as agreement_sum
    from fleiss_unit_shares
    {{ stats_group_by(group_by, ['category_position']) }}

)

select * from fleiss_categories
{%- endmacro %}


{% macro fleiss_from_category_sums(relation, group_by, n_categories) -%}
{%- set g = stats_group_select(group_by) -%}
with fleiss_sums as (

    select
        {{ g }}sum(units_first_seen) as n_units,
        count(*) as n_categories_used,
        sum(agreement_sum) as agreement_sum,
        sum(share_sum * share_sum) as squared_share_sum,
        sum(share_sum) as share_sum
    from {{ relation }}
    {{ stats_group_by(group_by) }}

),

fleiss_chance as (

    select
        {{ g }}n_units,
        n_categories_used,
        agreement_sum / cast(n_units as double) as observed_agreement,
        squared_share_sum / (cast(n_units as double) * cast(n_units as double)) as fleiss_chance_agreement,
        (share_sum / cast(n_units as double)
            - squared_share_sum / (cast(n_units as double) * cast(n_units as double)))
            / nullif(cast({{ n_categories }} - 1 as double), 0) as gwet_chance_agreement
    from fleiss_sums

),

fleiss_final as (

    select
        {{ g }}n_units,
        case
            when n_categories_used = 1 then null
            else (observed_agreement - fleiss_chance_agreement) / nullif(1 - fleiss_chance_agreement, 0)
        end as fleiss_kappa,
        (observed_agreement - gwet_chance_agreement) / nullif(1 - gwet_chance_agreement, 0) as gwet_ac1
    from fleiss_chance

)

select * from fleiss_final
{%- endmacro %}
