{#
    safe_divide(numerator, denominator): numerator / denominator as a double, NULL when the denominator is 0 or
    NULL. Casting both sides first avoids integer division on engines that truncate; nullif avoids DuckDB 2.0's
    inf / nan for x / 0 (docs/ARCHITECTURE.md rule 6: undefined is NULL).
#}
{% macro safe_divide(numerator, denominator) -%}
    (cast({{ numerator }} as double) / nullif(cast({{ denominator }} as double), 0))
{%- endmacro %}
