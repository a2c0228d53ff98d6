{#
    product_aggregate(expr): the aggregate product of expr over the rows of a group.

    Engine-specific, hence dispatched. DuckDB has product(); Spark SQL has no product aggregate, so it takes
    exp(sum(ln(x))), which is exact to about 1e-13 relative over 10,000 factors but is only defined when every
    factor is > 0. Callers must guarantee that (the pass@k products do: their zero factors are handled as a
    separate case before any product is taken).
    Edge case: over no rows both spellings give NULL, not 1; callers coalesce(..., 1) where an empty product
    is meaningful.
#}
{% macro product_aggregate(expr) -%}
    {{ return(adapter.dispatch('product_aggregate', 'evalhouse')(expr)) }}
{%- endmacro %}

{% macro default__product_aggregate(expr) -%}
    product({{ expr }})
{%- endmacro %}

{% macro spark__product_aggregate(expr) -%}
    exp(sum(ln({{ expr }})))
{%- endmacro %}
