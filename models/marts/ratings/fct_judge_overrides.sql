-- One row per LLM judge, dimension and week with reviews of the judge's ratings: how often a person reviewing the
-- judge's verdict, with it in front of them, changed it. The reviews are the derived_from pairs of
-- int_rating_pairs_joined (hybrid eval forms, CogniBench completed reviews); fct_judge_drift leaves them out,
-- because a review is not an independent opinion, and this mart is where they count, never pooled with
-- independent people. The week is the judge's, as in fct_judge_drift; reviews come in a day or more later, so the
-- newest week has few.
-- The unit is the reviewed judge rating: override_rate is the mean over them of the share of their reviews that
-- changed the label, with a Wilson interval over them (unit_wilson_low/high).
-- A review counts on a dimension only where the reviewer rated it: a kept answer is a confirmation only if the form
-- showed it. The app's review form (app/review.py) shows the universal scores, vs_reference, the hazard verdicts and
-- the refusal, prefilled with the judge's answers: the seed review_form_dimensions lists them, and every review's
-- answer on them counts, kept or changed. It shows no modality extension score (chat., agent., rag., multimodal.),
-- and a record cannot tell a score copied from the judge's form from one a reviewer confirmed: the bytes are the
-- same. Earlier app reviews and the demo's copy the judge's extensions unchanged, and counting the copies counted
-- confirmations nobody made (override rates pushed down). So a review's scores outside the seed's list count only
-- when the review changed at least one of them from the judge's: then its form showed them (a third-party review
-- form that edits extension scores), and each of them counts, kept ones as confirmations. What this leaves out: a
-- review from such a form that kept every extension score, which reads as a copy; its extension rates lean high
-- by that much. CogniBench reviews rate every criterion they carry and all count.
with

pairs as (
    select * from {{ ref('int_rating_pairs_joined') }}
    where pairing = 'derived_from'
        -- one review per judged CogniBench response: the latest completed record's (int_judge_records_ranked)
        and {{ counted_rating('human_record_id', 'human_rater_type') }}
),

form_dimensions as (
    select * from {{ ref('review_form_dimensions') }}
),

-- Eval-form reviews that changed a score the app's form does not show: their form showed those scores.
outside_form_edits as (
    select pairs.human_record_id
    from pairs
    left join form_dimensions
        on pairs.dimension = form_dimensions.dimension
    where pairs.source_format = 'eval_form'
        and form_dimensions.dimension is null
        and pairs.human_label is distinct from pairs.judge_label
    group by pairs.human_record_id
),

reviews as (
    select
        pairs.judge_id,
        pairs.judge_model,
        pairs.dimension,
        pairs.dimension_group,
        pairs.scale,
        pairs.week_start,
        pairs.judge_rating_id,
        pairs.human_rater_id,
        pairs.human_score - pairs.judge_score as score_change,
        case when pairs.human_label is not distinct from pairs.judge_label then 0.0 else 1.0 end as overridden
    from pairs
    left join form_dimensions
        on pairs.dimension = form_dimensions.dimension
    left join outside_form_edits
        on pairs.human_record_id = outside_form_edits.human_record_id
    where pairs.source_format <> 'eval_form'
        or form_dimensions.dimension is not null
        or outside_form_edits.human_record_id is not null
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
