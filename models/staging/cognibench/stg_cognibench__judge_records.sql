-- One row per CogniBench judge record: an LLM judge's verdict on one model response to one task, with the
-- human review when there is one. Criterion scores stay as JSON here; int_ratings_unioned unnests them.
-- Parsed once, appended to by ingest batch (raw rows are never updated).
{{ config(materialized='incremental', incremental_strategy='append', on_schema_change='fail') }}

{%- set spec = {
    'evaluation_id': 'varchar',
    'task_id': 'varchar',
    'model_id': 'varchar',
    'response_id': 'varchar',
    'ideal_response_id': 'varchar',
    'judge_llm_model': 'varchar',
    'judge_prompt_template_path': 'varchar',
    'parsed_rubric_scores': 'json',
    'aggregated_score': 'varchar',
    'final_answer_verified': 'boolean',
    'verification_message': 'varchar',
    'needs_human_review': 'boolean',
    'review_reasons': 'json',
    'parsing_error': 'varchar',
    'human_review_status': 'varchar',
    'human_reviewer_id': 'varchar',
    'human_review_timestamp': 'varchar',
    'human_corrected_scores': 'json',
    'human_review_comments': 'varchar',
    'structured_model_response': 'json',
    'structured_ideal_response': 'json',
    'structuring_api_calls': 'integer',
    'judging_api_calls': 'integer',
    'total_time_seconds': 'double',
    'created_at': 'varchar',
} %}

with

source as (
    select * from {{ source('cognibench', 'judge_records') }}
    {% if is_incremental() %}
    where {{ unread_batches(source('cognibench', 'judge_records')) }}
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
        r.evaluation_id,
        -- task_id is an integer in real output and a string in the doc: text either way.
        r.task_id,
        r.model_id,
        r.response_id,
        r.ideal_response_id,
        r.judge_llm_model as judge_model,
        r.judge_prompt_template_path,
        r.parsed_rubric_scores as parsed_rubric_scores_json,
        r.aggregated_score,
        r.final_answer_verified,
        r.verification_message,
        r.needs_human_review,
        r.review_reasons as review_reasons_json,
        r.parsing_error,
        r.human_review_status,
        r.human_reviewer_id,
        {{ iso_to_utc('r.human_review_timestamp') }} as human_reviewed_at,
        r.human_corrected_scores as human_corrected_scores_json,
        r.human_review_comments,
        r.structured_model_response as structured_model_response_json,
        r.structured_ideal_response as structured_ideal_response_json,
        r.structuring_api_calls,
        r.judging_api_calls,
        r.total_time_seconds,
        {{ iso_to_utc('r.created_at') }} as created_at,
        record_json,
        source_path,
        source_line,
        record_sha256,
        file_sha256,
        ingested_at,
        batch_id
    from parsed
)

select * from renamed
