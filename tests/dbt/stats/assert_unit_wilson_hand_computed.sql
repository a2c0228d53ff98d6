{#
    unit_wilson_low / unit_wilson_high by hand. Returns a row per mismatch.

    Group g1: unit u1 rated 1, 1, 0 (share 2/3), u2 rated 0 (share 0), u3 rated 1 (share 1): three units, five
    ratings. rate = (2/3 + 0 + 1) / 3 = 5/9 (the five ratings pooled would give 3/5). Wilson over units with
    s = 5/3, n = 3, z = 1.96: (5/3 + 1.9208 -/+ 1.96 sqrt((5/3)(4/3)/3 + 0.9604)) / (3 + 3.8416).
    Group g2: the only rating has no value: no unit counts, the interval is NULL.
#}
with ratings as (

    select * from (
        values
            ('g1', 'u1', 1.0), ('g1', 'u1', 1.0), ('g1', 'u1', 0.0), ('g1', 'u2', 0.0), ('g1', 'u3', 1.0),
            ('g2', 'u1', null)
    ) as ratings (group_id, unit_id, hit)

),

unit_shares as (

    select group_id, unit_id, avg(hit) as share
    from ratings
    group by group_id, unit_id

),

got as (

    select
        group_id,
        count(share) as n_units,
        avg(share) as rate,
        {{ unit_wilson_low('share') }} as ci_low,
        {{ unit_wilson_high('share') }} as ci_high
    from unit_shares
    group by group_id

),

expected as (

    select * from (
        values
            ('g1', 3, cast(5 as double) / 9,
             (cast(5 as double) / 3 + 1.9208 - 1.96 * sqrt(cast(20 as double) / 27 + 0.9604)) / 6.8416,
             (cast(5 as double) / 3 + 1.9208 + 1.96 * sqrt(cast(20 as double) / 27 + 0.9604)) / 6.8416),
            ('g2', 0, null, null, null)
    ) as expected (group_id, n_units, rate, ci_low, ci_high)

),

mismatches as (

    select expected.group_id
    from expected
    left join got on expected.group_id = got.group_id
    where got.group_id is null
        or got.n_units <> expected.n_units
        or (got.rate is null) <> (expected.rate is null)
        or abs(got.rate - expected.rate) > 1e-12
        or (got.ci_low is null) <> (expected.ci_low is null)
        or abs(got.ci_low - expected.ci_low) > 1e-12
        or (got.ci_high is null) <> (expected.ci_high is null)
        or abs(got.ci_high - expected.ci_high) > 1e-12

)

select * from mismatches
