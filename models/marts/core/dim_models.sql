-- One row per model that has trials or ratings: who made it, when it was first and last seen, how much data.
-- n_trials counts rows of fct_trials (one per attempt and metric); n_attempts counts attempts as dim_samples does (a
-- response scored on three rubrics is three trials and one attempt), so the two dims add up to the same attempts.
-- int_trials_unioned is read where used, not through an import CTE read twice (DuckDB would copy it whole).
with

ratings as (
    select model_id, rated_at from {{ ref('int_ratings_counted') }}
),

developers as (
    -- The developer the producers' aggregate records name, when they name one.
    select model_id, min(model_developer) as developer
    from {{ ref('stg_every_eval_ever__aggregates') }}
    where model_developer is not null
    group by model_id
),

trial_counts as (
    select model_id, count(*) as n_trials, min(evaluated_at) as first_at, max(evaluated_at) as last_at
    from {{ ref('int_trials_unioned') }}
    group by model_id
),

metric_trials as (
    select model_id, evaluation_name, sample_id, trial_metric, count(*) as n_trials
    from {{ ref('int_trials_unioned') }}
    group by model_id, evaluation_name, sample_id, trial_metric
),

sample_attempts as (
    -- A model's attempts at a sample are the trials of its most-scored metric there, not their sum over metrics.
    select model_id, evaluation_name, sample_id, max(n_trials) as n_attempts
    from metric_trials
    group by model_id, evaluation_name, sample_id
),

attempt_counts as (
    select model_id, cast(sum(n_attempts) as bigint) as n_attempts
    from sample_attempts
    group by model_id
),

rating_counts as (
    select model_id, count(*) as n_ratings, min(rated_at) as first_at, max(rated_at) as last_at
    from ratings
    group by model_id
),

models as (
    select model_id from trial_counts
    union
    select model_id from rating_counts
),

final as (
    select
        models.model_id,
        coalesce(
            developers.developer,
            case when models.model_id like '%/%' then split_part(models.model_id, '/', 1) end
        ) as developer,
        case
            when developers.developer is not null then 'aggregate_record'
            when models.model_id like '%/%' then 'model_id_prefix'
        end as developer_source,
        -- least/greatest skip NULLs on both engines: a model with only trials or only ratings keeps its dates.
        least(trial_counts.first_at, rating_counts.first_at) as first_seen_at,
        greatest(trial_counts.last_at, rating_counts.last_at) as last_seen_at,
        coalesce(trial_counts.n_trials, 0) as n_trials,
        coalesce(attempt_counts.n_attempts, 0) as n_attempts,
        coalesce(rating_counts.n_ratings, 0) as n_ratings
    from models
    left join developers on models.model_id = developers.model_id
    left join trial_counts on models.model_id = trial_counts.model_id
    left join attempt_counts on models.model_id = attempt_counts.model_id
    left join rating_counts on models.model_id = rating_counts.model_id
    where models.model_id is not null
)

select * from final
