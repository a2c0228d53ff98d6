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


{#
    record_build_batches(results): the third on-run-end hook, under the same condition. The ingest batches this
    build read, in main.evalhouse_build_batches: every batch raw.ingest_files holds (a build reads them all, and no
    ingest runs during a build: one writer at a time). The next build's scoped uniqueness tests check the rows of
    the other batches only (written_since_passed_build).
#}
{% macro record_build_batches(results) -%}
    {%- if build_succeeded(results) -%}
        create or replace table main.evalhouse_build_batches as
        select distinct batch_id from {{ ingest_files_table() }} where batch_id is not null
    {%- endif -%}
{%- endmacro %}


{#
    record_build_stamps(results): the fourth on-run-end hook, under the same condition. For each table whose
    uniqueness test is scoped by a stamp column (unique_combination's `stamp`), the highest stamp it held when this
    build passed, in main.evalhouse_build_stamps; the next build's test checks the rows stamped above it.
#}
{% macro record_build_stamps(results) -%}
    {%- if build_succeeded(results) -%}
        {%- set stamped = [] -%}
        {%- for node in graph.nodes.values() -%}
            {%- set kwargs = (node.test_metadata or {}).get('kwargs', {}) if node.resource_type == 'test' else {} -%}
            {%- if kwargs.get('stamp') -%}
                {%- set table = graph.nodes[node.attached_node] -%}
                {%- set entry = (table.schema ~ '.' ~ table.alias, kwargs.get('stamp')) -%}
                {%- if entry not in stamped %}{% do stamped.append(entry) %}{% endif -%}
            {%- endif -%}
        {%- endfor %}
        create or replace table main.evalhouse_build_stamps as
        {% for relation_name, column in stamped | sort -%}
        select
            {{ stats_literal(relation_name) }} as relation_name,
            {{ stats_literal(column) }} as stamp_column,
            cast(max({{ column }}) as bigint) as highest
        from {{ relation_name }}
        union all
        {% endfor -%}
        select cast(null as varchar) as relation_name, cast(null as varchar) as stamp_column, cast(null as bigint) as highest
        where false  {#- the table's shape when no test is scoped by a stamp #}
    {%- endif -%}
{%- endmacro %}


{#
    written_since_passed_build(model, new_batches, stamp, alias): a predicate on `alias`, a row of `model`, true for
    the rows written since the last build that passed: rows of an ingest batch that build had not read (any of the
    columns in new_batches), or rows stamped above the highest stamp the table held then (stamp). None, meaning
    every row, in a full refresh, when no passed build was recorded (the first build, or a run not started by
    `evalhouse build`), or when the table holds no stamp as high as the recorded one (it was rebuilt from nothing).
    A failed build records nothing, so what it wrote is checked again by the next one.
#}
{% macro written_since_passed_build(model, new_batches=none, stamp=none, alias='written') -%}
    {%- if not execute or flags.FULL_REFRESH or (new_batches is none and stamp is none) -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set record = 'evalhouse_build_batches' if new_batches is not none else 'evalhouse_build_stamps' -%}
    {%- if adapter.get_relation(database=target.database, schema='main', identifier=record) is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- if new_batches is not none -%}
        {#- A semi-join on the few new batches, which DuckDB pushes into the scan (`not in` the recorded ones took
            twice as long on the benchmark's 3.9 million ratings). #}
        {%- set new -%}
            select batch_id from {{ ingest_files_table() }} except select batch_id from main.evalhouse_build_batches
        {%- endset -%}
        {%- set conditions = [] -%}
        {%- for column in new_batches -%}
            {%- do conditions.append(alias ~ '.' ~ column ~ ' in (' ~ new ~ ')') -%}
        {%- endfor -%}
        {{ return('(' ~ conditions | join(' or ') ~ ')') }}
    {%- endif -%}
    {%- set highest -%}
        select marks.highest from main.evalhouse_build_stamps as marks
        where marks.relation_name = {{ stats_literal(model.schema ~ '.' ~ model.identifier) }}
            and marks.stamp_column = {{ stats_literal(stamp) }}
            and marks.highest <= (select max({{ stamp }}) from {{ model }})
    {%- endset -%}
    {{ return('coalesce(' ~ alias ~ '.' ~ stamp ~ ' > (' ~ highest ~ '), true)') }}
{%- endmacro %}


{#
    next_build_stamp(column): the stamp an incremental model writes on the rows of this build, numbering the builds
    that wrote them: one more than the highest `column` of the table as it stands (in incremental builds and full
    refreshes alike, so a full refresh numbers on), 1 when there is no table yet or it has no such column.
    int_agreement_units recounts the items int_agreement_ratings stamped above what it has read; the scoped grain
    tests check the rows stamped above the last passed build's highest (written_since_passed_build).
#}
{% macro next_build_stamp(column) -%}
    {%- set stamped = none -%}
    {%- if execute -%}
        {%- set existing = adapter.get_relation(database=this.database, schema=this.schema, identifier=this.identifier) -%}
        {%- if existing is not none and column in (adapter.get_columns_in_relation(existing)
                                                    | map(attribute='name') | map('lower') | list) -%}
            {%- set stamped = existing -%}
        {%- endif -%}
    {%- endif -%}
    {%- if stamped is not none -%}
        cast((select coalesce(max({{ column }}), 0) + 1 from {{ stamped }}) as integer)
    {%- else -%}
        cast(1 as integer)
    {%- endif -%}
{%- endmacro %}


{# raw.ingest_files, where the ingester lists every file it loaded with its batch: named from the graph rather than
   through source(), which would make every test that reads it a test of that source too. #}
{% macro ingest_files_table() -%}
    {%- set files = graph.sources.values() | selectattr('source_name', 'equalto', 'ingest')
                                           | selectattr('name', 'equalto', 'ingest_files') | first -%}
    {{ files.schema }}.{{ files.identifier }}
{%- endmacro %}


{# Whether the run passed every node and was started by `evalhouse build` (which passes the fingerprint): the
   condition of every on-run-end hook. #}
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
    on the benchmark's raw trials, for each model, in every build). Each side is made distinct before the EXCEPT
    (which DuckDB otherwise runs as an anti-join of every row against every row: 0.2 to 0.45 s against 0.06 to
    0.09 s for int_ratings_unioned's select on the benchmark's 3.9 million ratings). Batch ids are never NULL.
#}
{% macro unread_batches(relation) -%}
    batch_id in {{ unread_batch_ids(relation) }}
{%- endmacro %}


{#
    unread_batch_ids(relation): the ingest batches in `relation` that this model has not read yet, one row each
    (batch_id), as a parenthesised subquery to join on. An input filtered on other columns first is joined to it
    rather than filtered with unread_batches: DuckDB's estimate of the filtered input falls below its estimate of
    the new batches, and it built the semi-join's hash table on every row of the input. int_agreement_ratings'
    select on the benchmark's 3.9 million ratings took 0.26 s filtered, 0.06 s joined (the statement in the
    drop's build: 0.6 to 1.2 s, then 0.09 s).
#}
{% macro unread_batch_ids(relation) -%}
    (select distinct batch_id from {{ relation }} except select distinct batch_id from {{ this }})
{%- endmacro %}
