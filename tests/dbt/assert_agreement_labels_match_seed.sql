-- The values agreement compares (macros/declared_labels.sql: agreement_labels, agreement_value) are exactly what the
-- seeds' labels become: every seeded label maps to a declared agreement value or to no value, and every agreement
-- value is some label's. A renumbered or renamed hazard verdict in the seed fails here, not in a mart's numbers.
with

declared as (
    {{ label_rows(agreement_labels()) }}
),

seeded as (
    select
        label_map.scale,
        label_map.label,
        {{ agreement_value(
            'label_map.scale',
            'label_map.label',
            "case when scales.agreement_level = 'ordinal' then cast(label_map.score_value as double)
                else cast(label_map.sort_order as double) end",
        ) }} as value
    from {{ ref('score_label_map') }} as label_map
    inner join {{ ref('rating_scales') }} as scales on label_map.scale = scales.scale
),

mapped_undeclared as (
    select scale, value from seeded where value is not null
    except
    select scale, value from declared
),

declared_unmapped as (
    select scale, value from declared
    except
    select scale, value from seeded where value is not null
),

non_answers as (
    -- The labels agreement reads as no value: only the hazard verdict 'unsure'.
    select scale, label from seeded where value is null
    except
    select 'hazard_verdict', 'unsure'
)

select 'a label maps to an undeclared agreement value' as problem, scale, value, null as label
from mapped_undeclared
union all
select 'an agreement value no label maps to', scale, value, null from declared_unmapped
union all
select 'a label is read as no value', scale, null, label from non_answers
