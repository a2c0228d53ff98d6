{#
    cohen_kappa: Cohen's kappa between two raters per group, unweighted or with linear or quadratic weights.

    Input: one row per item rated by both raters (a pair) with the two ratings. Ratings are mapped to their
    position in the declared `labels` list (1-based), and the weights are computed on those positions, never on
    the raw values and never on the labels seen in the data: a label nobody used still widens the scale, as
    in sklearn with `labels=`. A pair with a rating outside `labels` (NULL included) is excluded and counted in
    n_excluded.

    Formula (docs/STATS.md), with O the confusion matrix of the N kept pairs, row_i and col_j its marginals and
    w(i, j) = [i != j] (unweighted), |i - j| (linear) or (i - j)^2 (quadratic):
        kappa = 1 - sum w O / sum w E,   E_ij = row_i col_j / N
              = 1 - N * sum_pairs w(i, j) / sum_ij row_i col_j w(i, j)
    The second line keeps every sum in integer-valued doubles (exact below 2^53), and the expected sum is a
    join of the two raters' marginals within the group: at most L^2 rows per group, L = len(labels).

    Edge cases: kappa is NULL when the expected disagreement is 0 (both raters used one and the same category)
    or when no pair was kept (observed_agreement is NULL then too). Every group present in the input gets a row,
    even when all its pairs were excluded (n_pairs = 0).

    Output: group_by columns, n_pairs, n_excluded, observed_agreement (share of exact matches), kappa.
    Reference: sklearn.metrics.cohen_kappa_score(a, b, labels=labels, weights=None | 'linear' | 'quadratic'),
    tested to 1e-9 in tests/models/test_stat_macros.py.
#}
{% macro cohen_kappa(
    relation, group_by, rating_a='rating_a', rating_b='rating_b', labels=[1, 2, 3, 4, 5], weights='unweighted'
) -%}
{%- if weights not in ['unweighted', 'linear', 'quadratic'] -%}
    {{ exceptions.raise_compiler_error(
        "cohen_kappa: weights must be unweighted, linear or quadratic, not '" ~ weights ~ "'"
    ) }}
{%- endif -%}
{%- if labels | length == 0 -%}
    {{ exceptions.raise_compiler_error("cohen_kappa: labels must list at least one label") }}
{%- endif -%}
{%- set g = stats_group_select(group_by) -%}
with kappa_positioned_pairs as (

    select
        {{ g }}{{ stats_label_position(rating_a, labels) }} as position_a,
        {{ stats_label_position(rating_b, labels) }} as position_b
    from {{ relation }}

),

kappa_kept_pairs as (

    select *
    from kappa_positioned_pairs
    where position_a is not null
        and position_b is not null

),

kappa_observed as (

    select
        {{ g }}count(*) as n_rows,
        sum(case when position_a is not null and position_b is not null then 1 else 0 end) as n_pairs,
        sum(case when position_a = position_b then 1 else 0 end) as n_matches,
        sum(
            case
                when position_a is not null and position_b is not null
                    then {{ stats_kappa_weight('position_a', 'position_b', weights) }}
            end
        ) as observed_weight
    from kappa_positioned_pairs
    {{ stats_group_by(group_by) }}

),

kappa_margins_a as (

    select
        {{ g }}position_a as label_position,
        count(*) as n_ratings
    from kappa_kept_pairs
    {{ stats_group_by(group_by, ['position_a']) }}

),

kappa_margins_b as (

    select
        {{ g }}position_b as label_position,
        count(*) as n_ratings
    from kappa_kept_pairs
    {{ stats_group_by(group_by, ['position_b']) }}

),

kappa_expected as (

    select
        {{ stats_group_select(group_by, 'margin_a') }}sum(
            cast(margin_a.n_ratings * margin_b.n_ratings as double)
            * {{ stats_kappa_weight('margin_a.label_position', 'margin_b.label_position', weights) }}
        ) as expected_weight
    from kappa_margins_a as margin_a
    inner join kappa_margins_b as margin_b
        on {{ stats_join_groups('margin_a', 'margin_b', group_by) }}
    {{ stats_group_by(group_by, alias='margin_a') }}

),

kappa_final as (

    select
        {{ stats_group_select(group_by, 'observed') }}observed.n_pairs,
        observed.n_rows - observed.n_pairs as n_excluded,
        cast(observed.n_matches as double) / nullif(cast(observed.n_pairs as double), 0) as observed_agreement,
        1 - cast(observed.n_pairs as double) * observed.observed_weight
            / nullif(expected.expected_weight, 0) as kappa
    from kappa_observed as observed
    left join kappa_expected as expected
        on {{ stats_join_groups('observed', 'expected', group_by) }}

)

select * from kappa_final
{%- endmacro %}

{# The 1-based position of expr in the labels list, NULL when it is not one of them (or is NULL). #}
{% macro stats_label_position(expr, labels) -%}
    case
        {%- for label in labels %}
        when {{ expr }} = {{ stats_literal(label) }} then {{ loop.index }}
        {%- endfor %}
    end
{%- endmacro %}

{# Cohen's disagreement weight between two label positions (positions, not values). #}
{% macro stats_kappa_weight(position_a, position_b, weights) -%}
    {%- if weights == 'unweighted' -%}
        case when {{ position_a }} = {{ position_b }} then cast(0 as double) else cast(1 as double) end
    {%- elif weights == 'linear' -%}
        cast(abs({{ position_a }} - {{ position_b }}) as double)
    {%- else -%}
        cast(({{ position_a }} - {{ position_b }}) * ({{ position_a }} - {{ position_b }}) as double)
    {%- endif -%}
{%- endmacro %}
