-- One row per item flagged for rubric clarification (fct_item_disagreement), dimension and rater: the ratings behind
-- each flag, with the item's figures repeated on each of its rows, so that the agreement page and an analyst read a
-- flag and its ratings side by side from one small table. (On the benchmark the page took 0.3 to 0.45 s to find
-- 14,338 flagged items among 984,750 and their ratings among 3.9 million.)
--
-- Ratings as agreement counts them (int_agreement_ratings): each rater's latest independent rating of the item,
-- reviews of a judge's verdict left out. People's ratings make the flag; LLM judges' ratings are here to compare and
-- do not count in it (a judge that disagrees with people is judge drift: fct_judge_drift). A rating with no value
-- for agreement (a hazard verdict unsure) is listed with its label: it is the rater's latest word on the item.
--
-- A table rebuilt in full by every build, as fct_item_disagreement is: which items are flagged moves with each batch
-- (an item's agreement is measured against its dimension's expected disagreement over all ratings).
with

flagged as (
    select
        item_id, dimension, dimension_group, scale, agreement_level, model_id, task_id, week_start, n_ratings, spread,
        item_agreement
    from {{ ref('fct_item_disagreement') }}
    where is_flagged
),

ratings as (
    select * from {{ ref('int_agreement_ratings') }}
),

final as (
    select
        flagged.item_id,
        flagged.dimension,
        flagged.dimension_group,
        flagged.scale,
        flagged.agreement_level,
        flagged.model_id,
        flagged.task_id,
        flagged.week_start,
        flagged.n_ratings,
        flagged.spread,
        flagged.item_agreement,
        ratings.rater_id,
        ratings.rater_group,
        ratings.label,
        ratings.score,
        ratings.rater_group = 'human' and ratings.value is not null as counts_in_flag
    from flagged
    inner join ratings
        on ratings.unit_id = flagged.item_id
        and ratings.dimension = flagged.dimension
)

select * from final
