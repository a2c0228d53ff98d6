-- One row per Every Eval Ever aggregate record: one eval run of one model, with its reported results still
-- nested (int_benchmark_results_unnested gives one row per result).
with

source as (
    select * from {{ source('every_eval_ever', 'aggregates') }}
),

renamed as (
    select
        record_id,
        schema_version,
        {{ json_text('record_json', '$.evaluation_id') }} as evaluation_id,
        {{ epoch_to_utc(json_text('record_json', '$.evaluation_timestamp')) }} as evaluated_at,
        {{ epoch_to_utc(json_text('record_json', '$.retrieved_timestamp')) }} as retrieved_at,
        {{ json_text('record_json', '$.model_info.id') }} as model_id,
        {{ json_text('record_json', '$.model_info.name') }} as model_name,
        {{ json_text('record_json', '$.model_info.developer') }} as model_developer,
        {{ json_text('record_json', '$.source_metadata.source_name') }} as source_name,
        {{ json_text('record_json', '$.source_metadata.source_type') }} as source_type,
        {{ json_text('record_json', '$.source_metadata.source_organization_name') }} as source_organization,
        {{ json_text('record_json', '$.source_metadata.evaluator_relationship') }} as evaluator_relationship,
        {{ json_fragment('record_json', '$.evaluation_results') }} as evaluation_results_json,
        {{ json_text('record_json', '$.detailed_evaluation_results.file_path') }} as instance_file_path,
        {{ json_text('record_json', '$.detailed_evaluation_results.checksum') }} as instance_file_checksum,
        {{ json_text('record_json', '$.detailed_evaluation_results.hash_algorithm') }} as instance_file_hash_algorithm,
        cast({{ json_text('record_json', '$.detailed_evaluation_results.total_rows') }} as bigint) as instance_file_rows,
        source_path,
        source_line,
        record_sha256,
        file_sha256,
        ingested_at,
        batch_id
    from source
)

select * from renamed
