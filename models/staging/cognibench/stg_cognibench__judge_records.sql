-- One row per CogniBench judge record: an LLM judge's verdict on one model response to one task, with the
-- human review when there is one. Criterion scores stay as JSON here; int_ratings_unioned unnests them.
with

source as (
    select * from {{ source('cognibench', 'judge_records') }}
),

renamed as (
    select
        record_id,
        {{ json_text('record_json', '$.evaluation_id') }} as evaluation_id,
        -- task_id is an integer in real output and a string in the doc: text either way.
        {{ json_text('record_json', '$.task_id') }} as task_id,
        {{ json_text('record_json', '$.model_id') }} as model_id,
        {{ json_text('record_json', '$.response_id') }} as response_id,
        {{ json_text('record_json', '$.ideal_response_id') }} as ideal_response_id,
        {{ json_text('record_json', '$.judge_llm_model') }} as judge_model,
        {{ json_text('record_json', '$.judge_prompt_template_path') }} as judge_prompt_template_path,
        {{ json_fragment('record_json', '$.parsed_rubric_scores') }} as parsed_rubric_scores_json,
        {{ json_text('record_json', '$.aggregated_score') }} as aggregated_score,
        cast({{ json_text('record_json', '$.final_answer_verified') }} as boolean) as final_answer_verified,
        {{ json_text('record_json', '$.verification_message') }} as verification_message,
        cast({{ json_text('record_json', '$.needs_human_review') }} as boolean) as needs_human_review,
        {{ json_fragment('record_json', '$.review_reasons') }} as review_reasons_json,
        {{ json_text('record_json', '$.parsing_error') }} as parsing_error,
        {{ json_text('record_json', '$.human_review_status') }} as human_review_status,
        {{ json_text('record_json', '$.human_reviewer_id') }} as human_reviewer_id,
        {{ iso_to_utc(json_text('record_json', '$.human_review_timestamp')) }} as human_reviewed_at,
        {{ json_fragment('record_json', '$.human_corrected_scores') }} as human_corrected_scores_json,
        {{ json_text('record_json', '$.human_review_comments') }} as human_review_comments,
        {{ json_fragment('record_json', '$.structured_model_response') }} as structured_model_response_json,
        {{ json_fragment('record_json', '$.structured_ideal_response') }} as structured_ideal_response_json,
        cast({{ json_text('record_json', '$.structuring_api_calls') }} as integer) as structuring_api_calls,
        cast({{ json_text('record_json', '$.judging_api_calls') }} as integer) as judging_api_calls,
        cast({{ json_text('record_json', '$.total_time_seconds') }} as double) as total_time_seconds,
        {{ iso_to_utc(json_text('record_json', '$.created_at')) }} as created_at,
        record_json,
        source_path,
        source_line,
        record_sha256,
        file_sha256,
        ingested_at,
        batch_id
    from source
)

select * from renamed
