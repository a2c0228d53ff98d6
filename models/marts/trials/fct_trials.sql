-- One row per trial: one attempt of one model on one sample of one eval, scored on one metric (a response scored on
-- three rubrics is three rows sharing a trial_index), from every source, with the file and line it came from. A
-- view: the same rows as int_trials_unioned, without the inputs and references (dim_samples holds those once per
-- sample).
{{ config(materialized='view') }}
with

trials as (
    select * from {{ ref('int_trials_unioned') }}
),

final as (
    select
        trial_id,
        source_format,
        run_id,
        evaluation_id,
        evaluation_name,
        source_evaluation_name,
        model_id,
        sample_id,
        trial_metric,
        trial_index,
        trial_number,
        score,
        is_correct,
        input_tokens,
        output_tokens,
        latency_ms,
        evaluated_at,
        evaluated_at_source,
        week_start,
        interaction_type,
        output_text,
        metadata_suite_id as suite_id,
        metadata_metric_id as metric_id,
        metadata_rubric_id as rubric_id,
        source_path,
        source_line
    from trials
)

select * from final
