{#
    t_critical_975 by hand: Student's t, two-sided 95% (the 0.975 quantile). Returns a row per mismatch.
        Closed forms, to 1e-12: df 1 (Cauchy) tan(pi (0.975 - 1/2)) = tan(0.475 pi) = 12.7062047361747;
        df 2: (2p - 1) / sqrt(2 p (1 - p)), p = 0.975: 0.95 / sqrt(0.04875) = 4.30265272974946.
        Printed tables (Fisher and Yates; any statistics text), three decimals, to 5e-4: df 9 2.262 (the paired
        test on 10 samples, where 1.96 flagged 8.2% of unchanged models), 10 2.228, 19 2.093, 30 2.042, 60 2.000,
        120 1.980 and 1,000 1.962, past the table inside the macro; df 100,000 is the normal's 1.960.
        Undefined: df 0, df -3 and NULL give NULL.
#}
with cases as (

    select * from (
        values
            (1, tan(0.475 * pi()), 1e-12),
            (2, 0.95 / sqrt(0.04875), 1e-12),
            (9, 2.262, 5e-4),
            (10, 2.228, 5e-4),
            (19, 2.093, 5e-4),
            (30, 2.042, 5e-4),
            (60, 2.000, 5e-4),
            (120, 1.980, 5e-4),
            (1000, 1.962, 5e-4),
            (100000, 1.960, 5e-4),
            (0, null, null),
            (-3, null, null),
            (null, null, null)
    ) as cases (df, expected, tolerance)

),

got as (

    select
        df,
        expected,
        tolerance,
        {{ t_critical_975('df') }} as critical_value
    from cases

),

mismatches as (

    select *
    from got
    where (expected is null and critical_value is not null)
        or (expected is not null and (critical_value is null or abs(critical_value - expected) > tolerance))

)

select * from mismatches
