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
