-- One row per lm-evaluation-harness results file: one run of one model on one or more tasks, typed. The reported
-- metrics stay JSON here; int_lm_eval_results_unnested gives one row per task, metric and filter.
with

source as (
    select * from {{ source('lm_eval', 'results') }}
),

extracted as (
    select
        *,
        {{ json_text('record_json', '$.config.model_args') }} as model_args,
        -- lm-eval names the model in model_args (pretrained=...), as text or as an object.
        coalesce(
            {{ json_text('record_json', '$.config.model_args.pretrained') }},
            nullif(regexp_extract({{ json_text('record_json', '$.config.model_args') }}, '(^|,)pretrained=([^,]+)', 2), ''),
            {{ json_text('record_json', '$.model_name') }},
            {{ json_text('record_json', '$.config.model') }}
        ) as model
    from source
),

renamed as (
    select
        record_id,
        -- The run's date id from the file name (results_<date>.json): the link to its samples files.
        regexp_extract(source_path, 'results_([^/]*)[.]json$', 1) as run_date_id,
        regexp_extract(source_path, '^(.*)/[^/]*$', 1) as folder_path,
        model as model_id,
        model || '@' || regexp_extract(source_path, 'results_([^/]*)[.]json$', 1) as run_id,
        {{ json_text('record_json', '$.model_name') }} as model_name,
        {{ json_text('record_json', '$.config.model') }} as model_backend,
        model_args,
        {{ epoch_to_utc(json_text('record_json', '$.date')) }} as evaluated_at,
        {{ json_text('record_json', '$.lm_eval_version') }} as lm_eval_version,
        {{ json_fragment('record_json', '$.results') }} as results_json,
        {{ json_fragment('record_json', '$.n-samples') }} as n_samples_json,
        {{ json_fragment('record_json', '$.higher_is_better') }} as higher_is_better_json,
        source_path,
        source_line,
        record_sha256,
        file_sha256,
        ingested_at,
        batch_id
    from extracted
)

select * from renamed
