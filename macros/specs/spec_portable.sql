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

{# Text that sorts versions as semver orders them (semver.org, clause 11), so the highest sorts last:
   a leading v or V is dropped; up to four dot-separated numbers compare numerically (missing ones count as 0, so
   "1.10" after "1.9", "2" after "1.10.3"); a pre-release sorts before its release ("2.0.0-rc1" before "2.0.0"), and
   pre-releases compare identifier by identifier (the first four): numbers numerically and before words, words as
   text, a longer list after its prefix ("rc.10" after "rc.2", "alpha" before "alpha.1"); build metadata after "+" is
   ignored. Parts are padded to fixed widths (20 characters) so a plain text comparison does all of this.
   A version that is not of this shape ("draft", "2.0.0rc1") sorts before every one that is, so it never becomes
   current over a readable version; among themselves such versions sort as text, and NULL sorts first.
   The version as written breaks ties (1.0 and 1.0.0). #}
{% macro version_order_key(version) -%}
    {%- set shape = "^[vV]?[0-9]+([.][0-9]+){0,3}(-[0-9A-Za-z.-]+)?([+][0-9A-Za-z.-]+)?$" -%}
    (
        case
            when {{ version }} is null then '0'
            when regexp_extract({{ version }}, '{{ shape }}', 0) = '' then '1|' || {{ version }}
            else '2|'
                {%- for n in range(4) %}
                || {{ version_number_key(version, n) }}
                {%- endfor %}
                {#- No pre-release: '1' sorts the release after each of its pre-releases ('0'). #}
                || case when regexp_extract({{ version }}, '^[^+]*-', 0) <> '' then '0' else '1' end
                {%- for n in range(4) %}
                || {{ prerelease_identifier_key(version, n) }}
                {%- endfor %}
                || '|' || {{ version }}
        end
    )
{%- endmacro %}

{# The n-th (0-based) number of a version's core, zero-padded to 20 digits; '0' when the core has fewer. #}
{% macro version_number_key(version, n) -%}
    lpad(coalesce(nullif(regexp_extract({{ version }}, '^[vV]?{{ "[0-9]+[.]" * n }}([0-9]+)', 1), ''), '0'), 20, '0')
{%- endmacro %}

{# The n-th (0-based) dot-separated identifier of a version's pre-release as a 21-character key: absent '0' (a
   shorter list sorts first), numeric '1' and the number zero-padded, a word '2' and the word space-padded. #}
{% macro prerelease_identifier_key(version, n) -%}
    {%- set identifier -%}
        regexp_extract({{ version }}, '^[^+-]*-{{ "[^.+]*[.]" * n }}([^.+]*)', 1)
    {%- endset -%}
    rpad(case
        when {{ identifier }} = '' then '0'
        when regexp_extract({{ identifier }}, '^[0-9]+$', 0) <> '' then '1' || lpad({{ identifier }}, 20, '0')
        else '2' || rpad({{ identifier }}, 20, ' ')
    end, 21, ' ')
{%- endmacro %}
