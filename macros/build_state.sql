{#
    record_build_state(results): the on-run-end hook. When `evalhouse build` passes the project's fingerprint
    (var project_fingerprint) and every node of the run passed, record it in main.evalhouse_build_state:
    the next `evalhouse build` compares it with the project's and rebuilds in full if they differ, since
    incremental models only read what is new. A failed run records nothing, so the next build decides again.
#}
{% macro record_build_state(results) -%}
    {%- if build_succeeded(results) -%}
        create or replace table main.evalhouse_build_state as
        select {{ stats_literal(var('project_fingerprint')) }} as fingerprint, {{ run_started_timestamp() }} as built_at
    {%- endif -%}
{%- endmacro %}


{#
    record_build_sources(results): the second on-run-end hook, under the same condition. How many rows each source
    table held when this build read it, in main.evalhouse_build_sources: the raw tables only ever grow (the
    ingester appends; nothing updates or deletes), so the next `evalhouse build` knows which sources received
    rows since, and builds only the models that depend on them (evalhouse/build.py, plan_build).
#}
{% macro record_build_sources(results) -%}
    {%- if build_succeeded(results) -%}
        create or replace table main.evalhouse_build_sources as
        {% for source in graph.sources.values() | sort(attribute='unique_id') -%}
        select
            {{ stats_literal(source.source_name) }} as source_name,
            {{ stats_literal(source.name) }} as table_name,
            {{ stats_literal(source.schema) }} as table_schema,
            {{ stats_literal(source.identifier) }} as table_identifier,
            count(*) as n_rows
        from {{ source.schema }}.{{ source.identifier }}
        {% if not loop.last %}union all{% endif %}
        {% endfor %}
    {%- endif -%}
{%- endmacro %}


{# Whether the run passed every node and was started by `evalhouse build` (which passes the fingerprint). #}
{% macro build_succeeded(results) -%}
    {%- if not execute or var('project_fingerprint', none) is none -%}
        {{ return(false) }}
    {%- endif -%}
    {%- set failed = results | selectattr('status', 'in', ['error', 'fail', 'runtime error', 'skipped']) | list -%}
    {{ return(failed | length == 0) }}
{%- endmacro %}


{# When this dbt invocation started, as a TIMESTAMP literal (UTC). #}
{% macro run_started_timestamp() -%}
    cast('{{ run_started_at.strftime("%Y-%m-%d %H:%M:%S.%f") }}' as timestamp)
{%- endmacro %}


{#
    unread_batches(relation): the filter an incremental model puts on its input: rows of ingest batches it has not
    read yet. A semi-join on the batches that are new, which DuckDB pushes into the scan of `relation`; the
    anti-join `batch_id not in (select batch_id from this)` read every row's columns first (0.8 s instead of 0.08 s
    on the benchmark's raw trials, for each model, in every build). Batch ids are never NULL.
#}
{% macro unread_batches(relation) -%}
    batch_id in (select batch_id from {{ relation }} except select batch_id from {{ this }})
{%- endmacro %}
