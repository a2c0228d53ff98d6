-- One row per ADP evaluation suite, typed. Its metrics stay JSON here; int_spec_components_unioned gives one row
-- per metric.
with

source as (
    select * from {{ source('adp', 'suites') }}
),

renamed as (
    select
        record_id,
        {{ json_text('record_json', '$.id') }} as suite_id,
        {{ json_text('record_json', '$.description') }} as description,
        {{ json_fragment('record_json', '$.metrics') }} as metrics_json,
        {{ json_text('record_json', '$.scoring.combine') }} as scoring_combine,
        {{ json_fragment('record_json', '$.scoring.weights') }} as scoring_weights_json,
        cast({{ json_text('record_json', '$.promotion_threshold') }} as double) as promotion_threshold,
        source_path,
        source_line,
        byte_offset,
        record_sha256,
        file_sha256,
        ingested_at,
        batch_id
    from source
)

select * from renamed
