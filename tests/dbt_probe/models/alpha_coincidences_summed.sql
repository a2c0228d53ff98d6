-- Groups 10 and 11, 12 and 13, ... as one: their coincidence matrices summed per (pair, value, value), then ordinal
-- alpha from the sums. Must equal alpha over the union of the two groups' ratings (units kept apart).
with

summed as (
    select group_id // 2 as pair_id, value_a, value_b, sum(coincidences) as coincidences,
        sum(pairable_ratings) as pairable_ratings
    from {{ ref('alpha_coincidence_matrix') }}
    where group_id >= 10
    group by group_id // 2, value_a, value_b
),

alpha as (
    {{ krippendorff_alpha_from_coincidences('summed', ['pair_id'], level='ordinal') }}
)

select * from alpha
