-- One row per LLM judge, dimension and week with reviews of the judge's ratings: how often a person reviewing the
-- judge's verdict, with it in front of them, changed it. The reviews are the derived_from pairs of
-- int_rating_pairs_joined (hybrid eval forms, CogniBench completed reviews); fct_judge_drift leaves them out,
-- because a review is not an independent opinion, and this mart is where they count, never pooled with
-- independent people. The week is the judge's, as in fct_judge_drift; reviews come in a day or more later, so the
-- newest week has few.
-- The unit is the reviewed judge rating: override_rate is the mean over them of the share of their reviews that
-- changed the label, with a Wilson interval over them (unit_wilson_low/high).
-- Every score a review carries counts, kept or changed: a hybrid eval form is a person confirming or overriding the
-- judge's record (the eval-form schema's derived_from), and a CogniBench completed review rates every criterion.
-- A review is never kept or dropped by its own answers: counting a form's extension scores only where the review
-- changed one of them (a guard once kept against copies of the judge's scores, which read the same as
-- confirmations) dropped every review that confirmed them all, so on a dimension a form showed alone
-- (chat.consistency_across_turns) the override rate was 1 whatever the reviewers did. Copies are kept out where
-- reviews are written: the app's review form leaves the judge's extension scores out (app/review.py), as the
-- demo's reviews do.
with

reviews as (
    select
        judge_id,
        judge_model,
        dimension,
        dimension_group,
        scale,
        week_start,
        judge_rating_id,
        human_rater_id,
        human_score - judge_score as score_change,
        case when human_label is not distinct from judge_label then 0.0 else 1.0 end as overridden
    from {{ ref('int_rating_pairs_joined') }}
    where pairing = 'derived_from'
        -- the reviews that count (one per judged CogniBench response); the judge's side is the verdict reviewed,
        -- counted or not (a later run of the judge may have superseded it since)
        and human_rating_id in (
            select rating_id from {{ ref('int_ratings_counted') }}
            where derived_from is not null
        )
),

reviewed_ratings as (
    select
        judge_id,
        dimension,
        week_start,
        judge_rating_id,
        avg(overridden) as overridden_share
    from reviews
    group by judge_id, dimension, week_start, judge_rating_id
),

rates as (
    select
        judge_id,
        dimension,
        week_start,
        count(overridden_share) as n_reviewed_ratings,
        avg(overridden_share) as override_rate,
        {{ unit_wilson_low('overridden_share') }} as override_rate_ci_low,
        {{ unit_wilson_high('overridden_share') }} as override_rate_ci_high
    from reviewed_ratings
    group by judge_id, dimension, week_start
),

counts as (
    select
        judge_id,
        dimension,
        week_start,
        max(judge_model) as judge_model,
        max(dimension_group) as dimension_group,
        max(scale) as scale,
        count(*) as n_reviews,
        count(distinct human_rater_id) as n_reviewers,
        cast(sum(overridden) as bigint) as n_overridden,
        avg(score_change) as mean_score_change
    from reviews
    group by judge_id, dimension, week_start
),

final as (
    select
        counts.judge_id,
        counts.judge_model,
        counts.dimension,
        counts.dimension_group,
        counts.scale,
        counts.week_start,
        counts.n_reviews,
        rates.n_reviewed_ratings,
        counts.n_reviewers,
        counts.n_overridden,
        rates.override_rate,
        rates.override_rate_ci_low,
        rates.override_rate_ci_high,
        counts.mean_score_change
    from counts
    inner join rates
        on counts.judge_id = rates.judge_id
        and counts.dimension = rates.dimension
        and counts.week_start = rates.week_start
)

select * from final
