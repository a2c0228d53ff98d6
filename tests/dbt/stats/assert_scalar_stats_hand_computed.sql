{#
    wilson_low / wilson_high, mean_se and safe_divide, by hand. Returns a row per mismatch.

    Wilson, (s + z^2/2 -/+ z sqrt(s (n - s)/n + z^2/4)) / (n + z^2):
        s = 5, n = 10, z = 1.96: (6.9208 -/+ 1.96 sqrt(2.5 + 0.9604)) / 13.8416 = 0.5 -/+ 1.96 sqrt(3.4604) / 13.8416
        s = 0, n = 10, z = 1.96: low (1.9208 - 1.96 * 0.98) / 13.8416 = 0, high 3.8416 / 13.8416
        s = 3, n = 4,  z = 2   : (5 -/+ 2 sqrt(3/4 + 1)) / 8 = (5 -/+ sqrt(7)) / 8
        s = 0, n = 0           : NULL (no trials)
    mean_se = sqrt(var_samp / n): {1, 2, 3, 4} var 5/3 -> sqrt(5/12); {2, NULL, 4} var 2 -> 1; {7} -> NULL.
    safe_divide: 7 / 2 = 3.5 (no integer division); 1 / 0 -> NULL; NULL / 3 -> NULL.
#}
with proportions as (

    select * from (
        values
            (1, 5, 10, 1.96, 0.5 - 1.96 * sqrt(3.4604) / 13.8416, 0.5 + 1.96 * sqrt(3.4604) / 13.8416),
            (2, 0, 10, 1.96, 0.0, cast(3.8416 as double) / 13.8416),
            (3, 3, 4, 2.0, (5 - sqrt(7.0)) / 8, (5 + sqrt(7.0)) / 8),
            (4, 0, 0, 1.96, null, null)
    ) as proportions (case_id, successes, n, z, expected_low, expected_high)

),

wilson as (

    select
        case_id,
        {{ wilson_low('successes', 'n', z='z') }} as got_low,
        {{ wilson_high('successes', 'n', z='z') }} as got_high,
        expected_low,
        expected_high
    from proportions

),

measurements as (

    select * from (
        values
            ('a', 1.0), ('a', 2.0), ('a', 3.0), ('a', 4.0),
            ('b', 2.0), ('b', null), ('b', 4.0),
            ('c', 7.0)
    ) as measurements (sample_set, x)

),

standard_errors as (

    select
        sample_set,
        {{ mean_se('x') }} as got_se,
        case sample_set when 'a' then sqrt(cast(5 as double) / 12) when 'b' then 1.0 end as expected_se
    from measurements
    group by sample_set

),

divisions as (

    select * from (
        values
            (1, 7, 2, 3.5),
            (2, 1, 0, null),
            (3, null, 3, null)
    ) as divisions (case_id, numerator, denominator, expected_ratio)

),

mismatches as (

    select 'wilson' as check_name, cast(case_id as string) as subject
    from wilson
    where (got_low is null) <> (expected_low is null)
        or abs(got_low - expected_low) > 1e-12
        or (got_high is null) <> (expected_high is null)
        or abs(got_high - expected_high) > 1e-12

    union all

    select 'mean_se' as check_name, sample_set as subject
    from standard_errors
    where (got_se is null) <> (expected_se is null)
        or abs(got_se - expected_se) > 1e-9

    union all

    select 'safe_divide' as check_name, cast(case_id as string) as subject
    from divisions
    where ({{ safe_divide('numerator', 'denominator') }} is null) <> (expected_ratio is null)
        or abs({{ safe_divide('numerator', 'denominator') }} - expected_ratio) > 1e-12

)

select * from mismatches
