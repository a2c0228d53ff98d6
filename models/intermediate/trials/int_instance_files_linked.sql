-- One row per instance-level run (file and evaluation_id): the aggregate record it belongs to, and how the link
-- was made. Real files' ids often disagree (FORMATS.md), so the link falls back from the most to the least exact:
--   evaluation_id  the instance's evaluation_id equals the aggregate's
--   checksum       the aggregate's detailed_evaluation_results.checksum is the instance file's sha256
--   file_path      the aggregate's detailed_evaluation_results.file_path names the file (':' written as '-')
--   file_name_uuid the instance file's name carries the aggregate file's UUID
-- NULL link_method: no aggregate found; the run stands on its own.
-- n_evaluation_results counts the aggregate results its records name (evaluation_result_id): the format writes one
-- instance record per result, so a run naming several scores each response once per result (metric).
with

instances as (
    select * from {{ ref('stg_every_eval_ever__instances') }}
),

aggregates as (
    select * from {{ ref('stg_every_eval_ever__aggregates') }}
),

runs as (
    select
        source_path,
        file_sha256,
        evaluation_id,
        model_id,
        min(ingested_at) as ingested_at,
        count(*) as n_records,
        count(distinct evaluation_result_id) as n_evaluation_results,
        regexp_extract(source_path, '([^/]+)$', 1) as file_name,
        regexp_extract(
            source_path, '([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})', 1
        ) as file_uuid
    from instances
    group by source_path, file_sha256, evaluation_id, model_id
),

aggregate_keys as (
    select
        record_id as aggregate_record_id,
        evaluation_id as aggregate_evaluation_id,
        evaluated_at,
        retrieved_at,
        model_developer,
        instance_file_checksum,
        replace(regexp_extract(instance_file_path, '([^/]+)$', 1), ':', '-') as instance_file_name,
        regexp_extract(
            source_path, '([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})', 1
        ) as aggregate_file_uuid
    from aggregates
),

candidates as (
    select runs.*, aggregate_keys.*, 1 as link_rank, 'evaluation_id' as link_method
    from runs
    inner join aggregate_keys on runs.evaluation_id = aggregate_keys.aggregate_evaluation_id

    union all

    select runs.*, aggregate_keys.*, 2 as link_rank, 'checksum' as link_method
    from runs
    inner join aggregate_keys on runs.file_sha256 = aggregate_keys.instance_file_checksum

    union all

    select runs.*, aggregate_keys.*, 3 as link_rank, 'file_path' as link_method
    from runs
    inner join aggregate_keys on replace(runs.file_name, ':', '-') = aggregate_keys.instance_file_name

    union all

    select runs.*, aggregate_keys.*, 4 as link_rank, 'file_name_uuid' as link_method
    from runs
    inner join aggregate_keys
        on runs.file_uuid = aggregate_keys.aggregate_file_uuid
        and runs.file_uuid <> ''
),

best as (
    select
        *,
        row_number() over (
            partition by source_path, file_sha256, evaluation_id, model_id
            order by link_rank, aggregate_record_id
        ) as preference
    from candidates
),

final as (
    select
        runs.source_path,
        runs.file_sha256,
        runs.evaluation_id,
        runs.model_id,
        runs.n_records,
        runs.n_evaluation_results,
        best.aggregate_record_id,
        best.aggregate_evaluation_id,
        best.link_method,
        best.model_developer,
        -- The run's id everywhere downstream: the aggregate's when linked, else the instances' own.
        coalesce(best.aggregate_evaluation_id, runs.evaluation_id) as run_id,
        -- the time its reported results take (int_benchmark_results_unnested), so both fall in one week
        coalesce(best.evaluated_at, best.retrieved_at, runs.ingested_at) as evaluated_at,
        case
            when best.evaluated_at is not null then 'aggregate'
            when best.retrieved_at is not null then 'retrieved_at'
            else 'ingested_at'
        end as evaluated_at_source
    from runs
    left join best
        on runs.source_path = best.source_path
        and runs.file_sha256 = best.file_sha256
        and runs.evaluation_id = best.evaluation_id
        and runs.model_id = best.model_id
        and best.preference = 1
)

select * from final
