{# Timestamps arrive as ISO 8601 text with an offset or 'Z', or as Unix epoch seconds in text. Both become
   UTC timestamps without a time zone; the offset is applied, never dropped. #}

{% macro iso_to_utc(expr) -%}
    {{ return(adapter.dispatch('iso_to_utc', 'evalhouse')(expr)) }}
{%- endmacro %}

{% macro default__iso_to_utc(expr) -%}
    timezone('UTC', try_cast({{ expr }} as timestamptz))
{%- endmacro %}

{% macro spark__iso_to_utc(expr) -%}
    to_utc_timestamp(to_timestamp({{ expr }}), 'UTC')
{%- endmacro %}

{% macro epoch_to_utc(expr) -%}
    {{ return(adapter.dispatch('epoch_to_utc', 'evalhouse')(expr)) }}
{%- endmacro %}

{% macro default__epoch_to_utc(expr) -%}
    timezone('UTC', to_timestamp(try_cast({{ expr }} as double)))
{%- endmacro %}

{% macro spark__epoch_to_utc(expr) -%}
    timestamp_seconds(cast({{ expr }} as double))
{%- endmacro %}

{# The Monday that starts the ISO week of a timestamp: every weekly mart's grain. #}
{% macro week_start(expr) -%}
    {{ return(adapter.dispatch('week_start', 'evalhouse')(expr)) }}
{%- endmacro %}

{% macro default__week_start(expr) -%}
    cast(date_trunc('week', {{ expr }}) as date)
{%- endmacro %}

{% macro spark__week_start(expr) -%}
    cast(date_trunc('week', {{ expr }}) as date)
{%- endmacro %}
