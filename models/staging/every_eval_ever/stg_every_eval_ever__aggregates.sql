-- One row per Every Eval Ever aggregate record: one eval run of one model, with its reported results still
-- nested (int_benchmark_results_unnested gives one row per result). Parsed once, appended to by ingest batch.
{{ config(materialized='incremental', incremental_strategy='append', on_schema_change='fail') }}

{%- set spec = {
    'evaluation_id': 'varchar',
    'evaluation_timestamp': 'varchar',
    'retrieved_timestamp': 'varchar',
    'model_info': {'id': 'varchar', 'name': 'varchar', 'developer': 'varchar'},
    'source_metadata': {'source_name': 'varchar', 'source_type': 'varchar', 'source_organization_name': 'varchar',
                        'evaluator_relationship': 'varchar'},
    'evaluation_results': 'json',
    'detailed_evaluation_results': {'file_path': 'varchar', 'checksum': 'varchar', 'hash_algorithm': 'varchar',
                                    'total_rows': 'bigint'},
} %}

with

source as (
    select * from {{ source('every_eval_ever', 'aggregates') }}
    {% if is_incremental() %}
    where {{ unread_batches(source('every_eval_ever', 'aggregates')) }}
    {% endif %}
),

parsed as (
    select
        source.*,
        {{ json_to_struct('record_json', spec) }} as r
    from source
),

renamed as (
    select
        record_id,
        schema_version,
        r.evaluation_id,
        {{ epoch_to_utc('r.evaluation_timestamp') }} as evaluated_at,
        {{ epoch_to_utc('r.retrieved_timestamp') }} as retrieved_at,
        r.model_info.id as model_id,
        r.model_info.name as model_name,
        r.model_info.developer as model_developer,
        r.source_metadata.source_name as source_name,
        r.source_metadata.source_type as source_type,
        r.source_metadata.source_organization_name as source_organization,
        r.source_metadata.evaluator_relationship as evaluator_relationship,
        r.evaluation_results as evaluation_results_json,
        r.detailed_evaluation_results.file_path as instance_file_path,
        r.detailed_evaluation_results.checksum as instance_file_checksum,
        r.detailed_evaluation_results.hash_algorithm as instance_file_hash_algorithm,
        r.detailed_evaluation_results.total_rows as instance_file_rows,
        source_path,
        source_line,
        record_sha256,
        file_sha256,
        ingested_at,
        batch_id
    from parsed
)

select * from renamed
