{# Portable JSON access for staging. DuckDB and Spark spell it differently; models call these macros only. #}

{# The text of a scalar at a JSONPath ('$.a.b', '$.a[0]'), NULL when absent or JSON null. #}
{% macro json_text(column, path) -%}
    {{ return(adapter.dispatch('json_text', 'evalhouse')(column, path)) }}
{%- endmacro %}

{% macro default__json_text(column, path) -%}
    json_extract_string({{ column }}, '{{ path }}')
{%- endmacro %}

{% macro spark__json_text(column, path) -%}
    get_json_object({{ column }}, '{{ path }}')
{%- endmacro %}

{# A field that is either one value or a list of values (Every Eval Ever's reference and output, a string in 0.2.0
   and a list from 0.2.1), as text: the value, or the list's first element; NULL for an empty list, never "[]". #}
{% macro json_value_or_first(column) -%}
    {{ return(adapter.dispatch('json_value_or_first', 'evalhouse')(column)) }}
{%- endmacro %}

{% macro default__json_value_or_first(column) -%}
    case when json_type({{ column }}) = 'ARRAY' then {{ json_text(column, '$[0]') }}
        else {{ json_text(column, '$') }} end
{%- endmacro %}

{# Spark keeps JSON as text: a list's text starts with "[" (a string's with a quote). #}
{% macro spark__json_value_or_first(column) -%}
    case when left(ltrim({{ column }}), 1) = '[' then {{ json_text(column, '$[0]') }}
        else {{ json_text(column, '$') }} end
{%- endmacro %}

{# The JSON text of a value (object, array or scalar) at a JSONPath, NULL when absent. #}
{% macro json_fragment(column, path) -%}
    {{ return(adapter.dispatch('json_fragment', 'evalhouse')(column, path)) }}
{%- endmacro %}

{% macro default__json_fragment(column, path) -%}
    nullif(cast(json_extract({{ column }}, '{{ path }}') as varchar), 'null')
{%- endmacro %}

{% macro spark__json_fragment(column, path) -%}
    get_json_object({{ column }}, '{{ path }}')
{%- endmacro %}

{# The keys of a JSON object as an array of strings (empty when not an object). #}
{% macro json_object_keys(column) -%}
    {{ return(adapter.dispatch('json_object_keys', 'evalhouse')(column)) }}
{%- endmacro %}

{% macro default__json_object_keys(column) -%}
    coalesce(json_keys({{ column }}), [])
{%- endmacro %}

{% macro spark__json_object_keys(column) -%}
    coalesce(json_object_keys({{ column }}), array())
{%- endmacro %}
