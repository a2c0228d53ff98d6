{#
    duckdb__persist_docs: the table and column comments that persist_docs (dbt_project.yml) writes after each
    model is built, the catalog analysts read. dbt's own asks DuckDB for the relation's columns twice per model,
    each time through adapter.get_columns_in_relation, which builds a fresh macro context of every macro in the
    project: about 30 ms of dbt's Python per model, paid by every table a build writes. Here a model whose
    contract is enforced is not asked (dbt has just checked that its columns are the documented ones), any
    other model is asked once, in this context, and the comments go to DuckDB as one statement.
#}
{% macro duckdb__persist_docs(relation, model, for_relation, for_columns) -%}
  {%- set comments = [] -%}
  {%- if for_relation and config.persist_relation_docs() and model.description -%}
    {%- do comments.append(alter_relation_comment(relation, model.description)) -%}
  {%- endif -%}
  {%- if for_columns and config.persist_column_docs() and model.columns -%}
    {%- if config.get('contract').enforced -%}
      {%- set documented = model.columns -%}
    {%- else -%}
      {%- set described = run_query('select column_name from (describe ' ~ relation.render() ~ ')') -%}
      {#- Warns about documented columns the relation lacks, and leaves them out, as dbt's own does. -#}
      {%- set documented = validate_doc_columns(relation, model.columns, described.columns[0].values() | list) -%}
    {%- endif -%}
    {%- for name, column in documented.items() -%}
      {%- do comments.append('comment on column ' ~ relation ~ '.' ~ (adapter.quote(name) if column.quote else name)
                             ~ ' is ' ~ duckdb_escape_comment(column.description) ~ ';') -%}
    {%- endfor -%}
  {%- endif -%}
  {%- if comments -%}
    {%- do run_query(comments | join('\n')) -%}
  {%- endif -%}
{%- endmacro %}
