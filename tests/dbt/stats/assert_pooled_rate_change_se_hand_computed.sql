{#
    pooled_rate_change_se by hand. Returns a row per mismatch.

    3 of 10 against 0 of 10: p = 3/20 = 0.15, SE = sqrt(0.15 x 0.85 x (1/10 + 1/10)) = sqrt(0.0255); z = 0.3 / SE =
        1.879, below 1.96 (the unpooled SE, sqrt(0.3 x 0.7 / 10) = 0.145, gave z = 2.07; Fisher's exact p is 0.21).
    8 of 20 against 1 of 20: p = 9/40, SE = sqrt(9/40 x 31/40 x 1/10) = sqrt(279/16000); z = 0.35 / SE = 2.650.
    0.5 of 4 against 0.25 of 4 (shares averaged): p = 3/8, SE = sqrt(3/8 x 5/8 x 1/2) = sqrt(15/128).
    0 of 10 against 0 of 12: SE 0.  Either n 0 or NULL, or a rate NULL: NULL.
#}
with cases as (

    select * from (
        values
            (1, 0.3, 10, 0.0, 10, sqrt(0.0255)),
            (2, 0.4, 20, 0.05, 20, sqrt(cast(279 as double) / 16000)),
            (3, 0.5, 4, 0.25, 4, sqrt(cast(15 as double) / 128)),
            (4, 0.0, 10, 0.0, 12, 0.0),
            (5, 0.5, 10, 0.5, 0, null),
            (6, 0.5, 10, null, null, null)
    ) as cases (case_id, rate, n, previous_rate, previous_n, expected_se)

),

got as (

    select
        case_id,
        {{ pooled_rate_change_se('rate', 'n', 'previous_rate', 'previous_n') }} as got_se,
        expected_se
    from cases

),

z_scores as (

    -- The two z's the docs quote, to three decimals.
    select
        case_id,
        round((rate - previous_rate) / {{ pooled_rate_change_se('rate', 'n', 'previous_rate', 'previous_n') }}, 3)
            as got_z,
        case case_id when 1 then 1.879 when 2 then 2.650 end as expected_z
    from cases
    where case_id in (1, 2)

),

mismatches as (

    select 'se' as check_name, case_id
    from got
    where (got_se is null) <> (expected_se is null)
        or abs(got_se - expected_se) > 1e-12

    union all

    select 'z' as check_name, case_id
    from z_scores
    where got_z is null or abs(got_z - expected_z) > 1e-9

)

select * from mismatches
