{#
    wilson_low / wilson_high: the Wilson score interval for a proportion of `successes` out of `n`, at normal
    quantile z (1.96 for 95%). Scalar expressions: `{{ wilson_low('n_correct', 'n_trials') }} as ci_low`.

    Formula, with p = s / n:
        (p + z^2 / (2n) -/+ z sqrt(p (1 - p) / n + z^2 / (4 n^2))) / (1 + z^2 / n)
    written here multiplied through by n:
        (s + z^2 / 2 -/+ z sqrt(s (n - s) / n + z^2 / 4)) / (n + z^2)
    which avoids forming p and 1 - p (1 - p loses digits when p is near 1) and stays inside [0, 1]. Unlike the
    plain mean +- 1.96 SE it behaves near 0 and 1 and with small n (docs/STATS.md, error bars).

    Edge cases: NULL when n is 0 or NULL (nullif on n inside the square root); assumes 0 <= s <= n. Every
    denominator goes through nullif, so no engine evaluates a division by zero (Spark's ANSI mode would raise).
#}
{% macro wilson_low(successes, n, z=1.96) -%}
    {{ stats_wilson_bound(successes, n, z, '-') }}
{%- endmacro %}

{% macro wilson_high(successes, n, z=1.96) -%}
    {{ stats_wilson_bound(successes, n, z, '+') }}
{%- endmacro %}

{# The shared body: sign is '-' for the lower bound, '+' for the upper. #}
{% macro stats_wilson_bound(successes, n, z, sign) -%}
    (
        (cast({{ successes }} as double) + cast({{ z }} as double) * cast({{ z }} as double) / 2)
        {{ sign }} cast({{ z }} as double) * sqrt(
            cast({{ successes }} as double) * (cast({{ n }} as double) - cast({{ successes }} as double))
            / nullif(cast({{ n }} as double), 0)
            + cast({{ z }} as double) * cast({{ z }} as double) / 4
        )
    ) / nullif(cast({{ n }} as double) + cast({{ z }} as double) * cast({{ z }} as double), 0)
{%- endmacro %}
