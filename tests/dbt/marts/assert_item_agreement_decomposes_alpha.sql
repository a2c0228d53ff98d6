-- item_agreement is the per-item term of the people's alpha: for every dimension, the all-time alpha of the 'human'
-- rater group equals the average of its items' item_agreement weighted by their numbers of ratings (to 1e-9).
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
    where rater_group = 'human'
        and week_start is null
)

select
    decomposed.dimension,
    alpha.alpha,
    decomposed.weighted_item_agreement
from decomposed
left join alpha on decomposed.dimension = alpha.dimension  -- a dimension with items but no alpha row fails too
where alpha.dimension is null
    or abs(alpha.alpha - decomposed.weighted_item_agreement) > 1e-9
    or (alpha.alpha is null) <> (decomposed.weighted_item_agreement is null)
