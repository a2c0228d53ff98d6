{# Engine-specific pieces the spec models need (models/intermediate/specs/). DuckDB is the default; Spark's
   spelling sits beside it. Models call these, never the engine's own function names. #}

{# True when `text` contains a match of the regular expression `pattern` (a search, not a full match), NULL when
   either is NULL. Patterns run on the engine's regex library (RE2 in DuckDB, java.util.regex in Spark): write
   them in the subset both share; a leading (?i) makes them case-insensitive in both. DuckDB gives NULL for a
   pattern RE2 cannot compile; Spark raises. #}
{% macro regex_search(text, pattern) -%}
    {{ return(adapter.dispatch('regex_search', 'evalhouse')(text, pattern)) }}
{%- endmacro %}

{% macro default__regex_search(text, pattern) -%}
    {#- try(): a pattern Python accepted at ingest but RE2 cannot compile (a lookahead) gives NULL, not a failed build. #}
    try(regexp_matches({{ text }}, {{ pattern }}))
{%- endmacro %}

{% macro spark__regex_search(text, pattern) -%}
    ({{ text }} rlike {{ pattern }})
{%- endmacro %}

{# `text` without leading and trailing whitespace of any kind (spaces, tabs, newlines), as Python's str.strip(). #}
{% macro strip_whitespace(text) -%}
    {{ return(adapter.dispatch('strip_whitespace', 'evalhouse')(text)) }}
{%- endmacro %}

{% macro default__strip_whitespace(text) -%}
    regexp_replace({{ text }}, '^\s+|\s+$', '', 'g')
{%- endmacro %}

{% macro spark__strip_whitespace(text) -%}
    regexp_replace({{ text }}, '^\\s+|\\s+$', '')
{%- endmacro %}

{# A join clause to put after FROM <relation>: one row per element of a JSON array of strings (JSON text), with
   <prefix>_text (the string, unquoted) and <prefix>_index (0-based). A NULL or empty array yields no row. #}
{% macro json_string_elements(column, prefix) -%}
    {{ return(adapter.dispatch('json_string_elements', 'evalhouse')(column, prefix)) }}
{%- endmacro %}

{% macro default__json_string_elements(column, prefix) -%}
    cross join lateral (
        select
            element as {{ prefix }}_text,
            position - 1 as {{ prefix }}_index
        from unnest(json_extract_string({{ column }}, '$[*]')) with ordinality as elements(element, position)
    ) as {{ prefix }}_elements
{%- endmacro %}

{% macro spark__json_string_elements(column, prefix) -%}
    lateral view posexplode(from_json({{ column }}, 'array<string>')) {{ prefix }}_elements
        as {{ prefix }}_index, {{ prefix }}_text
{%- endmacro %}

{# Aggregate: the p-quantile (0 <= p <= 1, a constant) of expr over the group, interpolated linearly between the
   two closest values (numpy's default, "type 7"); NULLs ignored, NULL for an empty group. #}
{% macro percentile_linear(expr, p) -%}
    {{ return(adapter.dispatch('percentile_linear', 'evalhouse')(expr, p)) }}
{%- endmacro %}

{% macro default__percentile_linear(expr, p) -%}
    quantile_cont({{ expr }}, {{ p }})
{%- endmacro %}

{% macro spark__percentile_linear(expr, p) -%}
    percentile({{ expr }}, {{ p }})
{%- endmacro %}

{# Text that sorts versions as people number them: "1.10" after "1.9", "2" after "1.10.3". The first three
   dot-separated numbers are zero-padded; the version as written breaks ties (and orders non-numeric versions). #}
{% macro version_order_key(version) -%}
    (
        lpad(coalesce(nullif(regexp_extract({{ version }}, '^([0-9]+)', 1), ''), '0'), 12, '0')
        || '.' || lpad(coalesce(nullif(regexp_extract({{ version }}, '^[0-9]+[.]([0-9]+)', 1), ''), '0'), 12, '0')
        || '.' || lpad(
            coalesce(nullif(regexp_extract({{ version }}, '^[0-9]+[.][0-9]+[.]([0-9]+)', 1), ''), '0'), 12, '0'
        )
        || '|' || coalesce({{ version }}, '')
    )
{%- endmacro %}
