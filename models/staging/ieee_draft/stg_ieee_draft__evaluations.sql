-- One row per draft-standard evaluation specification (one id and version), typed. Its dataset and rubrics are
-- referenced by id or embedded (both kept here as JSON); config.aggregation, where evalhouse reads the composite's
-- method (clause 4.5), is split into columns.
with

source as (
    select * from {{ source('ieee_draft', 'evaluations') }}
),

renamed as (
    select
        record_id,
        schema_version,
        {{ json_text('record_json', '$.id') }} as evaluation_id,
        {{ json_text('record_json', '$.version') }} as evaluation_version,
        {{ json_text('record_json', '$.name') }} as spec_name,
        {{ json_text('record_json', '$.description') }} as description,
        coalesce(
            {{ json_text('record_json', '$.dataset_id') }},
            {{ json_text('record_json', '$.dataset.id') }}
        ) as dataset_id,
        {{ json_text('record_json', '$.dataset_id') }} is null as is_dataset_embedded,
        {{ json_fragment('record_json', '$.dataset') }} as embedded_dataset_json,
        {{ json_fragment('record_json', '$.rubric_ids') }} as rubric_ids_json,
        {{ json_fragment('record_json', '$.rubrics') }} as embedded_rubrics_json,
        {{ json_fragment('record_json', '$.metrics') }} as metrics_json,
        {{ json_text('record_json', '$.primary_metric') }} as primary_metric,
        cast({{ json_text('record_json', '$.config.max_samples') }} as integer) as max_samples,
        {{ json_fragment('record_json', '$.config') }} as config_json,
        {{ json_text('record_json', '$.config.aggregation.method') }} as aggregation_method,
        {{ json_fragment('record_json', '$.config.aggregation.weights') }} as aggregation_weights_json,
        {{ json_fragment('record_json', '$.config.aggregation.thresholds') }} as aggregation_thresholds_json,
        cast({{ json_text('record_json', '$.config.aggregation.promotion_threshold') }} as double)
            as promotion_threshold,
        {{ json_text('record_json', '$.config.aggregation.description') }} as aggregation_description,
        source_path,
        source_line,
        record_sha256,
        file_sha256,
        ingested_at,
        batch_id
    from source
)

select * from renamed
