-- Groups 10 and 11, 12 and 13, ... as one: their category sums added per (pair, category), then Fleiss' kappa and
-- AC1 from the sums. Must equal the statistics over the union of the two groups' ratings (units kept apart).
with

sums as (
    {{ fleiss_category_sums(source('probe', 'fleiss_ratings'), ['group_id'], categories=[1, 2, 3, 4, 5]) }}
),

summed as (
    select group_id // 2 as pair_id, category_position, sum(units_first_seen) as units_first_seen,
        sum(share_sum) as share_sum, sum(agreement_sum) as agreement_sum
    from sums
    where group_id >= 10
    group by group_id // 2, category_position
),

fleiss as (
    {{ fleiss_from_category_sums('summed', ['pair_id'], 5) }}
)

select * from fleiss
