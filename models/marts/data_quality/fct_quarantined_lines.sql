-- One row per refused line: where it is, which format it claimed, why it was refused, and its original text.
with

quarantined as (
    select * from {{ ref('stg_ingest__quarantined_lines') }}
),

final as (
    select
        quarantine_id,
        source_path,
        source_line,
        byte_offset,
        coalesce(format, 'unknown') as format,
        schema_version,
        error_kind,
        error_pointer,
        error_message,
        raw_text,
        raw_text_truncated,
        batch_id,
        quarantined_at,
        {{ week_start('quarantined_at') }} as week_start
    from quarantined
)

select * from final
