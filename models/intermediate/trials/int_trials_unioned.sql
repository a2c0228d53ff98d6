-- One row per scored attempt, from every source that has them: Every Eval Ever instance records, CogniBench
-- judge records (whose outcomes are final_answer_verified and aggregated_score), Inspect AI samples (one trial per
-- epoch) and lm-evaluation-harness samples lines (one trial per doc and filter). trial_index numbers the
-- attempts of one model on one sample of one eval (1, 2, ... in time order): the trials pass@k counts.
-- Eval names are made canonical through the seed evaluation_aliases (source_evaluation_name keeps the original).
with

instances as (
    select * from {{ ref('stg_every_eval_ever__instances') }}
),

links as (
    select * from {{ ref('int_instance_files_linked') }}
),

judge_records as (
    select * from {{ ref('stg_cognibench__judge_records') }}
),

inspect_samples as (
    select * from {{ ref('int_inspect_trials_joined') }}
),

lm_eval_samples as (
    select * from {{ ref('int_lm_eval_trials_joined') }}
),

aliases as (
    select * from {{ ref('evaluation_aliases') }}
),

aggregate_labels as (
    select label, score_value from {{ ref('score_label_map') }} where scale = 'cognibench_aggregate'
),

instance_trials as (
    select
        instances.record_id as trial_id,
        'eee_instance' as source_format,
        links.run_id,
        instances.evaluation_id,
        -- One name per eval: producers name the same eval differently (the seed evaluation_aliases says how).
        coalesce(aliases.evaluation_name, instances.evaluation_name) as evaluation_name,
        instances.evaluation_name as source_evaluation_name,
        instances.model_id,
        instances.sample_id,
        instances.trial_number,
        instances.score,
        instances.is_correct,
        instances.input_tokens,
        instances.output_tokens,
        instances.latency_ms,
        links.evaluated_at,
        links.evaluated_at_source,
        instances.interaction_type,
        instances.input_raw as input_text,
        instances.input_reference as reference_text,
        instances.output_text,
        instances.metadata_suite_id,
        instances.metadata_metric_id,
        instances.metadata_rubric_id,
        instances.source_path,
        instances.source_line
    from instances
    left join links
        on instances.source_path = links.source_path
        and instances.file_sha256 = links.file_sha256
        and instances.evaluation_id = links.evaluation_id
        and instances.model_id = links.model_id
    left join aliases on instances.evaluation_name = aliases.alias
),

judge_trials as (
    select
        judge_records.record_id as trial_id,
        'cognibench' as source_format,
        -- CogniBench writes no run id: a week of one judge prompt is treated as one run.
        'cognibench/'
        || regexp_extract(judge_records.judge_prompt_template_path, '([^/]+?)(\.[a-z]+)?$', 1)
        || '@' || cast({{ week_start('judge_records.created_at') }} as varchar) as run_id,
        cast(null as varchar) as evaluation_id,
        'cognibench/'
        || regexp_extract(judge_records.judge_prompt_template_path, '([^/]+?)(\.[a-z]+)?$', 1) as evaluation_name,
        'cognibench/'
        || regexp_extract(judge_records.judge_prompt_template_path, '([^/]+?)(\.[a-z]+)?$', 1)
            as source_evaluation_name,
        judge_records.model_id,
        judge_records.task_id as sample_id,
        cast(null as integer) as trial_number,
        aggregate_labels.score_value as score,
        judge_records.final_answer_verified as is_correct,
        cast(null as bigint) as input_tokens,
        cast(null as bigint) as output_tokens,
        cast(null as double) as latency_ms,
        judge_records.created_at as evaluated_at,
        'record' as evaluated_at_source,
        'single_turn' as interaction_type,
        cast(null as varchar) as input_text,
        cast(null as varchar) as reference_text,
        cast(null as varchar) as output_text,
        cast(null as varchar) as metadata_suite_id,
        cast(null as varchar) as metadata_metric_id,
        cast(null as varchar) as metadata_rubric_id,
        judge_records.source_path,
        judge_records.source_line
    from judge_records
    left join aggregate_labels on lower(judge_records.aggregated_score) = aggregate_labels.label
),

inspect_trials as (
    select
        inspect_samples.trial_id,
        'inspect_sample' as source_format,
        inspect_samples.run_id,
        inspect_samples.eval_id as evaluation_id,
        coalesce(aliases.evaluation_name, inspect_samples.task_name) as evaluation_name,
        inspect_samples.task_name as source_evaluation_name,
        inspect_samples.model_id,
        inspect_samples.sample_id,
        inspect_samples.epoch as trial_number,
        inspect_samples.score,
        inspect_samples.is_correct,
        inspect_samples.input_tokens,
        inspect_samples.output_tokens,
        inspect_samples.latency_ms,
        inspect_samples.evaluated_at,
        'record' as evaluated_at_source,
        inspect_samples.interaction_type,
        inspect_samples.input_text,
        inspect_samples.reference_text,
        inspect_samples.output_text,
        cast(null as varchar) as metadata_suite_id,
        cast(null as varchar) as metadata_metric_id,
        cast(null as varchar) as metadata_rubric_id,
        inspect_samples.source_path,
        inspect_samples.source_line
    from inspect_samples
    left join aliases on inspect_samples.task_name = aliases.alias
),

lm_eval_trials as (
    select
        lm_eval_samples.trial_id,
        'lm_eval_sample' as source_format,
        lm_eval_samples.run_id,
        cast(null as varchar) as evaluation_id,
        coalesce(aliases.evaluation_name, lm_eval_samples.evaluation_name) as evaluation_name,
        lm_eval_samples.evaluation_name as source_evaluation_name,
        lm_eval_samples.model_id,
        lm_eval_samples.sample_id,
        -- One line per doc and filter: lm-eval numbers no attempts (repeats are collapsed by the filter).
        cast(null as integer) as trial_number,
        lm_eval_samples.score,
        lm_eval_samples.is_correct,
        cast(null as bigint) as input_tokens,
        cast(null as bigint) as output_tokens,
        cast(null as double) as latency_ms,
        lm_eval_samples.evaluated_at,
        lm_eval_samples.evaluated_at_source,
        'single_turn' as interaction_type,
        lm_eval_samples.input_text,
        lm_eval_samples.reference_text,
        lm_eval_samples.output_text,
        cast(null as varchar) as metadata_suite_id,
        cast(null as varchar) as metadata_metric_id,
        cast(null as varchar) as metadata_rubric_id,
        lm_eval_samples.source_path,
        lm_eval_samples.source_line
    from lm_eval_samples
    left join aliases on lm_eval_samples.evaluation_name = aliases.alias
),

unioned as (
    select * from instance_trials
    union all
    select * from judge_trials
    union all
    select * from inspect_trials
    union all
    select * from lm_eval_trials
),

final as (
    select
        *,
        row_number() over (
            partition by evaluation_name, model_id, sample_id
            order by evaluated_at, run_id, trial_number, source_path, source_line
        ) as trial_index,
        {{ week_start('evaluated_at') }} as week_start
    from unioned
)

select * from final
