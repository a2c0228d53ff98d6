-- One row per eval sample (question): its input and reference as the instance records give them, and how
-- often it was attempted. Trials point here by (evaluation_name, sample_id).
-- The texts are those of the sample's latest trial: the latest evaluated_at, a trial with a time before one
-- without; among trials of the same time, the last by source_path, source_line and trial_id (unique), so the
-- choice is the same on every build. One aggregate (last_by, macros/portable.sql) instead of ranking every trial
-- with a window: 0.09 against 0.47 s on the benchmark's 1,010,000 trials (docs/performance.md, "dim_samples").
{%- set latest = ['evaluated_at is not null', 'evaluated_at', 'source_path', 'source_line', 'trial_id'] %}
with

final as (
    select
        evaluation_name,
        sample_id,
        {{ last_by('input_text', latest) }} as input_text,
        {{ last_by('reference_text', latest) }} as reference_text,
        count(*) as n_trials,
        count(distinct model_id) as n_models,
        min(evaluated_at) as first_evaluated_at,
        max(evaluated_at) as last_evaluated_at
    from {{ ref('int_trials_unioned') }}
    group by evaluation_name, sample_id
)

select * from final
