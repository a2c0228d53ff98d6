-- One row per refused line: where it is, which format it claimed, why it was refused, and its original text, and
-- whether a later run loaded that line, since raw.quarantine only grows and keeps the refusal. A refusal is resolved
-- (loaded_later_*) by the earliest of two: the first record loaded after it from the same line of either the same
-- bytes (same file_sha256: the file ingested again under a new name, without --strict, with another --format) or the
-- same path (same source_path: the file rewritten in place, its cut-off last line completed or its bad line
-- corrected); or a run that found the line held loaded though it loaded no record from it (raw.quarantine_resolutions:
-- the file skipped whole as loaded before by bytes that hold the line accepted, whole again after it was cut off or
-- its bad line edited back, or the line's record found already stored as the file was read). A record the line held
-- before the refusal resolves nothing: the line was edited into the refused text after it had loaded.
{%- set record_models = [
    ('stg_ieee_draft__datasets', 'ieee_dataset'),
    ('stg_ieee_draft__rubrics', 'ieee_rubric'),
    ('stg_ieee_draft__evaluations', 'ieee_evaluation'),
    ('stg_aif__eval_forms', 'eval_form'),
    ('stg_cognibench__judge_records', 'cognibench'),
    ('stg_every_eval_ever__aggregates', 'eee_aggregate'),
    ('stg_every_eval_ever__instances', 'eee_instance'),
    ('stg_inspect_ai__logs', 'inspect_log'),
    ('stg_inspect_ai__samples', 'inspect_sample'),
    ('stg_lm_eval__samples', 'lm_eval_sample'),
    ('stg_lm_eval__results', 'lm_eval_results'),
    ('stg_adp__suites', 'adp_suite'),
] %}
with

quarantined as (
    select * from {{ ref('stg_ingest__quarantined_lines') }}
),

resolutions as (
    select * from {{ ref('stg_ingest__quarantine_resolutions') }}
),

quarantined_shas as (
    select distinct file_sha256 from quarantined
),

quarantined_paths as (
    select distinct source_path from quarantined
),

-- Only the records of files, or paths, that had a line refused (few against the warehouse's millions), six columns
-- each: on the benchmark's 1.3 million records, with 60 lines of 3 files refused, the mart's select took 0.03 s with
-- the bytes' filter alone; adding the paths' (two hash semi-joins, then a hash join on the line) measured no slower
-- on a synthetic table of 1.3 million records (0.050 s against 0.052 s, best of 5).
loaded_records as (
    {%- for model, source_format in record_models %}
    select
        records.file_sha256,
        records.source_path,
        records.source_line,
        records.ingested_at,
        records.batch_id,
        '{{ source_format }}' as source_format
    from {{ ref(model) }} as records
    where
        records.file_sha256 in (select quarantined_shas.file_sha256 from quarantined_shas)
        or records.source_path in (select quarantined_paths.source_path from quarantined_paths)
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
),

-- Every record that a later run loaded from the same bytes' or the same path's same line; a whole-file refusal
-- (no line) has none.
records_loaded_later as (
    select
        quarantined.quarantine_id,
        loaded_records.ingested_at as loaded_later_at,
        loaded_records.batch_id as loaded_later_batch_id,
        loaded_records.source_format as loaded_later_source_format
    from quarantined
    inner join loaded_records
        on
            loaded_records.source_line = quarantined.source_line
            and (
                loaded_records.file_sha256 = quarantined.file_sha256
                or loaded_records.source_path = quarantined.source_path
            )
            and loaded_records.ingested_at > quarantined.quarantined_at
),

-- The run that found the line held loaded, its record stored already (at most one per refusal, written only while
-- no record loaded after the refusal had resolved it).
held_later as (
    select
        resolutions.quarantine_id,
        resolutions.resolved_at as loaded_later_at,
        resolutions.batch_id as loaded_later_batch_id,
        resolutions.source_format as loaded_later_source_format
    from resolutions
),

-- The earliest of either way.
loaded_later as (
    select
        either_way.quarantine_id,
        min(either_way.loaded_later_at) as loaded_later_at,
        {{ first_by('either_way.loaded_later_batch_id',
                    ['either_way.loaded_later_at', 'either_way.loaded_later_batch_id']) }}
            as loaded_later_batch_id,
        {{ first_by('either_way.loaded_later_source_format',
                    ['either_way.loaded_later_at', 'either_way.loaded_later_source_format']) }}
            as loaded_later_source_format
    from (
        select * from records_loaded_later
        union all
        select * from held_later
    ) as either_way
    group by either_way.quarantine_id
),

final as (
    select
        quarantined.quarantine_id,
        quarantined.source_path,
        quarantined.source_line,
        quarantined.byte_offset,
        coalesce(quarantined.source_format, 'unknown') as source_format,
        quarantined.schema_version,
        quarantined.error_kind,
        quarantined.error_pointer,
        quarantined.error_message,
        quarantined.raw_text,
        quarantined.raw_text_truncated,
        quarantined.batch_id,
        quarantined.quarantined_at,
        {{ week_start('quarantined.quarantined_at') }} as week_start,
        loaded_later.loaded_later_at,
        loaded_later.loaded_later_batch_id,
        loaded_later.loaded_later_source_format
    from quarantined
    left join loaded_later
        on quarantined.quarantine_id = loaded_later.quarantine_id
)

select * from final
