-- Degrees of freedom from 1.5 to 300 in steps of 0.25 (whole and Welch-like fractional ones), 1, NULL and a huge
-- df, at z 3, 4 and 5, for test_stat_macros.py to hold t_critical_at_z against scipy.stats.t.isf(norm.sf(z), df).
with degrees as (
    select cast(unnest(generate_series(6, 1200)) as double) / 4.0 as df
    union all
    select cast(1 as double) as df
    union all
    select cast(1000000 as double) as df
    union all
    select cast(null as double) as df
)

select
    df,
    {{ t_critical_at_z('df', 3) }} as critical_at_3,
    {{ t_critical_at_z('df', 4.0) }} as critical_at_4,
    {{ t_critical_at_z('df', 5) }} as critical_at_5
from degrees
