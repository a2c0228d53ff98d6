-- alpha_ratings of the groups rated on the 1-5 scale (every value a whole number from 1 to 5), tallied per unit
-- (n_1 .. n_5) and summed per group by agreement_tally_sums: the input of the tally_alpha probe.
with

scale_groups as (
    select coalesce(group_id, -1) as group_key
    from {{ source('probe', 'alpha_ratings') }}
    where value is not null
    group by coalesce(group_id, -1)
    having min(value) >= 1 and max(value) <= 5 and sum(case when value = round(value) then 0 else 1 end) = 0
),

units as (
    select
        group_id,
        unit_id,
        count(*) as n_ratings,
        {%- for a in range(1, 6) %}
        sum(case when value = {{ a }} then 1 else 0 end) as n_{{ a }}{% if not loop.last %},{% endif %}
        {%- endfor %}
    from {{ source('probe', 'alpha_ratings') }}
    where value is not null and coalesce(group_id, -1) in (select group_key from scale_groups)
    group by group_id, unit_id
)

select
    group_id,
    {{- agreement_tally_sums(5) }}
from units
group by group_id
