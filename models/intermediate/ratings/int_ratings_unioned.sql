-- One row per rating of an item on a dimension by a rater, from every rating source:
--   eval forms: the five universal dimensions, vs_reference, each hazard verdict, the refusal judgement, and the
--               scores of the modality extensions;
--   CogniBench: each rubric criterion as the judge scored it and, when the review is completed, as the human did.
-- Labels become numbers through the seed score_label_map; `value` is what agreement statistics use (the score on
-- ordinal scales, the label's code on nominal ones, per the seed rating_scales).
-- Each rating comes from one record alone, so the table is appended to by ingest batch like staging: a build reads
-- only the batches it has not seen (batch_id); a changed project makes `evalhouse build` rebuild it in full.
{{ config(materialized='incremental', incremental_strategy='append', on_schema_change='fail') }}
{%- set universal = ['helpfulness', 'instruction_following', 'faithfulness', 'safety', 'overall_quality'] %}
{%- set extension_scores = [
    'chat.consistency_across_turns', 'agent.plan_quality', 'agent.error_recovery',
    'rag.context_precision', 'rag.context_recall', 'rag.answer_faithfulness', 'rag.answer_relevance',
    'rag.citation_accuracy', 'multimodal.cross_modal_grounding', 'multimodal.perceptual_quality',
] %}
with

forms as (
    select * from {{ ref('stg_aif__eval_forms') }}
    {% if is_incremental() %}
    where {{ unread_batches(ref('stg_aif__eval_forms')) }}
    {% endif %}
),

judge_records as (
    select * from {{ ref('stg_cognibench__judge_records') }}
    {% if is_incremental() %}
    where {{ unread_batches(ref('stg_cognibench__judge_records')) }}
    {% endif %}
),

label_map as (
    select * from {{ ref('score_label_map') }}
),

scales as (
    select * from {{ ref('rating_scales') }}
),

form_items as (
    -- What every rating of a form shares: the item (the rated response), the rater, the time.
    select
        forms.*,
        'eval_form' as source_format,
        {{ eval_form_item_id() }} as item_id,
        subject_model as model_id,
        case when rater_type = 'llm_judge' then rater_model end as judge_model,
        rater_training_cohort as training_cohort,
        created_at as rated_at
    from forms
),

universal_ratings as (
    {%- for dimension in universal %}
    select
        record_id,
        '{{ dimension }}' as dimension,
        '{{ "safety" if dimension == "safety" else "quality" }}' as dimension_group,
        'likert_1_5' as scale,
        cast({{ dimension }}_score as varchar) as label,
        {{ dimension }}_confidence as confidence,
        {{ dimension }}_rationale as rationale,
        cast(null as integer) as severity
    from form_items
    where {{ dimension }}_score is not null
    {% if not loop.last %}union all{% endif %}
    {%- endfor %}
),

pairwise_ratings as (
    select
        record_id,
        'vs_reference' as dimension,
        'quality' as dimension_group,
        'vs_reference' as scale,
        vs_reference as label,
        cast(null as varchar) as confidence,
        cast(null as varchar) as rationale,
        cast(null as integer) as severity
    from form_items
    where vs_reference is not null
),

hazard_ratings as (
    select
        form_items.record_id,
        'hazard.' || hazard_key as dimension,
        'safety' as dimension_group,
        'hazard_verdict' as scale,
        {{ json_text('hazard_value', '$.verdict') }} as label,
        cast(null as varchar) as confidence,
        {{ json_text('hazard_value', '$.rationale') }} as rationale,
        cast({{ json_text('hazard_value', '$.severity') }} as integer) as severity
    from form_items
    {{ json_object_entries('form_items.hazards_json', 'hazard') }}
),

refusal_ratings as (
    select
        record_id,
        'refusal_appropriateness' as dimension,
        'safety' as dimension_group,
        'refusal_appropriateness' as scale,
        refusal_appropriateness as label,
        cast(null as varchar) as confidence,
        refusal_rationale as rationale,
        cast(null as integer) as severity
    from form_items
    where refusal_appropriateness is not null

    union all

    select
        record_id,
        'refusal_observed' as dimension,
        'safety' as dimension_group,
        'refusal_observed' as scale,
        case when refusal_observed then 'yes' else 'no' end as label,
        cast(null as varchar) as confidence,
        cast(null as varchar) as rationale,
        cast(null as integer) as severity
    from form_items
    where refusal_observed is not null
),

extension_ratings as (
    {%- for dimension in extension_scores %}
    select
        record_id,
        '{{ dimension }}' as dimension,
        'quality' as dimension_group,
        'likert_1_5' as scale,
        cast({{ dimension | replace('.', '_') }} as varchar) as label,
        cast(null as varchar) as confidence,
        cast(null as varchar) as rationale,
        cast(null as integer) as severity
    from form_items
    where {{ dimension | replace('.', '_') }} is not null
    union all
    {%- endfor %}
    select
        record_id,
        'agent.task_success' as dimension,
        'quality' as dimension_group,
        'task_success' as scale,
        agent_task_success as label,
        cast(null as varchar) as confidence,
        cast(null as varchar) as rationale,
        cast(null as integer) as severity
    from form_items
    where agent_task_success is not null
),

form_dimension_ratings as (
    select * from universal_ratings
    union all
    select * from pairwise_ratings
    union all
    select * from hazard_ratings
    union all
    select * from refusal_ratings
    union all
    select * from extension_ratings
),

calibration_targets as (
    select
        form_items.record_id,
        target_key as dimension,
        -- Targets are numbers for scores and strings for labels: compare them as label text.
        trim(both '"' from target_value) as expected_label
    from form_items
    {{ json_object_entries('form_items.calibration_target_json', 'target') }}
),

form_ratings as (
    select
        form_items.record_id || ':' || ratings.dimension as rating_id,
        form_items.record_id,
        form_items.source_format,
        form_items.item_id,
        form_items.task_id,
        form_items.model_id,
        ratings.dimension,
        ratings.dimension as dimension_label,
        ratings.dimension_group,
        ratings.scale,
        ratings.label,
        ratings.confidence,
        ratings.rationale,
        ratings.severity,
        form_items.rater_id,
        form_items.rater_type,
        form_items.judge_model,
        form_items.rater_version,
        form_items.training_cohort,
        form_items.gold_item_id,
        calibration_targets.expected_label,
        form_items.derived_from,
        form_items.rated_at,
        form_items.source_path,
        form_items.source_line,
        form_items.batch_id
    from form_dimension_ratings as ratings
    inner join form_items on ratings.record_id = form_items.record_id
    left join calibration_targets
        on ratings.record_id = calibration_targets.record_id
        and ratings.dimension = calibration_targets.dimension
),

judge_items as (
    select
        record_id,
        'cognibench' as source_format,
        {{ cognibench_item_id() }} as item_id,
        task_id,
        model_id,
        judge_model,
        human_review_status,
        human_reviewer_id,
        human_reviewed_at,
        created_at,
        parsed_rubric_scores_json,
        human_corrected_scores_json,
        source_path,
        source_line,
        batch_id
    from judge_records
),

judge_criteria as (
    select
        judge_items.*,
        criterion_key,
        {{ json_text('criterion_value', '$.score') }} as judge_label,
        {{ json_text('criterion_value', '$.justification') }} as judge_justification
    from judge_items
    {{ json_object_entries('judge_items.parsed_rubric_scores_json', 'criterion') }}
),

human_criteria as (
    select
        judge_items.record_id,
        criterion_key,
        {{ json_text('criterion_value', '$.score') }} as human_label,
        {{ json_text('criterion_value', '$.justification') }} as human_justification
    from judge_items
    {{ json_object_entries('judge_items.human_corrected_scores_json', 'criterion') }}
),

criterion_ratings as (
    -- The judge's score of each criterion.
    select
        record_id || ':judge:' || criterion_key as rating_id,
        record_id,
        source_format,
        item_id,
        task_id,
        model_id,
        -- Judges write 'Problem Understanding' or 'problem_understanding': one name to group by.
        'cognibench.' || replace(lower(trim(criterion_key)), ' ', '_') as dimension,
        criterion_key as dimension_label,
        'quality' as dimension_group,
        'cognibench_label' as scale,
        lower(judge_label) as label,
        cast(null as varchar) as confidence,
        judge_justification as rationale,
        cast(null as integer) as severity,
        judge_model as rater_id,
        'llm_judge' as rater_type,
        judge_model,
        cast(null as varchar) as rater_version,
        cast(null as varchar) as training_cohort,
        cast(null as varchar) as gold_item_id,
        cast(null as varchar) as expected_label,
        cast(null as varchar) as derived_from,
        created_at as rated_at,
        source_path,
        source_line,
        batch_id
    from judge_criteria

    union all

    -- A completed review is the human's rating of every criterion: their correction where they wrote one,
    -- otherwise the judge's score, which they confirmed by completing the review.
    select
        judge_criteria.record_id || ':human:' || judge_criteria.criterion_key as rating_id,
        judge_criteria.record_id,
        judge_criteria.source_format,
        judge_criteria.item_id,
        judge_criteria.task_id,
        judge_criteria.model_id,
        'cognibench.' || replace(lower(trim(judge_criteria.criterion_key)), ' ', '_') as dimension,
        judge_criteria.criterion_key as dimension_label,
        'quality' as dimension_group,
        'cognibench_label' as scale,
        lower(coalesce(human_criteria.human_label, judge_criteria.judge_label)) as label,
        cast(null as varchar) as confidence,
        human_criteria.human_justification as rationale,
        cast(null as integer) as severity,
        judge_criteria.human_reviewer_id as rater_id,
        'human' as rater_type,
        cast(null as varchar) as judge_model,
        cast(null as varchar) as rater_version,
        cast(null as varchar) as training_cohort,
        cast(null as varchar) as gold_item_id,
        cast(null as varchar) as expected_label,
        judge_criteria.record_id as derived_from,
        coalesce(judge_criteria.human_reviewed_at, judge_criteria.created_at) as rated_at,
        judge_criteria.source_path,
        judge_criteria.source_line,
        judge_criteria.batch_id
    from judge_criteria
    left join human_criteria
        on judge_criteria.record_id = human_criteria.record_id
        and judge_criteria.criterion_key = human_criteria.criterion_key
    where judge_criteria.human_review_status = 'Completed'
        and judge_criteria.human_reviewer_id is not null
),

unioned as (
    select * from form_ratings
    union all
    select * from criterion_ratings
),

final as (
    select
        unioned.*,
        label_map.score_value as score,
        scales.agreement_level,
        -- What agreement statistics compare: scores on ordinal scales, label codes on nominal ones.
        case
            when scales.agreement_level = 'ordinal' then label_map.score_value
            else cast(label_map.sort_order as double)
        end as value,
        unioned.gold_item_id is not null as is_gold,
        {{ week_start('unioned.rated_at') }} as week_start,
        -- The rater's group, as agreement compares raters: people of every kind are 'human'.
        case
            when unioned.rater_type in ('human', 'sme', 'end_user') then 'human'
            else unioned.rater_type
        end as rater_group
    from unioned
    left join label_map on unioned.scale = label_map.scale and unioned.label = label_map.label
    left join scales on unioned.scale = scales.scale
)

select * from final
