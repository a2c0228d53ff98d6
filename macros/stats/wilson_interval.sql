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


{#
    wilson_low_from_se / wilson_high_from_se: a 95% interval for a bounded mean whose standard error is known, that
    stays within [min_value, max_value] and agrees with that standard error. Scalar expressions:
    `{{ wilson_low_from_se('accuracy', 'accuracy_se', 'n_samples') }} as ci_low`.

    The mean of per-question scores in [0, 1] (each question's trials averaged first) is not a count of successes
    out of n: its standard error sqrt(var_samp / n) is below the binomial sqrt(p (1 - p) / n) when questions were
    answered several times. The Wilson interval is taken on the effective sample size, the n at which a proportion
    would have this standard error (Korn and Graubard 1998, "Confidence intervals for proportions with small
    expected number of positive counts estimated from survey data"):
        p = (mean - min) / (max - min),   n_eff = p (1 - p) / (se / (max - min))^2 * n / (n - 1)
        bound = min + (max - min) * wilson(p * n_eff, n_eff)
    so its half-width is about z * se * sqrt((n - 1) / n), and it never leaves [min, max]. A metric on another
    bounded scale (1 to 5) is mapped onto [0, 1] and back. The factor n / (n - 1) undoes var_samp's (the binomial
    p (1 - p) / n divides by n): n questions answered once, each right or wrong, get n_eff = n, the plain Wilson
    interval on n that a rate of the same answers gets elsewhere (int_spec_component_scores), not the one on n - 1.
    Without n above 1 the standard error is taken as it is.

    Edge cases: where n_eff is undefined (se 0 or NULL, or the mean at a bound: every value equal) the Wilson
    interval on `n` (the number of observations) stands in; NULL when that is NULL or 0 too, when the mean lies
    outside [min, max] (the declared bounds cannot be right), or when max <= min.
#}
{% macro wilson_low_from_se(mean, se, n, min_value=0, max_value=1, z=1.96) -%}
    {{ stats_wilson_from_se_bound(mean, se, n, min_value, max_value, z, '-') }}
{%- endmacro %}

{% macro wilson_high_from_se(mean, se, n, min_value=0, max_value=1, z=1.96) -%}
    {{ stats_wilson_from_se_bound(mean, se, n, min_value, max_value, z, '+') }}
{%- endmacro %}

{# The shared body: sign is '-' for the lower bound, '+' for the upper. #}
{% macro stats_wilson_from_se_bound(mean, se, n, min_value, max_value, z, sign) -%}
    {%- set m = 'cast(' ~ mean ~ ' as double)' -%}
    {%- set lo = 'cast(' ~ min_value ~ ' as double)' -%}
    {%- set hi = 'cast(' ~ max_value ~ ' as double)' -%}
    {%- set s = 'cast(' ~ se ~ ' as double)' -%}
    {%- set n_eff -%}
        (case
            when {{ s }} > 0 and {{ m }} > {{ lo }} and {{ m }} < {{ hi }}
                then ({{ m }} - {{ lo }}) * ({{ hi }} - {{ m }}) / nullif({{ s }} * {{ s }}, 0)
                    * (case when {{ n }} > 1 then cast({{ n }} as double) / (cast({{ n }} as double) - 1) else 1 end)
            else cast({{ n }} as double)
        end)
    {%- endset -%}
    {%- set successes = '(' ~ m ~ ' - ' ~ lo ~ ') / nullif(' ~ hi ~ ' - ' ~ lo ~ ', 0) * ' ~ n_eff -%}
    case
        when {{ m }} >= {{ lo }} and {{ m }} <= {{ hi }} and {{ hi }} > {{ lo }}
            then {{ lo }} + ({{ hi }} - {{ lo }}) * {{ stats_wilson_bound(successes, n_eff, z, sign) }}
    end
{%- endmacro %}
