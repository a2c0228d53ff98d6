{#
    krippendorff_alpha at the four levels on a fixture small enough to do by hand. Returns a row per mismatch.

    Dimension 'a' (raters r1..r3; u4 has one rating and r2's NULL, so it is unpairable; r3 skips u2 and u5):
        u1: 1, 1, 2    u2: 2, 2    u3: 3, 3, 3    u4: 1 (+ NULL)    u5: 3, 1
    Pairable: u1, u2, u3, u5 -> n_units 4, n = 10 values, 3 raters; marginals n_1 = 3, n_2 = 3, n_3 = 4.
      nominal : unit terms (m^2 - sum n_uc^2)/(m - 1): u1 (9 - 5)/2 = 2, u2 0, u3 0, u5 (4 - 2)/1 = 2 -> 4;
                n^2 - sum n_c^2 = 100 - 34 = 66; alpha = 1 - 9 * 4 / 66 = 5/11.
      interval: m_u s2_u: u1 3 * (2/3)/2 = 1, u5 2 * 2 = 4 -> 5; pooled SS = 51 - 21^2/10 = 6.9, n s2 = 10 * 6.9/9
                = 23/3; alpha = 1 - 5 / (23/3) = 8/23.
      ordinal : midranks 1 -> 1.5, 2 -> 4.5, 3 -> 8; m_u s2_u: u1 (1.5, 1.5, 4.5) 3 * 3 = 9, u5 (8, 1.5)
                2 * 21.125 = 42.25 -> 51.25; pooled SS = 73.5, n s2 = 735/9; alpha = 1 - 51.25 * 9/735 = 73/196.
      ratio   : d(1,2) = 1/9, d(1,3) = 1/4, d(2,3) = 1/25; observed u1 2 * 2 * 1 * (1/9) / 2 = 2/9, u5 2 * (1/4) / 1
                = 1/2 -> 13/18; expected 2 * (9/9 + 12/4 + 12/25) = 224/25; alpha = 1 - 9 * (13/18) / (224/25)
                = 123/448.
    Dimension 'b': every pairable value is 4 -> no expected disagreement: alpha NULL (n_units 2, 5 values, 3 raters).
    Dimension 'c': no unit with two ratings -> no row at all.
#}
with ratings as (

    select * from (
        values
            ('a', 'u1', 'r1', 1.0), ('a', 'u1', 'r2', 1.0), ('a', 'u1', 'r3', 2.0),
            ('a', 'u2', 'r1', 2.0), ('a', 'u2', 'r2', 2.0),
            ('a', 'u3', 'r1', 3.0), ('a', 'u3', 'r2', 3.0), ('a', 'u3', 'r3', 3.0),
            ('a', 'u4', 'r1', 1.0), ('a', 'u4', 'r2', null),
            ('a', 'u5', 'r1', 3.0), ('a', 'u5', 'r2', 1.0),
            ('b', 'u1', 'r1', 4.0), ('b', 'u1', 'r2', 4.0),
            ('b', 'u2', 'r1', 4.0), ('b', 'u2', 'r2', 4.0), ('b', 'u2', 'r3', 4.0),
            ('c', 'u1', 'r1', 1.0), ('c', 'u2', 'r2', 2.0), ('c', 'u3', 'r1', 5.0), ('c', 'u3', 'r2', null)
    ) as ratings (dimension, unit_id, rater_id, value)

),

nominal as ({{ krippendorff_alpha('ratings', ['dimension'], level='nominal') }}),

ordinal as ({{ krippendorff_alpha('ratings', ['dimension'], level='ordinal') }}),

interval_level as ({{ krippendorff_alpha('ratings', ['dimension'], level='interval') }}),

ratio as ({{ krippendorff_alpha('ratings', ['dimension'], level='ratio') }}),

got as (

    select 'nominal' as level, * from nominal
    union all
    select 'ordinal' as level, * from ordinal
    union all
    select 'interval' as level, * from interval_level
    union all
    select 'ratio' as level, * from ratio

),

expected as (

    select * from (
        values
            ('nominal', 'a', 4, 10, 3, cast(5 as double) / 11),
            ('ordinal', 'a', 4, 10, 3, cast(73 as double) / 196),
            ('interval', 'a', 4, 10, 3, cast(8 as double) / 23),
            ('ratio', 'a', 4, 10, 3, cast(123 as double) / 448),
            ('nominal', 'b', 2, 5, 3, null),
            ('ordinal', 'b', 2, 5, 3, null),
            ('interval', 'b', 2, 5, 3, null),
            ('ratio', 'b', 2, 5, 3, null)
    ) as expected (level, dimension, n_units, n_pairable_values, n_raters, alpha)

)

select
    coalesce(got.level, expected.level) as level,
    coalesce(got.dimension, expected.dimension) as dimension,
    got.alpha as got_alpha,
    expected.alpha as expected_alpha
from got
full outer join expected
    on got.level = expected.level
    and got.dimension = expected.dimension
where got.level is null
    or expected.level is null
    or got.n_units <> expected.n_units
    or got.n_pairable_values <> expected.n_pairable_values
    or got.n_raters <> expected.n_raters
    or (got.alpha is null) <> (expected.alpha is null)
    or abs(got.alpha - expected.alpha) > 1e-9
