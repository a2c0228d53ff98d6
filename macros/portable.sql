{# Small pieces of SQL that DuckDB and Spark spell differently. Models call these, never the engine's own name. #}

{# Concatenate the values of a text column in a group, sorted, separated by `separator` (a SQL string literal). #}
{% macro sorted_string_agg(expr, separator) -%}
    {{ return(adapter.dispatch('sorted_string_agg', 'evalhouse')(expr, separator)) }}
{%- endmacro %}

{% macro default__sorted_string_agg(expr, separator) -%}
    string_agg({{ expr }}, {{ separator }} order by {{ expr }})
{%- endmacro %}

{% macro spark__sorted_string_agg(expr, separator) -%}
    concat_ws({{ separator }}, array_sort(collect_list({{ expr }})))
{%- endmacro %}

{# Join the strings of a JSON array (JSON text) with `separator`; NULL or [] gives ''. #}
{% macro json_string_array_join(column, separator) -%}
    {{ return(adapter.dispatch('json_string_array_join', 'evalhouse')(column, separator)) }}
{%- endmacro %}

{% macro default__json_string_array_join(column, separator) -%}
    coalesce(array_to_string(cast(cast({{ column }} as json) as varchar[]), {{ separator }}), '')
{%- endmacro %}

{% macro spark__json_string_array_join(column, separator) -%}
    coalesce(array_join(from_json({{ column }}, 'array<string>'), {{ separator }}), '')
{%- endmacro %}

{# An aggregate: the value of `value` on the row of the group whose `ordering` is greatest, the expressions of the
   list `ordering` compared in turn (the first, then the second on a tie, ...). A NULL in a sort key compares as the
   engine orders NULLs, so callers that must rank NULLs put `x is not null` before `x`. #}
{% macro last_by(value, ordering) -%}
    {{ return(adapter.dispatch('last_by', 'evalhouse')(value, ordering)) }}
{%- endmacro %}

{% macro default__last_by(value, ordering) -%}
    arg_max({{ value }}, ({{ ordering | join(', ') }}))
{%- endmacro %}

{% macro spark__last_by(value, ordering) -%}
    max_by({{ value }}, struct({{ ordering | join(', ') }}))
{%- endmacro %}

{# An aggregate: the value of `value` on the row of the group whose `ordering` is least (last_by's mirror). #}
{% macro first_by(value, ordering) -%}
    {{ return(adapter.dispatch('first_by', 'evalhouse')(value, ordering)) }}
{%- endmacro %}

{% macro default__first_by(value, ordering) -%}
    arg_min({{ value }}, ({{ ordering | join(', ') }}))
{%- endmacro %}

{% macro spark__first_by(value, ordering) -%}
    min_by({{ value }}, struct({{ ordering | join(', ') }}))
{%- endmacro %}

{# Whole days from one timestamp to a later one. #}
{% macro days_between(start, stop) -%}
    {{ return(adapter.dispatch('days_between', 'evalhouse')(start, stop)) }}
{%- endmacro %}

{% macro default__days_between(start, stop) -%}
    date_diff('day', {{ start }}, {{ stop }})
{%- endmacro %}

{% macro spark__days_between(start, stop) -%}
    datediff({{ stop }}, {{ start }})
{%- endmacro %}

{# The build's time, UTC, without a time zone: what "as of" means in a mart. #}
{% macro build_timestamp() -%}
    {{ return(adapter.dispatch('build_timestamp', 'evalhouse')()) }}
{%- endmacro %}

{% macro default__build_timestamp() -%}
    cast(timezone('UTC', current_timestamp) as timestamp)
{%- endmacro %}

{% macro spark__build_timestamp() -%}
    to_utc_timestamp(current_timestamp(), current_timezone())
{%- endmacro %}
