{#
    sign_test_p_values by hand: p = min(1, 2 * sum_{i<=k} C(n, i) / 2^n), k = min(up, down), n = up + down.
    Returns a row per mismatch (relative tolerance 1e-12).
        3 down, 0 up (the groundedness "regression" of the report review): 2 * 1/8 = 0.25; 0 down, 3 up: the same
        17 down, 1 up: 2 * (1 + 18) / 2^18 = 38 / 262144
        8 down, 2 up: 2 * (1 + 10 + 45) / 2^10 = 112 / 1024
        6 down, 0 up: 2 / 64 = 0.03125 (the fewest changes that can reach p < 0.05); 5 down: 2 / 32 = 0.0625
        5 and 5: 1 (capped); nothing changed: 1
        200 down, 0 up: 2 / 2^200 = 2^-199 (no overflow, no underflow to 0)
#}
with counts as (

    select * from (
        values
            (0, 3, 0.25),
            (3, 0, 0.25),
            (1, 17, cast(38 as double) / 262144),
            (2, 8, cast(112 as double) / 1024),
            (0, 6, 0.03125),
            (0, 5, 0.0625),
            (5, 5, 1.0),
            (0, 0, 1.0),
            (0, 200, power(cast(2 as double), -199))
    ) as counts (n_up, n_down, expected_p)

),

got as (

    {{ sign_test_p_values('counts') }}

),

mismatches as (

    select counts.n_up, counts.n_down, counts.expected_p, got.sign_test_p
    from counts
    left join got
        on counts.n_up = got.n_up
        and counts.n_down = got.n_down
    where got.sign_test_p is null
        or abs(got.sign_test_p - counts.expected_p) > 1e-12 * counts.expected_p

)

select * from mismatches
