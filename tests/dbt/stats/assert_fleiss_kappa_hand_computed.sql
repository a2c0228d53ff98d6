{#
    fleiss_kappa and Gwet's AC1 with categories 1..3 (q = 3), by hand. Returns a row per mismatch.

    Group 'f': u1 1,1,1   u2 1,2   u3 2,2,3,3   u4 3 (one rating: drops out)   u5 1,1,7 (7 is no category: 1,1)
        n_units 4. Unit agreement sum_k r_ik(r_ik - 1)/(r_i(r_i - 1)): u1 1, u2 0, u3 (2 + 2)/12 = 1/3, u5 1
        -> p_a = (7/3)/4 = 7/12.
        Shares r_ik/r_i: u1 (1, 0, 0), u2 (1/2, 1/2, 0), u3 (0, 1/2, 1/2), u5 (1, 0, 0) -> pi = (5/8, 1/4, 1/8).
        Fleiss p_e = 25/64 + 4/64 + 1/64 = 15/32; kappa = (7/12 - 15/32) / (17/32) = 11/51.
        AC1 p_e = (15/64 + 12/64 + 7/64) / 2 = 17/64; ac1 = (7/12 - 17/64) / (47/64) = 61/141.
    Group 'g': every rating is 2 -> p_e = 1: Fleiss NULL; AC1's p_e = 0, so ac1 = p_a = 1.
    Group 'h': no unit with two ratings -> no row.
#}
with ratings as (

    select * from (
        values
            ('f', 'u1', 1), ('f', 'u1', 1), ('f', 'u1', 1),
            ('f', 'u2', 1), ('f', 'u2', 2),
            ('f', 'u3', 2), ('f', 'u3', 2), ('f', 'u3', 3), ('f', 'u3', 3),
            ('f', 'u4', 3),
            ('f', 'u5', 1), ('f', 'u5', 1), ('f', 'u5', 7),
            ('g', 'u1', 2), ('g', 'u1', 2), ('g', 'u2', 2), ('g', 'u2', 2), ('g', 'u2', 2),
            ('h', 'u1', 1), ('h', 'u2', 2)
    ) as ratings (question_set, unit_id, value)

),

got as ({{ fleiss_kappa('ratings', ['question_set'], categories=[1, 2, 3]) }}),

expected as (

    select * from (
        values
            ('f', 4, cast(11 as double) / 51, cast(61 as double) / 141),
            ('g', 2, null, 1.0)
    ) as expected (question_set, n_units, fleiss_kappa, gwet_ac1)

)

select
    coalesce(got.question_set, expected.question_set) as question_set,
    got.fleiss_kappa as got_fleiss_kappa,
    expected.fleiss_kappa as expected_fleiss_kappa,
    got.gwet_ac1 as got_gwet_ac1,
    expected.gwet_ac1 as expected_gwet_ac1
from got
full outer join expected
    on got.question_set = expected.question_set
where got.question_set is null
    or expected.question_set is null
    or got.n_units <> expected.n_units
    or (got.fleiss_kappa is null) <> (expected.fleiss_kappa is null)
    or abs(got.fleiss_kappa - expected.fleiss_kappa) > 1e-9
    or (got.gwet_ac1 is null) <> (expected.gwet_ac1 is null)
    or abs(got.gwet_ac1 - expected.gwet_ac1) > 1e-9
