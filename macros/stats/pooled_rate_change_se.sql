{#
    pooled_rate_change_se(rate, n, previous_rate, previous_n): the standard error of rate - previous_rate under no
    change, for two independent windows (different responses each week). A scalar expression:
    `{{ pooled_rate_change_se('refusal_rate', 'n_items', 'previous_refusal_rate', 'previous_n_items') }}`.

    Formula: sqrt(p (1 - p) (1/n + 1/n0)) with p = (rate n + previous_rate n0) / (n + n0), the two weeks pooled: the
    two-proportion z test's SE. The unpooled sqrt(p1 (1 - p1)/n1 + p0 (1 - p0)/n0) collapses when a week's rate is
    0 or 1: 3 of 10 against 0 of 10 gave z = 0.3 / 0.145 = 2.07, "significant", where Fisher's exact p is 0.21;
    pooled, z = 0.3 / sqrt(0.15 x 0.85 x 0.2) = 1.88. A rate that is a mean of per-response shares in [0, 1] (several
    forms per response) has variance at most p (1 - p) per response, so the SE stays on the safe side there too.

    Edge cases: NULL when either n is 0 or NULL or either rate is NULL; 0 when both weeks' rates are 0 (or both 1),
    where the change is 0 too: the caller's z is then undefined (safe_divide), and no change is no change.
#}
{% macro pooled_rate_change_se(rate, n, previous_rate, previous_n) -%}
    {%- set n1 = 'cast(' ~ n ~ ' as double)' -%}
    {%- set n0 = 'cast(' ~ previous_n ~ ' as double)' -%}
    {%- set pooled -%}
        (({{ rate }}) * {{ n1 }} + ({{ previous_rate }}) * {{ n0 }}) / nullif({{ n1 }} + {{ n0 }}, 0)
    {%- endset -%}
    sqrt(
        {{ pooled }} * (1 - {{ pooled }})
        * (1 / nullif({{ n1 }}, 0) + 1 / nullif({{ n0 }}, 0))
    )
{%- endmacro %}
