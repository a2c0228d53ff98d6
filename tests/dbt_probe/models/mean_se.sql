select
    group_id,
    count(x) as n_values,
    {{ mean_se('x') }} as x_se
from {{ source('probe', 'measurements') }}
group by group_id
