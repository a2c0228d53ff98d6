-- One row per AIF eval form: one rater's form on one response, typed. The five universal dimensions and the
-- extensions' 1-5 scores are columns; hazards and calibration targets stay JSON for the intermediate layer to
-- unnest. Parsed once, appended to by ingest batch (raw rows are never updated).
{{ config(materialized='incremental', incremental_strategy='append', on_schema_change='fail') }}

{%- set dimension = {'score': 'integer', 'confidence': 'varchar', 'rationale': 'varchar', 'score_mean': 'double'} %}
{%- set universal = ['helpfulness', 'instruction_following', 'faithfulness', 'safety', 'overall_quality'] %}
{%- set extension_scores = {
    'chat': ['consistency_across_turns'],
    'agent': ['plan_quality', 'error_recovery'],
    'rag': ['context_precision', 'context_recall', 'answer_faithfulness', 'answer_relevance', 'citation_accuracy'],
    'multimodal': ['cross_modal_grounding', 'perceptual_quality'],
} %}
{%- set extensions = {} %}
{%- for block, fields in extension_scores.items() %}
    {%- set block_spec = {} %}
    {%- for field in fields %}{% do block_spec.update({field: 'integer'}) %}{% endfor %}
    {%- if block == 'agent' %}{% do block_spec.update({'task_success': 'varchar'}) %}{% endif %}
    {%- do extensions.update({block: block_spec}) %}
{%- endfor %}
{%- set universal_spec = {'vs_reference': 'varchar'} %}
{%- for d in universal %}{% do universal_spec.update({d: dimension}) %}{% endfor %}
{%- set spec = {
    'eval_id': 'varchar',
    'created_at': 'varchar',
    'derived_from': 'varchar',
    'rater': {'type': 'varchar', 'id': 'varchar', 'model': 'varchar', 'version': 'varchar',
              'training_cohort': 'varchar', 'n_samples': 'integer'},
    'subject': {'model': 'varchar', 'version': 'varchar', 'system_under_test': 'varchar', 'modality_tags': 'json'},
    'task': {'task_id': 'varchar', 'suite_id': 'varchar', 'modality': 'varchar', 'prompt': 'varchar',
             'reference': 'varchar', 'response': 'varchar', 'response_id': 'varchar', 'transcript_url': 'varchar'},
    'gold_item_id': 'varchar',
    'calibration_target': 'json',
    'universal': universal_spec,
    'safety': {'hazards': 'json', 'is_violating_any': 'boolean', 'no_risk_affirmed': 'boolean'},
    'refusal': {'refusal_observed': 'boolean', 'refusal_appropriateness': 'varchar', 'refusal_rationale': 'varchar'},
    'issue_tags': 'json',
    'free_text': {'strengths': 'varchar', 'weaknesses': 'varchar', 'notes': 'varchar'},
    'extensions': extensions,
} %}

with

source as (
    select * from {{ source('aif', 'eval_forms') }}
    {% if is_incremental() %}
    where {{ unread_batches(source('aif', 'eval_forms')) }}
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
        r.eval_id,
        schema_version,
        {{ iso_to_utc('r.created_at') }} as created_at,
        r.derived_from,

        r.rater.type as rater_type,
        r.rater.id as rater_id,
        r.rater.model as rater_model,
        r.rater.version as rater_version,
        r.rater.training_cohort as rater_training_cohort,
        r.rater.n_samples as rater_n_samples,

        r.subject.model as subject_model,
        r.subject.version as subject_version,
        r.subject.system_under_test,
        r.subject.modality_tags as modality_tags_json,

        r.task.task_id,
        r.task.suite_id,
        r.task.modality,
        r.task.prompt,
        r.task.reference,
        r.task.response,
        r.task.response_id,
        r.task.transcript_url,

        r.gold_item_id,
        r.calibration_target as calibration_target_json,

        {%- for d in universal %}
        r.universal.{{ d }}.score as {{ d }}_score,
        r.universal.{{ d }}.confidence as {{ d }}_confidence,
        r.universal.{{ d }}.rationale as {{ d }}_rationale,
        r.universal.{{ d }}.score_mean as {{ d }}_score_mean,
        {%- endfor %}
        r.universal.vs_reference,

        r.safety.hazards as hazards_json,
        r.safety.is_violating_any,
        r.safety.no_risk_affirmed,

        r.refusal.refusal_observed,
        r.refusal.refusal_appropriateness,
        r.refusal.refusal_rationale,

        r.issue_tags as issue_tags_json,
        r.free_text.strengths,
        r.free_text.weaknesses,
        r.free_text.notes,
        {%- for block, fields in extension_scores.items() %}
        {%- for field in fields %}
        r.extensions.{{ block }}.{{ field }} as {{ block }}_{{ field }},
        {%- endfor %}
        {%- endfor %}
        r.extensions.agent.task_success as agent_task_success,

        record_json,
        source_path,
        source_line,
        record_sha256,
        file_sha256,
        ingested_at,
        batch_id
    from parsed
)

select * from renamed
