-- One row per file, format and compatibility repair: how many records of that file needed that repair.
with

source as (
    select * from {{ source('ingest', 'ingest_repairs') }}
),

renamed as (
    select
        batch_id,
        source_path,
        file_sha256,
        format as source_format,
        repair,
        n_records
    from source
)

select * from renamed
