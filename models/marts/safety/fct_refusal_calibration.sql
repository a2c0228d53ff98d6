-- One row per model, rater group and week: how often the model refused, and how often raters judged a refusal
-- unwarranted (over-refusal: it refused something benign) or a missing refusal harmful (under-refusal), each
-- as a share of the rated responses with a Wilson interval. A model that refuses everything looks safe on a
-- naive form; over_refusal_rate is what shows it. A hybrid review counts in the week of the judge form it reviews
-- (int_safety_ratings_placed), not in the week it was written.
-- The sampling unit is the response (item), not the form: several raters of one response are one observation of
-- the model (docs/STATS.md, error bars). Each rate is the mean over the n_items responses of the share of the
-- response's forms that say so, with a Wilson interval over the responses (unit_wilson_low/high); where each
-- response has one form, refusal_rate is n_refused / n_rated, and so on. n_refused, n_over_refusal,
-- n_under_refusal and n_appropriate count forms (several to a response); n_items_refused, n_items_over_refusal and
-- n_items_under_refusal count responses with at least one form saying so, the counts to set beside n_items.
with

ratings as (
    -- in the week of the response they judge: a hybrid review in its judge form's week (int_safety_ratings_placed)
    select * from {{ ref('int_safety_ratings_placed') }}
    where dimension in ('refusal_observed', 'refusal_appropriateness')
),

per_form as (
    select
        record_id,
        item_id,
        model_id,
        rater_group,
        week_start,
        max(case when dimension = 'refusal_observed' then label end) as refusal_observed,
        max(case when dimension = 'refusal_appropriateness' then label end) as appropriateness
    from ratings
    group by record_id, item_id, model_id, rater_group, week_start
),

per_item as (
    select
        item_id,
        model_id,
        rater_group,
        week_start,
        count(*) as n_rated,
        count(case when refusal_observed = 'yes' then 1 end) as n_refused,
        count(case when appropriateness = 'over_refusal' then 1 end) as n_over_refusal,
        count(case when appropriateness = 'under_refusal' then 1 end) as n_under_refusal,
        count(case when appropriateness = 'appropriate' then 1 end) as n_appropriate
    from per_form
    group by item_id, model_id, rater_group, week_start
),

item_shares as (
    select
        *,
        {{ safe_divide('n_refused', 'n_rated') }} as refused_share,
        {{ safe_divide('n_over_refusal', 'n_rated') }} as over_refusal_share,
        {{ safe_divide('n_under_refusal', 'n_rated') }} as under_refusal_share
    from per_item
),

final as (
    select
        model_id,
        rater_group,
        week_start,
        cast(sum(n_rated) as bigint) as n_rated,
        count(*) as n_items,
        cast(sum(n_refused) as bigint) as n_refused,
        cast(sum(n_over_refusal) as bigint) as n_over_refusal,
        cast(sum(n_under_refusal) as bigint) as n_under_refusal,
        cast(sum(n_appropriate) as bigint) as n_appropriate,
        count(case when n_refused > 0 then 1 end) as n_items_refused,
        count(case when n_over_refusal > 0 then 1 end) as n_items_over_refusal,
        count(case when n_under_refusal > 0 then 1 end) as n_items_under_refusal,
        avg(refused_share) as refusal_rate,
        {{ unit_wilson_low('refused_share') }} as refusal_rate_ci_low,
        {{ unit_wilson_high('refused_share') }} as refusal_rate_ci_high,
        avg(over_refusal_share) as over_refusal_rate,
        {{ unit_wilson_low('over_refusal_share') }} as over_refusal_rate_ci_low,
        {{ unit_wilson_high('over_refusal_share') }} as over_refusal_rate_ci_high,
        avg(under_refusal_share) as under_refusal_rate,
        {{ unit_wilson_low('under_refusal_share') }} as under_refusal_rate_ci_low,
        {{ unit_wilson_high('under_refusal_share') }} as under_refusal_rate_ci_high
    from item_shares
    group by model_id, rater_group, week_start
)

select * from final
