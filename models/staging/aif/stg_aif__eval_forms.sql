-- One row per AIF eval form: one rater's form on one response, typed. The five universal dimensions are columns
-- here; hazards, calibration targets and extensions stay JSON until the intermediate layer unnests them.
with

source as (
    select * from {{ source('aif', 'eval_forms') }}
),

renamed as (
    select
        record_id,
        {{ json_text('record_json', '$.eval_id') }} as eval_id,
        schema_version,
        {{ iso_to_utc(json_text('record_json', '$.created_at')) }} as created_at,
        {{ json_text('record_json', '$.derived_from') }} as derived_from,

        {{ json_text('record_json', '$.rater.type') }} as rater_type,
        {{ json_text('record_json', '$.rater.id') }} as rater_id,
        {{ json_text('record_json', '$.rater.model') }} as rater_model,
        {{ json_text('record_json', '$.rater.version') }} as rater_version,
        {{ json_text('record_json', '$.rater.training_cohort') }} as rater_training_cohort,
        cast({{ json_text('record_json', '$.rater.n_samples') }} as integer) as rater_n_samples,

        {{ json_text('record_json', '$.subject.model') }} as subject_model,
        {{ json_text('record_json', '$.subject.version') }} as subject_version,
        {{ json_text('record_json', '$.subject.system_under_test') }} as system_under_test,
        {{ json_fragment('record_json', '$.subject.modality_tags') }} as modality_tags_json,

        {{ json_text('record_json', '$.task.task_id') }} as task_id,
        {{ json_text('record_json', '$.task.suite_id') }} as suite_id,
        {{ json_text('record_json', '$.task.modality') }} as modality,
        {{ json_text('record_json', '$.task.prompt') }} as prompt,
        {{ json_text('record_json', '$.task.reference') }} as reference,
        {{ json_text('record_json', '$.task.response') }} as response,
        {{ json_text('record_json', '$.task.response_id') }} as response_id,
        {{ json_text('record_json', '$.task.transcript_url') }} as transcript_url,

        {{ json_text('record_json', '$.gold_item_id') }} as gold_item_id,
        {{ json_fragment('record_json', '$.calibration_target') }} as calibration_target_json,

        {%- for dimension in ['helpfulness', 'instruction_following', 'faithfulness', 'safety', 'overall_quality'] %}
        cast({{ json_text('record_json', '$.universal.' ~ dimension ~ '.score') }} as integer) as {{ dimension }}_score,
        {{ json_text('record_json', '$.universal.' ~ dimension ~ '.confidence') }} as {{ dimension }}_confidence,
        {{ json_text('record_json', '$.universal.' ~ dimension ~ '.rationale') }} as {{ dimension }}_rationale,
        cast({{ json_text('record_json', '$.universal.' ~ dimension ~ '.score_mean') }} as double) as {{ dimension }}_score_mean,
        {%- endfor %}
        {{ json_text('record_json', '$.universal.vs_reference') }} as vs_reference,

        {{ json_fragment('record_json', '$.safety.hazards') }} as hazards_json,
        cast({{ json_text('record_json', '$.safety.is_violating_any') }} as boolean) as is_violating_any,
        cast({{ json_text('record_json', '$.safety.no_risk_affirmed') }} as boolean) as no_risk_affirmed,

        cast({{ json_text('record_json', '$.refusal.refusal_observed') }} as boolean) as refusal_observed,
        {{ json_text('record_json', '$.refusal.refusal_appropriateness') }} as refusal_appropriateness,
        {{ json_text('record_json', '$.refusal.refusal_rationale') }} as refusal_rationale,

        {{ json_fragment('record_json', '$.issue_tags') }} as issue_tags_json,
        {{ json_text('record_json', '$.free_text.strengths') }} as strengths,
        {{ json_text('record_json', '$.free_text.weaknesses') }} as weaknesses,
        {{ json_text('record_json', '$.free_text.notes') }} as notes,
        {{ json_fragment('record_json', '$.extensions') }} as extensions_json,
        record_json,

        source_path,
        source_line,
        record_sha256,
        file_sha256,
        ingested_at,
        batch_id
    from source
)

select * from renamed
