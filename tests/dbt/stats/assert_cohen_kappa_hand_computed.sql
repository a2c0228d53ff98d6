{#
    cohen_kappa with labels 1..5 and the three weightings, by hand. Returns a row per mismatch.

    Group 'x': kept pairs (1,1) (2,2) (2,3) (3,3) (5,4) (1,2); (0,3) and (4,NULL) are outside the labels.
        N = 6, n_excluded 2, matches 3 -> observed_agreement 1/2.
        Margins a {1: 2, 2: 2, 3: 1, 5: 1}, b {1: 1, 2: 2, 3: 2, 4: 1}; kappa = 1 - N * sum_pairs w / sum_pq a_p b_q w.
        unweighted: 3 disagreements; expected 36 - (2*1 + 2*2 + 1*2) = 28; kappa = 1 - 18/28 = 5/14.
        linear    : sum |i-j| = 3; expected 2*9 + 2*5 + 1*5 + 1*15 = 48; kappa = 1 - 18/48 = 5/8.
        quadratic : sum (i-j)^2 = 3; expected 2*19 + 2*7 + 1*7 + 1*43 = 102; kappa = 1 - 18/102 = 14/17.
    Group 'y': (1,1) (2,2) (4,5) (5,5) (2,1): label 3 is never used, and still counts as a position.
        N = 5, matches 3 -> 3/5. Margins a {1: 1, 2: 2, 4: 1, 5: 1}, b {1: 2, 2: 1, 5: 2}.
        unweighted: 2; expected 25 - (2 + 2 + 2) = 19; kappa = 1 - 10/19 = 9/19.
        linear    : 2; expected 9 + 2*8 + 10 + 11 = 46; kappa = 1 - 10/46 = 18/23.
        quadratic : 2; expected 33 + 2*20 + 24 + 41 = 138; kappa = 1 - 10/138 = 64/69.
    Group 'z': (3,3) twice: one category only -> kappa NULL, observed_agreement 1.
    Group 'w': (0,0): nothing kept -> n_pairs 0, n_excluded 1, both NULL.
#}
with pairs as (

    select * from (
        values
            ('x', 1, 1), ('x', 2, 2), ('x', 2, 3), ('x', 3, 3), ('x', 5, 4), ('x', 1, 2), ('x', 0, 3), ('x', 4, null),
            ('y', 1, 1), ('y', 2, 2), ('y', 4, 5), ('y', 5, 5), ('y', 2, 1),
            ('z', 3, 3), ('z', 3, 3),
            ('w', 0, 0)
    ) as pairs (rater_pair, rating_a, rating_b)

),

unweighted as ({{ cohen_kappa('pairs', ['rater_pair'], weights='unweighted') }}),

linear as ({{ cohen_kappa('pairs', ['rater_pair'], weights='linear') }}),

quadratic as ({{ cohen_kappa('pairs', ['rater_pair'], weights='quadratic') }}),

got as (

    select 'unweighted' as weights, * from unweighted
    union all
    select 'linear' as weights, * from linear
    union all
    select 'quadratic' as weights, * from quadratic

),

expected as (

    select * from (
        values
            ('unweighted', 'x', 6, 2, 0.5, cast(5 as double) / 14),
            ('linear', 'x', 6, 2, 0.5, cast(5 as double) / 8),
            ('quadratic', 'x', 6, 2, 0.5, cast(14 as double) / 17),
            ('unweighted', 'y', 5, 0, 0.6, cast(9 as double) / 19),
            ('linear', 'y', 5, 0, 0.6, cast(18 as double) / 23),
            ('quadratic', 'y', 5, 0, 0.6, cast(64 as double) / 69),
            ('unweighted', 'z', 2, 0, 1.0, null),
            ('linear', 'z', 2, 0, 1.0, null),
            ('quadratic', 'z', 2, 0, 1.0, null),
            ('unweighted', 'w', 0, 1, null, null),
            ('linear', 'w', 0, 1, null, null),
            ('quadratic', 'w', 0, 1, null, null)
    ) as expected (weights, rater_pair, n_pairs, n_excluded, observed_agreement, kappa)

)

select
    coalesce(got.weights, expected.weights) as weights,
    coalesce(got.rater_pair, expected.rater_pair) as rater_pair,
    got.kappa as got_kappa,
    expected.kappa as expected_kappa
from got
full outer join expected
    on got.weights = expected.weights
    and got.rater_pair = expected.rater_pair
where got.weights is null
    or expected.weights is null
    or got.n_pairs <> expected.n_pairs
    or got.n_excluded <> expected.n_excluded
    or (got.observed_agreement is null) <> (expected.observed_agreement is null)
    or abs(got.observed_agreement - expected.observed_agreement) > 1e-9
    or (got.kappa is null) <> (expected.kappa is null)
    or abs(got.kappa - expected.kappa) > 1e-9
