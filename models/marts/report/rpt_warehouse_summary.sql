-- One row: what the warehouse holds and over which span, for the weekly report's header. Present (with zero
-- counts and NULL dates) even when the warehouse is empty, so the report can say so.
with

trials as (
    select * from {{ ref('fct_trials') }}
),

ratings as (
    select * from {{ ref('fct_ratings') }}
),

ingested_files as (
    select * from {{ ref('fct_ingested_files') }}
),

quarantined_lines as (
    select * from {{ ref('fct_quarantined_lines') }}
),

trial_span as (
    select
        count(*) as n_trials,
        count(distinct model_id) as n_models_evaluated,
        count(distinct evaluation_name) as n_evals,
        min(evaluated_at) as first_evaluated_at,
        max(evaluated_at) as last_evaluated_at,
        min(week_start) as first_trial_week_start,
        max(week_start) as last_trial_week_start
    from trials
),

-- An attempt is one model's answer to one sample; a trial is an attempt scored on one metric.
attempts as (
    select count(*) as n_attempts
    from (select distinct evaluation_name, model_id, sample_id, trial_index from trials) as distinct_attempts
),

rating_span as (
    select
        count(*) as n_ratings,
        count(distinct item_id) as n_rated_items,
        count(distinct rater_id) as n_raters,
        min(rated_at) as first_rated_at,
        max(rated_at) as last_rated_at,
        min(week_start) as first_rating_week_start,
        max(week_start) as last_rating_week_start
    from ratings
),

file_counts as (
    select
        count(distinct case when status = 'loaded' then source_path end) as n_files_loaded,
        cast(coalesce(sum(case when status = 'loaded' then n_accepted end), 0) as bigint) as n_records_loaded,
        max(finished_at) as last_ingested_at
    from ingested_files
),

quarantine_counts as (
    select count(*) as n_quarantined_lines
    from quarantined_lines
),

final as (
    select
        case
            when trial_span.first_trial_week_start is null then rating_span.first_rating_week_start
            when rating_span.first_rating_week_start is null then trial_span.first_trial_week_start
            when trial_span.first_trial_week_start < rating_span.first_rating_week_start
                then trial_span.first_trial_week_start
            else rating_span.first_rating_week_start
        end as first_week_start,
        case
            when trial_span.last_trial_week_start is null then rating_span.last_rating_week_start
            when rating_span.last_rating_week_start is null then trial_span.last_trial_week_start
            when trial_span.last_trial_week_start > rating_span.last_rating_week_start
                then trial_span.last_trial_week_start
            else rating_span.last_rating_week_start
        end as last_week_start,
        trial_span.first_evaluated_at,
        trial_span.last_evaluated_at,
        rating_span.first_rated_at,
        rating_span.last_rated_at,
        trial_span.n_trials,
        attempts.n_attempts,
        trial_span.n_models_evaluated,
        trial_span.n_evals,
        rating_span.n_ratings,
        rating_span.n_rated_items,
        rating_span.n_raters,
        file_counts.n_files_loaded,
        file_counts.n_records_loaded,
        file_counts.last_ingested_at,
        quarantine_counts.n_quarantined_lines
    from trial_span
    cross join attempts
    cross join rating_span
    cross join file_counts
    cross join quarantine_counts
)

select * from final
