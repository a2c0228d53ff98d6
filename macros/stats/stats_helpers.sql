{#
    Rendering helpers shared by the statistics macros: a table macro takes its grouping columns as a list
    (possibly empty), and these spell that list into the select, partition, group-by and join clauses so the
    statistics read as SQL rather than as loops. Grouping columns may hold NULL: a NULL group is a group, so
    windows partition on the columns and joins compare them with `is not distinct from` (DuckDB and
    Spark >= 2.3 both parse it), never `=` or `using`, which would drop NULL groups.
#}

{#
    "g1,\n        g2,\n        " (each column on its own line, ready for the next select item) or "" for no
    grouping: the head of a select list, optionally qualified by a table alias.
#}
{% macro stats_group_select(group_by, alias=none) -%}
    {%- for column in group_by -%}
        {%- if alias %}{{ alias }}.{% endif %}{{ column }},{{ '\n        ' }}
    {%- endfor -%}
{%- endmacro %}

{# "partition by g1, g2, extra" or "" when there is nothing to partition on (one window over everything). #}
{% macro stats_partition_by(group_by, extra=[]) -%}
    {%- set columns = group_by + extra -%}
    {%- if columns | length > 0 %}partition by {{ columns | join(', ') }}{% endif -%}
{%- endmacro %}

{#
    "group by g1, g2, extra" (the grouping columns qualified by alias when given), or, with nothing to group
    by, "having count(*) > 0": an aggregate without `group by` returns one row even over no input, and a
    statistic over no rows must produce no row.
#}
{% macro stats_group_by(group_by, extra=[], alias=none) -%}
    {%- set columns = [] -%}
    {%- for column in group_by -%}{% do columns.append((alias ~ '.' if alias else '') ~ column) %}{%- endfor -%}
    {%- set columns = columns + extra -%}
    {%- if columns | length > 0 %}group by {{ columns | join(', ') }}{% else %}having count(*) > 0{% endif -%}
{%- endmacro %}

{# The null-safe join condition on the grouping columns ("1 = 1" when there are none). #}
{% macro stats_join_groups(left, right, group_by) -%}
    {%- if group_by | length == 0 -%}
        1 = 1
    {%- else -%}
        {%- for column in group_by -%}
            {{ left }}.{{ column }} is not distinct from {{ right }}.{{ column }}{% if not loop.last %} and {% endif %}
        {%- endfor -%}
    {%- endif -%}
{%- endmacro %}

{# A Jinja value as a SQL literal: numbers as they are, strings quoted with embedded quotes doubled. #}
{% macro stats_literal(value) -%}
    {%- if value is string -%}'{{ value | replace("'", "''") }}'{%- else -%}{{ value }}{%- endif -%}
{%- endmacro %}
