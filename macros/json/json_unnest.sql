{# Unnest JSON into rows, as a join clause to put after FROM <relation>. DuckDB uses a lateral subquery over
   unnest(); Spark uses LATERAL VIEW explode() with from_json(). A NULL or empty container yields no row. #}

{# One row per key of a JSON object: columns <prefix>_key (text) and <prefix>_value (JSON text). #}
{% macro json_object_entries(column, prefix) -%}
    {{ return(adapter.dispatch('json_object_entries', 'evalhouse')(column, prefix)) }}
{%- endmacro %}

{% macro default__json_object_entries(column, prefix) -%}
    cross join lateral (
        select
            entry.key as {{ prefix }}_key,
            cast(entry.value as varchar) as {{ prefix }}_value
        from unnest(map_entries(cast(cast({{ column }} as json) as map(varchar, json)))) as entries(entry)
    ) as {{ prefix }}_entries
{%- endmacro %}

{% macro spark__json_object_entries(column, prefix) -%}
    lateral view explode(from_json({{ column }}, 'map<string,string>')) {{ prefix }}_entries
        as {{ prefix }}_key, {{ prefix }}_value
{%- endmacro %}

{# One row per element of a JSON array: <prefix>_element (JSON text) and <prefix>_index (0-based, as in JSONPath). #}
{% macro json_array_elements(column, prefix) -%}
    {{ return(adapter.dispatch('json_array_elements', 'evalhouse')(column, prefix)) }}
{%- endmacro %}

{% macro default__json_array_elements(column, prefix) -%}
    cross join lateral (
        select
            cast(element as varchar) as {{ prefix }}_element,
            position - 1 as {{ prefix }}_index
        from unnest(cast(cast({{ column }} as json) as json[])) with ordinality as elements(element, position)
    ) as {{ prefix }}_elements
{%- endmacro %}

{% macro spark__json_array_elements(column, prefix) -%}
    lateral view posexplode(from_json({{ column }}, 'array<string>')) {{ prefix }}_elements
        as {{ prefix }}_index, {{ prefix }}_element
{%- endmacro %}
