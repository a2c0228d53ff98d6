-- One row per draft-standard rubric document (one id and version), typed, with the parameters the warehouse acts
-- on as columns (NULL when the rubric does not set them; int_spec_components_unioned applies the defaults).
with

source as (
    select * from {{ source('ieee_draft', 'rubrics') }}
),

renamed as (
    select
        record_id,
        schema_version,
        {{ json_text('record_json', '$.id') }} as rubric_id,
        {{ json_text('record_json', '$.version') }} as rubric_version,
        {{ json_text('record_json', '$.name') }} as rubric_name,
        {{ json_text('record_json', '$.description') }} as description,
        {{ json_text('record_json', '$.license') }} as license,
        {{ json_text('record_json', '$.metric') }} as metric,
        {{ json_text('record_json', '$.score_type') }} as score_type,
        {{ json_fragment('record_json', '$.params') }} as params_json,
        cast({{ json_text('record_json', '$.params.case_sensitive') }} as boolean) as case_sensitive,
        cast({{ json_text('record_json', '$.params.trim_whitespace') }} as boolean) as trim_whitespace,
        {{ json_text('record_json', '$.params.pattern') }} as pattern,
        cast({{ json_text('record_json', '$.params.min_score') }} as double) as min_score,
        cast({{ json_text('record_json', '$.params.max_score') }} as double) as max_score,
        {{ json_text('record_json', '$.prompt_template') }} as prompt_template,
        source_path,
        source_line,
        record_sha256,
        file_sha256,
        ingested_at,
        batch_id
    from source
)

select * from renamed
