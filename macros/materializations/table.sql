{#
    Why this project has its own table materialization on DuckDB: it builds each table in place, the old table
    dropped and the new one created under its own name, in the model's transaction.

    dbt-duckdb's creates the new table under a temporary name and swaps it in. It first queries for the old
    table's indexes and for the foreign keys that point at it, renames twice, commits, then drops the old table:
    five statements more per table than here, each logged and run through dbt's Python. That buys nothing here:
      - DuckDB's DDL is transactional. A model that fails rolls back, and the old table is back.
      - evalhouse builds a private working copy that no reader opens (evalhouse/publish.py). A reader never
        sees a table in mid-build.
      - The project declares neither foreign keys nor indexes. Its keys are primary keys in the contracts,
        created with the table.
    On the benchmark's drop this took 134 of the build's 584 statements away and about 0.7 s of its 10 s
    (docs/performance.md, "Tables built in place").

    A model that was a view is dropped the same way. Tables left under the swap's names (`__dbt_tmp`,
    `__dbt_backup`) by a build that the old materialization ran and that was killed are dropped as well; dbt's
    cache of relations knows them, so this costs no query. The contract is enforced by create_table_as, as
    before: DESCRIBE checks the columns, the table is created with its constraints, then the rows are inserted.
#}
{% materialization table, adapter="duckdb", supported_languages=['sql'] %}
  {%- set existing_relation = load_cached_relation(this) -%}
  {%- set target_relation = this.incorporate(type='table') -%}
  {%- set grant_config = config.get('grants') -%}

  {{ drop_relation_if_exists(load_cached_relation(make_intermediate_relation(target_relation))) }}
  {{ drop_relation_if_exists(load_cached_relation(make_backup_relation(target_relation, 'table'))) }}

  {{ run_hooks(pre_hooks, inside_transaction=False) }}
  {{ run_hooks(pre_hooks, inside_transaction=True) }}

  {#- The drop and the create share one transaction. If the create fails, dbt rolls back and the old table
      stays. #}
  {% do adapter.ensure_transaction() %}
  {% if existing_relation is not none %}
    {% do adapter.drop_relation(existing_relation) %}
  {% endif %}

  {% call statement('main') -%}
    {{ create_table_as(False, target_relation, compiled_code) }}
  {%- endcall %}

  {{ run_hooks(post_hooks, inside_transaction=True) }}
  {% do apply_grants(target_relation, grant_config, should_revoke=should_revoke(existing_relation, full_refresh_mode=True)) %}
  {% do persist_docs(target_relation, model) %}

  {{ adapter.commit() }}

  {{ run_hooks(post_hooks, inside_transaction=False) }}

  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
