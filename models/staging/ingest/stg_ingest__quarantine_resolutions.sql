-- One row per refusal a run found held loaded without loading a record from its line (the file skipped whole as
-- loaded before, or the line's record found already stored): the second way a refused line is loaded later.
with

source as (
    select * from {{ source('ingest', 'quarantine_resolutions') }}
),

renamed as (
    select
        quarantine_id,
        batch_id,
        source_path,
        file_sha256,
        source_line,
        format as source_format,
        resolved_at
    from source
)

select * from renamed
