-- Each unit's share first, then the rate and unit_wilson_low/high over the units, per group and outcome.
with unit_shares as (
    select
        group_id,
        unit_id,
        count(a) as a_ratings,
        avg(a) as a_share,
        count(b) as b_ratings,
        avg(b) as b_share
    from {{ source('probe', 'unit_outcomes') }}
    group by group_id, unit_id
)

select
    group_id,
    sum(a_ratings) as a_n_ratings,
    count(a_share) as a_n_units,
    avg(a_share) as a_rate,
    {{ unit_wilson_low('a_share') }} as a_ci_low,
    {{ unit_wilson_high('a_share') }} as a_ci_high,
    sum(b_ratings) as b_n_ratings,
    count(b_share) as b_n_units,
    avg(b_share) as b_rate,
    {{ unit_wilson_low('b_share', z=2.576) }} as b_ci_low,
    {{ unit_wilson_high('b_share', z=2.576) }} as b_ci_high
from unit_shares
group by group_id
