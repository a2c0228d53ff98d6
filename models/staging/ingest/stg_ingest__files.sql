-- One row per file per ingest run that loaded, emptied or failed it (re-runs of unchanged files add no row).
with

source as (
    select * from {{ source('ingest', 'ingest_files') }}
),

renamed as (
    select
        batch_id,
        source_path,
        file_sha256,
        file_bytes,
        status,
        message,
        n_lines,
        n_blank as n_blank_lines,
        n_accepted,
        n_repaired,
        n_quarantined,
        n_skipped,
        cast(accepted_by_format as varchar) as accepted_by_format_json,
        strict as was_strict,
        forced_format,
        started_at,
        finished_at,
        duration_ms
    from source
)

select * from renamed
