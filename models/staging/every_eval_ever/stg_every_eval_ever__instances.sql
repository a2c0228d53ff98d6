-- One row per Every Eval Ever instance-level record: one model's answer to one sample of one eval, typed.
-- Versions differ in shape (0.2.0 `interactions` and string fields; 0.2.1+ `messages` and lists): both read here.
-- Each record's JSON is parsed once (json_to_struct), and the table is appended to by ingest batch: raw rows are
-- never updated, so a record is parsed the build after it is ingested and never again.
{{ config(materialized='incremental', incremental_strategy='append', on_schema_change='fail') }}

{%- set spec = {
    'evaluation_id': 'varchar',
    'evaluation_result_id': 'varchar',
    'evaluation_name': 'varchar',
    'model_id': 'varchar',
    'sample_id': 'varchar',
    'sample_hash': 'varchar',
    'interaction_type': 'varchar',
    'input': {'raw': 'varchar', 'reference': 'json', 'choices': 'json'},
    'output': {'raw': 'json'},
    'messages': 'json',
    'interactions': 'json',
    'evaluation': {'score': 'double', 'is_correct': 'boolean', 'num_turns': 'integer', 'tool_calls_count': 'integer'},
    'token_usage': {'input_tokens': 'json', 'output_tokens': 'json', 'total_tokens': 'json'},
    'performance': {'latency_ms': 'double', 'generation_time_ms': 'double'},
    'error': 'varchar',
    'metadata': {'trial': 'varchar', 'epoch': 'varchar', 'suite_id': 'varchar', 'metric_id': 'varchar',
                 'rubric_id': 'varchar'},
} %}

with

source as (
    select * from {{ source('every_eval_ever', 'instances') }}
    {% if is_incremental() %}
    where {{ unread_batches(source('every_eval_ever', 'instances')) }}
    {% endif %}
),

parsed as (
    select
        source.*,
        {{ json_to_struct('record_json', spec) }} as r
    from source
),

renamed as (
    select
        record_id,
        schema_version,
        r.evaluation_id,
        r.evaluation_result_id,
        r.evaluation_name,
        r.model_id,
        r.sample_id,
        r.sample_hash,
        r.interaction_type,
        r.input.raw as input_raw,
        -- A string in 0.2.0, a list of accepted answers from 0.2.1: the first one (NULL for an empty list).
        {{ json_value_or_first('r.input.reference') }} as input_reference,
        r.input.reference as input_reference_json,
        r.input.choices as input_choices_json,
        {{ json_value_or_first('r.output.raw') }} as output_text,
        r.output.raw as output_raw_json,
        coalesce(r.messages, r.interactions) as transcript_json,
        -- A boolean score (0.2.0 allows it) reads as 1.0 or 0.0.
        r.evaluation.score as score,
        r.evaluation.is_correct as is_correct,
        r.evaluation.num_turns as num_turns,
        r.evaluation.tool_calls_count as tool_calls_count,
        -- The schema allows any integer; a count bigint cannot hold (10^20) is NULL here, and flagged.
        try_cast(r.token_usage.input_tokens as bigint) as input_tokens,
        try_cast(r.token_usage.output_tokens as bigint) as output_tokens,
        try_cast(r.token_usage.total_tokens as bigint) as total_tokens,
        coalesce(
            (r.token_usage.input_tokens is not null and try_cast(r.token_usage.input_tokens as bigint) is null)
            or (r.token_usage.output_tokens is not null and try_cast(r.token_usage.output_tokens as bigint) is null)
            or (r.token_usage.total_tokens is not null and try_cast(r.token_usage.total_tokens as bigint) is null),
            false
        ) as token_count_unreadable,
        r.performance.latency_ms as latency_ms,
        r.performance.generation_time_ms as generation_time_ms,
        r.error,
        -- The schema has no trial field: harnesses number repeated trials in metadata (trial or epoch).
        try_cast(coalesce(r.metadata.trial, r.metadata.epoch) as integer) as trial_number,
        r.metadata.suite_id as metadata_suite_id,
        r.metadata.metric_id as metadata_metric_id,
        r.metadata.rubric_id as metadata_rubric_id,
        repairs as repairs_json,
        source_path,
        source_line,
        record_sha256,
        file_sha256,
        ingested_at,
        batch_id
    from parsed
)

select * from renamed
