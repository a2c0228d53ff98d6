-- One row per Inspect AI log: its header (the eval, the model, the config, the reported results), typed. The
-- reported results stay JSON here; int_inspect_results_unnested gives one row per scorer and metric.
with

source as (
    select * from {{ source('inspect_ai', 'logs') }}
),

renamed as (
    select
        record_id,
        schema_version as log_format_version,
        {{ json_text('record_json', '$.status') }} as log_status,
        {{ json_text('record_json', '$.eval.eval_id') }} as eval_id,
        {{ json_text('record_json', '$.eval.run_id') }} as eval_run_id,
        {{ json_text('record_json', '$.eval.task_id') }} as task_id,
        -- One run per log: several tasks of one `inspect eval` share eval.run_id, each has its own eval_id (older
        -- logs have none: their run id and task id together name the log).
        coalesce(
            {{ json_text('record_json', '$.eval.eval_id') }},
            {{ json_text('record_json', '$.eval.run_id') }} || '/' || {{ json_text('record_json', '$.eval.task_id') }},
            record_id
        ) as run_id,
        {{ json_text('record_json', '$.eval.task') }} as task_name,
        {{ json_text('record_json', '$.eval.task_version') }} as task_version,
        {{ json_text('record_json', '$.eval.model') }} as model_id,
        {{ iso_to_utc(json_text('record_json', '$.eval.created')) }} as created_at,
        {{ iso_to_utc(json_text('record_json', '$.stats.started_at')) }} as started_at,
        {{ iso_to_utc(json_text('record_json', '$.stats.completed_at')) }} as completed_at,
        cast({{ json_text('record_json', '$.eval.config.epochs') }} as integer) as epochs,
        {{ json_text('record_json', '$.eval.dataset.name') }} as dataset_name,
        cast({{ json_text('record_json', '$.eval.dataset.samples') }} as bigint) as dataset_samples,
        {{ json_text('record_json', '$.eval.packages.inspect_ai') }} as inspect_version,
        -- The scorer whose value is a trial's score: the first the log reports results for, else the first declared.
        coalesce(
            {{ json_text('record_json', '$.results.scores[0].scorer') }},
            {{ json_text('record_json', '$.results.scores[0].name') }},
            {{ json_text('record_json', '$.eval.scorers[0].name') }}
        ) as primary_scorer,
        cast({{ json_text('record_json', '$.results.total_samples') }} as bigint) as total_samples,
        cast({{ json_text('record_json', '$.results.completed_samples') }} as bigint) as completed_samples,
        {{ json_fragment('record_json', '$.results.scores') }} as results_scores_json,
        {{ json_fragment('record_json', '$.stats.model_usage') }} as model_usage_json,
        {{ json_text('record_json', '$.error.message') }} as error_message,
        source_path,
        source_line,
        record_sha256,
        file_sha256,
        ingested_at,
        batch_id
    from source
)

select * from renamed
