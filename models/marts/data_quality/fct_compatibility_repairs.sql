-- One row per file, format and compatibility repair: which real-world deviations each file needed repaired.
with

repairs as (
    select * from {{ ref('stg_ingest__repairs') }}
),

files as (
    select batch_id, source_path, file_sha256, n_accepted, finished_at from {{ ref('stg_ingest__files') }}
),

final as (
    select
        repairs.source_path,
        repairs.file_sha256,
        repairs.batch_id,
        repairs.source_format,
        repairs.repair,
        repairs.n_records,
        files.n_accepted as n_accepted_in_file,
        cast(repairs.n_records as double) / nullif(files.n_accepted, 0) as share_of_accepted,
        files.finished_at as ingested_at
    from repairs
    inner join files
        on repairs.batch_id = files.batch_id
        and repairs.source_path = files.source_path
        and repairs.file_sha256 = files.file_sha256
)

select * from final
