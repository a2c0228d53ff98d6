-- One row per Every Eval Ever instance-level record: one model's answer to one sample of one eval, typed.
-- Versions differ in shape (0.2.0 `interactions` and string fields; 0.2.1+ `messages` and lists): both read here.
with

source as (
    select * from {{ source('every_eval_ever', 'instances') }}
),

renamed as (
    select
        record_id,
        schema_version,
        {{ json_text('record_json', '$.evaluation_id') }} as evaluation_id,
        {{ json_text('record_json', '$.evaluation_result_id') }} as evaluation_result_id,
        {{ json_text('record_json', '$.evaluation_name') }} as evaluation_name,
        {{ json_text('record_json', '$.model_id') }} as model_id,
        {{ json_text('record_json', '$.sample_id') }} as sample_id,
        {{ json_text('record_json', '$.sample_hash') }} as sample_hash,
        {{ json_text('record_json', '$.interaction_type') }} as interaction_type,
        {{ json_text('record_json', '$.input.raw') }} as input_raw,
        coalesce(
            {{ json_text('record_json', '$.input.reference[0]') }},
            {{ json_text('record_json', '$.input.reference') }}
        ) as input_reference,
        {{ json_fragment('record_json', '$.input.reference') }} as input_reference_json,
        {{ json_fragment('record_json', '$.input.choices') }} as input_choices_json,
        coalesce(
            {{ json_text('record_json', '$.output.raw[0]') }},
            {{ json_text('record_json', '$.output.raw') }}
        ) as output_text,
        {{ json_fragment('record_json', '$.output.raw') }} as output_raw_json,
        coalesce(
            {{ json_fragment('record_json', '$.messages') }},
            {{ json_fragment('record_json', '$.interactions') }}
        ) as transcript_json,
        case lower({{ json_text('record_json', '$.evaluation.score') }})
            when 'true' then 1.0
            when 'false' then 0.0
            else cast({{ json_text('record_json', '$.evaluation.score') }} as double)
        end as score,
        cast({{ json_text('record_json', '$.evaluation.is_correct') }} as boolean) as is_correct,
        cast({{ json_text('record_json', '$.evaluation.num_turns') }} as integer) as num_turns,
        cast({{ json_text('record_json', '$.evaluation.tool_calls_count') }} as integer) as tool_calls_count,
        cast({{ json_text('record_json', '$.token_usage.input_tokens') }} as bigint) as input_tokens,
        cast({{ json_text('record_json', '$.token_usage.output_tokens') }} as bigint) as output_tokens,
        cast({{ json_text('record_json', '$.token_usage.total_tokens') }} as bigint) as total_tokens,
        cast({{ json_text('record_json', '$.performance.latency_ms') }} as double) as latency_ms,
        cast({{ json_text('record_json', '$.performance.generation_time_ms') }} as double) as generation_time_ms,
        {{ json_text('record_json', '$.error') }} as error,
        -- The schema has no trial field: harnesses number repeated trials in metadata (trial or epoch).
        try_cast(
            coalesce(
                {{ json_text('record_json', '$.metadata.trial') }},
                {{ json_text('record_json', '$.metadata.epoch') }}
            ) as integer
        ) as trial_number,
        {{ json_text('record_json', '$.metadata.suite_id') }} as metadata_suite_id,
        {{ json_text('record_json', '$.metadata.metric_id') }} as metadata_metric_id,
        {{ json_text('record_json', '$.metadata.rubric_id') }} as metadata_rubric_id,
        {{ json_fragment('record_json', '$.metadata') }} as metadata_json,
        repairs as repairs_json,
        source_path,
        source_line,
        record_sha256,
        file_sha256,
        ingested_at,
        batch_id
    from source
)

select * from renamed
