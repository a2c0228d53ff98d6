-- One row per file per ingest run that loaded it: what each file contributed, per format, and how it went.
with

files as (
    select * from {{ ref('stg_ingest__files') }}
),

final as (
    select
        batch_id,
        source_path,
        file_sha256,
        file_bytes,
        status,
        message,
        n_lines,
        n_blank_lines,
        n_accepted,
        n_repaired,
        n_quarantined,
        n_skipped,
        accepted_by_format_json,
        was_strict,
        forced_format,
        started_at,
        finished_at,
        duration_ms,
        {{ week_start('finished_at') }} as week_start
    from files
)

select * from final
