-- One row per line (or whole file) the ingester refused, with where it is, why, and its original text.
with

source as (
    select * from {{ source('ingest', 'quarantine') }}
),

renamed as (
    select
        quarantine_id,
        source_path,
        source_line,
        byte_offset,
        format as source_format,
        schema_version,
        error_kind,
        error_pointer,
        error_message,
        raw_text,
        raw_text_truncated,
        raw_sha256,
        file_sha256,
        batch_id,
        quarantined_at
    from source
)

select * from renamed
