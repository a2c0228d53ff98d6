{# Parse a JSON text column once into a struct, so a staging model reads twenty fields with one parse instead of
   twenty (json_extract parses the whole document on every call). `spec` maps each field to a type, or to a
   nested spec: varchar, double, bigint, integer, boolean, or json (the value's JSON text, whatever its type).
   Fields are read with dot access: parsed.input.raw. A value that does not convert is NULL. #}

{% macro json_to_struct(column, spec) -%}
    {{ return(adapter.dispatch('json_to_struct', 'evalhouse')(column, spec)) }}
{%- endmacro %}

{% macro default__json_to_struct(column, spec) -%}
    json_transform({{ column }}, '{{ _duckdb_json_structure(spec) }}')
{%- endmacro %}

{% macro spark__json_to_struct(column, spec) -%}
    from_json({{ column }}, '{{ _spark_ddl(spec) }}')
{%- endmacro %}

{% macro _duckdb_json_structure(spec) -%}
    {%- set parts = [] -%}
    {%- for field, kind in spec.items() -%}
        {%- if kind is mapping -%}
            {%- do parts.append('"' ~ field ~ '": ' ~ _duckdb_json_structure(kind)) -%}
        {%- else -%}
            {%- do parts.append('"' ~ field ~ '": "' ~ kind | upper ~ '"') -%}
        {%- endif -%}
    {%- endfor -%}
    {{ '{' ~ parts | join(', ') ~ '}' }}
{%- endmacro %}

{# Spark's schema DDL: `a` STRING, `b` STRUCT<`c`: DOUBLE> (nested fields take a colon). #}
{% macro _spark_ddl(spec, nested=false) -%}
    {%- set types = {'varchar': 'STRING', 'json': 'STRING', 'double': 'DOUBLE', 'bigint': 'BIGINT',
                     'integer': 'INT', 'boolean': 'BOOLEAN'} -%}
    {%- set separator = ': ' if nested else ' ' -%}
    {%- set parts = [] -%}
    {%- for field, kind in spec.items() -%}
        {%- if kind is mapping -%}
            {%- do parts.append('`' ~ field ~ '`' ~ separator ~ 'STRUCT<' ~ _spark_ddl(kind, true) ~ '>') -%}
        {%- else -%}
            {%- do parts.append('`' ~ field ~ '`' ~ separator ~ types[kind]) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ parts | join(', ') }}
{%- endmacro %}
