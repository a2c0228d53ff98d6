-- One row per lm-evaluation-harness samples line: one doc of one task through one filter, typed. The eval is the
-- task with its filter, as Every Eval Ever's converter names it (task, or task/filter when the filter is not
-- "none"). The primary metric is the first the line lists; every metric's value stays in metric_scores_json.
with

source as (
    select * from {{ source('lm_eval', 'samples') }}
),

extracted as (
    select
        *,
        {{ json_text('record_json', '$.lm_eval.task') }} as task,
        {{ json_text('record_json', '$.sample.filter') }} as filter,
        {{ json_text('record_json', '$.lm_eval.run') }} as run,
        {{ json_text('record_json', '$.lm_eval.scores[0].value') }} as primary_value,
        {{ json_fragment('record_json', '$.sample.arguments.gen_args_0.arg_1') }} as first_request_options
    from source
),

renamed as (
    select
        record_id,
        task as task_name,
        filter as filter_name,
        case when filter = 'none' then task else task || '/' || filter end as evaluation_name,
        {{ json_text('record_json', '$.sample.doc_id') }} as sample_id,
        -- The run's date id, as lm-eval wrote it in both file names: the link to the results file.
        run as run_date_id,
        -- The same date id as a time (lm-eval takes it from the clock of the machine that ran it).
        try_cast(substr(run, 1, 10) || ' ' || replace(substr(run, 12), '-', ':') as timestamp) as run_started_at,
        {{ json_text('record_json', '$.lm_eval.output_folder') }} as output_folder,
        regexp_extract(source_path, '^(.*)/[^/]*$', 1) as folder_path,
        {{ json_text('record_json', '$.lm_eval.scores[0].metric') }} as primary_metric,
        case
            when lower(primary_value) = 'true' then 1.0
            when lower(primary_value) = 'false' then 0.0
            -- Text a cast would read as a non-finite number stays unscored (never NaN downstream).
            when lower(primary_value) in ('nan', '-nan', 'inf', '-inf', 'infinity', '-infinity', '+infinity') then null
            else try_cast(primary_value as double)
        end as primary_score,
        {{ json_fragment('record_json', '$.lm_eval.scores') }} as metric_scores_json,
        {{ json_text('record_json', '$.sample.arguments.gen_args_0.arg_0') }} as input_text,
        {{ json_text('record_json', '$.sample.target') }} as reference_text,
        -- A generation request carries its options (an object); a loglikelihood request (multiple choice) carries
        -- the continuation it scores instead, and its answer is the choice with the highest log-likelihood.
        case when substr(first_request_options, 1, 1) = '{' then 'generate_until' else 'loglikelihood' end as request_type,
        case
            when substr(first_request_options, 1, 1) = '{'
                then coalesce(
                    {{ json_text('record_json', '$.sample.filtered_resps[0][0]') }},
                    {{ json_text('record_json', '$.sample.filtered_resps[0]') }}
                )
        end as output_text,
        {{ json_text('record_json', '$.sample.doc_hash') }} as doc_hash,
        {{ json_text('record_json', '$.sample.prompt_hash') }} as prompt_hash,
        {{ json_text('record_json', '$.sample.target_hash') }} as target_hash,
        source_path,
        source_line,
        record_sha256,
        file_sha256,
        ingested_at,
        batch_id
    from extracted
)

select * from renamed
