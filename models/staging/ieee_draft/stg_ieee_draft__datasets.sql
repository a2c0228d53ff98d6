-- One row per draft-standard dataset document (one id and version), typed. Its examples stay JSON here;
-- int_spec_examples_unnested gives one row per example.
with

source as (
    select * from {{ source('ieee_draft', 'datasets') }}
),

renamed as (
    select
        record_id,
        schema_version,
        {{ json_text('record_json', '$.id') }} as dataset_id,
        {{ json_text('record_json', '$.version') }} as dataset_version,
        {{ json_text('record_json', '$.name') }} as dataset_name,
        {{ json_text('record_json', '$.description') }} as description,
        {{ json_text('record_json', '$.license') }} as license,
        coalesce(
            {{ json_text('record_json', '$.author.name') }},
            {{ json_text('record_json', '$.author') }}
        ) as author_name,
        {{ json_fragment('record_json', '$.author') }} as author_json,
        {{ json_fragment('record_json', '$.examples') }} as examples_json,
        source_path,
        source_line,
        record_sha256,
        file_sha256,
        ingested_at,
        batch_id
    from source
)

select * from renamed
