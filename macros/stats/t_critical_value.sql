{#
    t_critical_975(df): the two-sided 95% critical value of Student's t with df degrees of freedom, the 0.975
    quantile (12.706 at df 1, 2.262 at df 9, 2.093 at df 19, 1.960 as df grows). A scalar expression:
    `abs(t) > {{ t_critical_975('n - 1') }}` is a two-sided test at the 5% level of a mean difference over n paired
    samples, where the normal's 1.96 would flag 8.2% of unchanged models at n = 10 (7.6% at 12, 6.5% at 20).

    df is a whole number (n - 1). Whole df from 1 to 100 take the quantile from the table below
    (scipy.stats.t.ppf(0.975, df), 15 decimals); beyond 100, the Cornish-Fisher expansion of t in powers of 1/df
    around the normal's z = 1.959963984540054 (Abramowitz and Stegun 26.7.5, four terms), within 1e-10 of the
    quantile there (and within 1e-5 from df 10 up: a df between whole numbers, which takes it too, is close only
    from 10 up). Plain arithmetic and a case expression: portable, no seed to join. NULL when
    df is NULL or below 1 (no spread to estimate from fewer than two samples).
#}
{% macro t_critical_975(df) -%}
{%- set quantiles = [
    12.706204736174694, 4.302652729749462, 3.182446305283708, 2.776445105197793, 2.570581835636315,
    2.446911851144979, 2.364624251592784, 2.306004135204166, 2.262157162798205, 2.228138851986274, 2.200985160091639,
    2.178812829667228, 2.160368656462791, 2.144786687917804, 2.131449545559776, 2.119905299221255, 2.109815577833316,
    2.100922040241038, 2.093024054408309, 2.085963447265864, 2.079613844727680, 2.073873067904025, 2.068657610419049,
    2.063898561628025, 2.059538552753297, 2.055529438642874, 2.051830516480285, 2.048407141795245, 2.045229642132703,
    2.042272456301238, 2.039513446396408, 2.036933343460102, 2.034515297449338, 2.032244509317719, 2.030107928250343,
    2.028094000980450, 2.026192463029109, 2.024394163911969, 2.022690920036761, 2.021075390306273, 2.019540970441376,
    2.018081702818444, 2.016692199227824, 2.015367574443764, 2.014103388880846, 2.012895598919429, 2.011740513729765,
    2.010634757624232, 2.009575237129239, 2.008559112100761, 2.007583770315836, 2.006646805061688, 2.005745995317869,
    2.004879288188056, 2.004044783289145, 2.003240718847872, 2.002465459291007, 2.001717484145236, 2.000995378088267,
    2.000297822014260, 1.999623584994939, 1.998971517033379, 1.998340542520741, 1.997729654317693, 1.997137908392004,
    1.996564418952312, 1.996008354025296, 1.995468931429843, 1.994945415107237, 1.994437111771186, 1.993943367845626,
    1.993463566661872, 1.992997125889855, 1.992543495180932, 1.992102154002242, 1.991672609644664, 1.991254395388385,
    1.990847068811691, 1.990450210230128, 1.990063421254446, 1.989686323456903, 1.989318557136572, 1.988959780175162,
    1.988609666975708, 1.988267907477222, 1.987934206239020, 1.987608281589071, 1.987289864831169, 1.986978699506281,
    1.986674540703768, 1.986377154418618, 1.986086316951130, 1.985801814345823, 1.985523441866604, 1.985251003505498,
    1.984984311522457, 1.984723186013984, 1.984467454508481, 1.984216951586417, 1.983971518523552
] -%}
{%- set z = 1.959963984540054 -%}
{#- A&S 26.7.5: t = z + g1/v + g2/v^2 + g3/v^3 + g4/v^4, each g a polynomial in z. -#}
{%- set g1 = (z ** 3 + z) / 4 -%}
{%- set g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96 -%}
{%- set g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384 -%}
{%- set g4 = (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z) / 92160 -%}
(case
    when ({{ df }}) < 1 then null
    {%- for quantile in quantiles %}
    when ({{ df }}) = {{ loop.index }} then cast({{ quantile }} as double)
    {%- endfor %}
    else cast({{ z }} as double) + (cast({{ g1 }} as double) + (cast({{ g2 }} as double) + (cast({{ g3 }} as double)
        + cast({{ g4 }} as double) / cast({{ df }} as double)) / cast({{ df }} as double)) / cast({{ df }} as double))
        / cast({{ df }} as double)
end)
{%- endmacro %}


{#
    t_critical_at_z(df, z): the critical value of Student's t with df degrees of freedom whose two-sided tail is the
    standard normal's beyond z: where |t| > it is as rare on noise as |z| > z would be if the SE were known. At z 4
    (a two-sided tail of 6.33e-5, one in 15,800): 6.999 at df 9, 5.036 at 20, 4.177 at 100, towards 4. A scalar
    expression; df may be fractional (a Welch-Satterthwaite df); z is a number known when the model compiles
    (a dbt var), between 0.5 and 6.

    The tail p = 2 (1 - Phi(z)) is worked out here, at compile time, from the series
    Phi(z) - 1/2 = phi(z) (z + z^3/3 + z^5/(3 5) + ...) (A&S 26.2.11; to about 1e-11 relative at z 4, 5e-8 at 6).
    The quantile is G. W. Hill's approximation (1970, ACM Algorithm 396, "Student's t-quantiles"), its general branch:
    plain arithmetic with sqrt, power and exp, within 2e-4 relative of scipy.stats.t.isf(p / 2, df) for any df
    from 2.25 up, whole or not (5e-4 at 2; its exact forms for df 1 and 2 are left out). NULL when df is NULL or
    below 2.
#}
{% macro t_critical_at_z(df, z) -%}
{%- set z = z | float -%}
{%- if z < 0.5 or z > 6 -%}
    {{ exceptions.raise_compiler_error("t_critical_at_z: z is " ~ z ~ "; it must lie between 0.5 and 6 (the normal "
        ~ "tail beyond 6 is below what the series here computes to a useful precision). Check var drift_alert_z.") }}
{%- endif -%}
{%- set series = namespace(term=z, total=z) -%}
{%- for k in range(1, 300) -%}
    {%- set series.term = series.term * z * z / (2 * k + 1) -%}
    {%- set series.total = series.total + series.term -%}
{%- endfor -%}
{%- set p = 1 - 2 * (2.718281828459045 ** (-z * z / 2)) / (2 * 3.141592653589793) ** 0.5 * series.total -%}
{%- set n = '(cast(' ~ df ~ ' as double))' -%}
{%- set a = '(1.0 / (' ~ n ~ ' - 0.5))' -%}
{%- set b = '(48.0 / (' ~ a ~ ' * ' ~ a ~ '))' -%}
{%- set c = '((((20700.0 * ' ~ a ~ ' / ' ~ b ~ ' - 98.0) * ' ~ a ~ ' - 16.0) * ' ~ a ~ ') + 96.36)' -%}
{%- set d = '(((94.5 / (' ~ b ~ ' + ' ~ c ~ ') - 3.0) / ' ~ b ~ ' + 1.0) * sqrt(' ~ a ~ ' * pi() / 2.0) * '
    ~ n ~ ')' -%}
{%- set y = '(power(' ~ d ~ ' * cast(' ~ p ~ ' as double), 2.0 / ' ~ n ~ '))' -%}
{%- set x = 'cast(' ~ z ~ ' as double)' -%}
{%- set c_small = '(' ~ c ~ ' + case when ' ~ n ~ ' < 5 then 0.3 * (' ~ n ~ ' - 4.5) * (' ~ x ~ ' + 0.6) '
    ~ 'else 0.0 end)' -%}
{%- set c_tail = '(((((0.05 * ' ~ d ~ ' * ' ~ x ~ ' - 5.0) * ' ~ x ~ ' - 7.0) * ' ~ x ~ ' - 2.0) * ' ~ x ~ ') + ' ~ b
    ~ ' + ' ~ c_small ~ ')' -%}
{%- set x2 = '(' ~ x ~ ' * ' ~ x ~ ')' -%}
{%- set y_tail = '((((((0.4 * ' ~ x2 ~ ' + 6.3) * ' ~ x2 ~ ' + 36.0) * ' ~ x2 ~ ' + 94.5) / ' ~ c_tail ~ ' - ' ~ x2
    ~ ' - 3.0) / ' ~ b ~ ' + 1.0) * ' ~ x ~ ')' -%}
(case
    when ({{ df }}) is null or ({{ df }}) < 2 then cast(null as double)
    when {{ y }} > 0.05 + {{ a }}
        then sqrt({{ n }} * (exp({{ a }} * {{ y_tail }} * {{ y_tail }}) - 1.0))
    else sqrt({{ n }} * (
        ((1.0 / ((({{ n }} + 6.0) / ({{ n }} * {{ y }}) - 0.089 * {{ d }} - 0.822) * ({{ n }} + 2.0) * 3.0)
            + 0.5 / ({{ n }} + 4.0)) * {{ y }} - 1.0) * ({{ n }} + 1.0) / ({{ n }} + 2.0) + 1.0 / {{ y }}))
end)
{%- endmacro %}
