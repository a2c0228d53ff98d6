-- item_agreement is the per-item term of alpha: for every dimension, the all-time alpha of the 'all' rater group
-- equals the average of its items' item_agreement weighted by their numbers of ratings (to 1e-9).
with

decomposed as (
    select
        dimension,
        sum(n_ratings * item_agreement) / sum(n_ratings) as weighted_item_agreement
    from {{ ref('fct_item_disagreement') }}
    group by dimension
),

alpha as (
    select dimension, alpha
    from {{ ref('fct_rater_agreement') }}
    where rater_group = 'all'
        and week_start is null
)

select
    alpha.dimension,
    alpha.alpha,
    decomposed.weighted_item_agreement
from alpha
inner join decomposed on alpha.dimension = decomposed.dimension
where abs(alpha.alpha - decomposed.weighted_item_agreement) > 1e-9
    or (alpha.alpha is null) <> (decomposed.weighted_item_agreement is null)
