{#
    The `replace_groups` incremental strategy, for a table whose rows are numbered within groups (the columns of
    `unique_key`). The model's incremental select returns two kinds of rows: rows to add, and for each group it
    recomputed whole, one tombstone (group_tombstones: the group's key, NULL elsewhere) above the group's rows.
    The strategy deletes the table's rows of every group that has a tombstone, then inserts every row that is not
    one (config `row_key`: a column NULL only in a tombstone). A group without a tombstone only gains rows; a group
    with one is replaced, and emptied if the select returned no rows for it (dbt's delete+insert deletes only the
    keys of the rows it inserts, so it could not empty a group, nor add to one). Keys compare NULL-safely.
#}
{% macro get_incremental_replace_groups_sql(arg_dict) -%}
    {%- set target, source = arg_dict['target_relation'], arg_dict['temp_relation'] -%}
    {%- set keys = arg_dict['unique_key'] -%}
    {%- set keys = [keys] if keys is string else keys -%}
    {%- set row_key = config.require('row_key') -%}
    {%- set columns = get_quoted_csv(arg_dict['dest_columns'] | map(attribute='name')) -%}
    delete from {{ target }} as existing
    using (select distinct {{ keys | join(', ') }} from {{ source }} where {{ row_key }} is null) as replaced
    where
    {%- for key in keys %}
        existing.{{ key }} is not distinct from replaced.{{ key }}{{ ' and' if not loop.last }}
    {%- endfor %};

    insert into {{ target }} ({{ columns }})
    select {{ columns }} from {{ source }} where {{ row_key }} is not null
{%- endmacro %}


{#
    group_tombstones(relation, keys, groups): a select of one tombstone row per row of `groups` (a relation or CTE
    with the columns `keys`), shaped as `relation`: the group's keys, every other column NULL of its type. Only in
    an incremental run (`relation` is the model's existing table); union it under the recomputed rows.
#}
{% macro group_tombstones(relation, keys, groups) -%}
    select
    {%- for column in adapter.get_columns_in_relation(relation) %}
        {% if column.name in keys -%}
        {{ groups }}.{{ column.name }}
        {%- else -%}
        cast(null as {{ column.data_type }}) as {{ column.name }}
        {%- endif %}{{ ',' if not loop.last }}
    {%- endfor %}
    from {{ groups }}
{%- endmacro %}


{# keys_equal(left, right, keys): `left.k = right.k and ...` for each column k of `keys`, a join on a composite key. #}
{% macro keys_equal(left, right, keys) -%}
    {%- for key in keys %}{{ left }}.{{ key }} = {{ right }}.{{ key }}{{ ' and ' if not loop.last }}{% endfor -%}
{%- endmacro %}
