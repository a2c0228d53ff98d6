-- alpha_ratings counted per (group, unit, value): the input of the probe models that pass counts through weight=.
select group_id, unit_id, value, count(*) as n_uc
from {{ source('probe', 'alpha_ratings') }}
where value is not null
group by group_id, unit_id, value
