-- One row per LLM judge, dimension and week with reviews of the judge's ratings: how often a person reviewing the
-- judge's verdict, with it in front of them, changed it. The reviews are the derived_from pairs of
-- int_rating_pairs_joined (hybrid eval forms, CogniBench completed reviews); fct_judge_drift leaves them out,
-- because a review is not an independent opinion, and this mart is where they count, never pooled with
-- independent people. The week is the judge's, as in fct_judge_drift; reviews come in a day or more later, so the
-- newest week has few.
-- The unit is the reviewed judge rating: override_rate is the mean over them of the share of their reviews that
-- changed the label, with a Wilson interval over them (unit_wilson_low/high).
-- An eval form's extension scores (chat., agent., rag., multimodal.) are left out: the app's review form cannot edit
-- them and copied them from the judge's form unchanged (the demo's reviews too), so counting them counted a
-- confirmation nobody made and pushed override rates down.
{%- set extensions = ['chat', 'agent', 'rag', 'multimodal'] %}
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
        -- one review per judged CogniBench response: the latest completed record's (int_judge_records_ranked)
        and {{ counted_rating('human_record_id', 'human_rater_type') }}
        and not (
            source_format = 'eval_form'
            and ({% for e in extensions %}dimension like '{{ e }}.%'{% if not loop.last %} or {% endif %}{% endfor %})
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
