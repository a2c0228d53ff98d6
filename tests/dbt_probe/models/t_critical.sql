-- Every whole df from 1 to 2,000 (the table inside the macro and the expansion beyond it), df 0 and NULL, for
-- test_stat_macros.py to hold against scipy.stats.t.ppf(0.975, df).
with degrees as (
    select cast(unnest(generate_series(0, 2000)) as bigint) as df
    union all
    select cast(null as bigint) as df
)

select
    df,
    {{ t_critical_975('df') }} as critical_value
from degrees
