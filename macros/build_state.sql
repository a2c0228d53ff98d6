{#
    record_build_state(results): the on-run-end hook. When `evalhouse build` passes the project's fingerprint
    (var project_fingerprint) and every node of the run passed, record it in main.evalhouse_build_state:
    the next `evalhouse build` compares it with the project's and rebuilds in full if they differ, since
    incremental models only read what is new. A failed run records nothing, so the next build decides again.
#}
{% macro record_build_state(results) -%}
    {%- set fingerprint = var('project_fingerprint', none) -%}
    {%- if execute and fingerprint is not none -%}
        {%- set failed = results | selectattr('status', 'in', ['error', 'fail', 'runtime error', 'skipped']) | list -%}
        {%- if failed | length == 0 -%}
            create or replace table main.evalhouse_build_state as
            select {{ stats_literal(fingerprint) }} as fingerprint, {{ run_started_timestamp() }} as built_at
        {%- endif -%}
    {%- endif -%}
{%- endmacro %}


{# When this dbt invocation started, as a TIMESTAMP literal (UTC). #}
{% macro run_started_timestamp() -%}
    cast('{{ run_started_at.strftime("%Y-%m-%d %H:%M:%S.%f") }}' as timestamp)
{%- endmacro %}
