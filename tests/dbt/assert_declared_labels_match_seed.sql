-- The label sets declared in macros/declared_labels.sql are exactly the values the seeds give each scale.
with

declared as (
    {{ label_rows(declared_labels()) }}
),

seeded as (
    select
        label_map.scale,
        case
            when scales.agreement_level = 'ordinal' then cast(label_map.score_value as double)
            else cast(label_map.sort_order as double)
        end as value
    from {{ ref('score_label_map') }} as label_map
    inner join {{ ref('rating_scales') }} as scales on label_map.scale = scales.scale
),

only_declared as (
    select scale, value from declared
    except
    select scale, value from seeded
),

only_seeded as (
    select scale, value from seeded
    except
    select scale, value from declared
)

select 'declared, not in seed' as problem, * from only_declared
union all
select 'in seed, not declared' as problem, * from only_seeded
