{#
    integer_series(start, stop): a set-returning select-list expression that turns each row into one row per
    integer i in [start, stop], inclusive: `select n_trials, {{ integer_series('1', 'n_trials') }} as i from t`.
    The pass@k products use it to enumerate their factors.

    Engine-specific, hence dispatched: DuckDB `unnest(generate_series(a, b))`, Spark `explode(sequence(a, b))`.
    Edge case: the caller must keep only rows with start <= stop. DuckDB yields no row for an empty range, but
    Spark's sequence(5, 3) counts down ([5, 4, 3]), so an unfiltered empty range would silently differ.
#}
{% macro integer_series(start, stop) -%}
    {{ return(adapter.dispatch('integer_series', 'evalhouse')(start, stop)) }}
{%- endmacro %}

{% macro default__integer_series(start, stop) -%}
    unnest(generate_series(cast({{ start }} as bigint), cast({{ stop }} as bigint)))
{%- endmacro %}

{% macro spark__integer_series(start, stop) -%}
    explode(sequence(cast({{ start }} as bigint), cast({{ stop }} as bigint)))
{%- endmacro %}
