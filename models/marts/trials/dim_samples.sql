-- One row per eval sample (question): its input and reference as the instance records give them, and how
-- often it was attempted. Trials point here by (evaluation_name, sample_id).
-- The texts are those of the sample's latest trial: the latest evaluated_at, a trial with a time before one
-- without; among trials of the same time, the last by source_path, source_line and trial_id (unique), so the
-- choice is the same on every build. One aggregate (last_by, macros/portable.sql) instead of ranking every trial
-- with a window: 0.09 against 0.47 s on the benchmark's 1,010,000 trials (docs/performance.md, "dim_samples").
-- A trial is an attempt scored on one metric: a model's attempts at the sample are the trials of its most-scored
-- metric, not the sum over metrics (one response scored on three rubrics is one attempt).
-- int_trials_unioned is read where used, not through an import CTE read twice (DuckDB would copy it whole).
{%- set latest = ['evaluated_at is not null', 'evaluated_at', 'source_path', 'source_line', 'trial_id'] %}
with

metric_trials as (
    select evaluation_name, sample_id, model_id, trial_metric, count(*) as n_trials
    from {{ ref('int_trials_unioned') }}
    group by evaluation_name, sample_id, model_id, trial_metric
),

model_attempts as (
    select evaluation_name, sample_id, model_id, max(n_trials) as n_attempts
    from metric_trials
    group by evaluation_name, sample_id, model_id
),

attempts as (
    select evaluation_name, sample_id, cast(sum(n_attempts) as bigint) as n_attempts
    from model_attempts
    group by evaluation_name, sample_id
),

samples as (
    select
        evaluation_name,
        sample_id,
        {{ last_by('input_text', latest) }} as input_text,
        {{ last_by('reference_text', latest) }} as reference_text,
        count(distinct model_id) as n_models,
        count(distinct trial_metric) as n_metrics,
        min(evaluated_at) as first_evaluated_at,
        max(evaluated_at) as last_evaluated_at
    from {{ ref('int_trials_unioned') }}
    group by evaluation_name, sample_id
),

final as (
    select
        samples.evaluation_name,
        samples.sample_id,
        samples.input_text,
        samples.reference_text,
        attempts.n_attempts,
        samples.n_models,
        samples.n_metrics,
        samples.first_evaluated_at,
        samples.last_evaluated_at
    from samples
    inner join attempts
        on samples.evaluation_name = attempts.evaluation_name
        and samples.sample_id = attempts.sample_id
)

select * from final
