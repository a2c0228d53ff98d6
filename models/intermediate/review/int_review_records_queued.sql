-- One row per record awaiting a person, as fct_review_queue lists it but without the ages it measures when read:
--   eval forms by an LLM judge that a person must confirm (a universal score at or below
--   var review_score_at_or_below, a confidence in var review_confidences, or a violating hazard) and that no
--   hybrid review has been derived from yet;
--   CogniBench records that need human review, are not completed, and are not superseded by a completed one.
-- A reviewed item leaves the queue: a hybrid form with derived_from = the judge form's eval_id, or a CogniBench
-- record with human_review_status 'Completed' for the same judged response (task_id, model_id, response_id: the
-- item) by the same judge_llm_model, created at or after the waiting one (int_judge_records_ranked: the version
-- order that also decides which record's ratings and trial count). CogniBench writes no link to the record it
-- completes (its completed export keeps the evaluation_id or takes a new one), so the item and the judge are the
-- link; a judge's later run on the same response is a new verdict and waits for its own review.
-- A table, built when its sources change; fct_review_queue,
-- a view of it, adds the ages (as one table rebuilt by every build, the queue cost every build 2 s on the
-- benchmark's warehouse) and the record's texts (prompt, response and the judge's original JSON, to pre-fill the
-- review), read from staging by record_id: kept here, they made this table 64 MB of text rewritten by every build
-- with new forms (docs/performance.md, "The review queue's texts").
-- stg_aif__eval_forms is read where used, not through an import CTE: DuckDB copies a CTE read more than once whole
-- (docs/performance.md, "What made it faster").
{%- set universal = ['helpfulness', 'instruction_following', 'faithfulness', 'safety', 'overall_quality'] %}
{%- set confidences = var('review_confidences') %}
with

judge_records as (
    select
        *,
        {{ cognibench_item_id() }} as item_id
    from {{ ref('stg_cognibench__judge_records') }}
),

hazard_ratings as (
    -- each judge form's own verdicts, by record: every eval form's ratings count (int_ratings_counted leaves out
    -- CogniBench versions only, and the queue reads their ranks itself), so not through that view's anti-join
    select record_id, dimension from {{ ref('int_ratings_unioned') }}
    where scale = 'hazard_verdict' and label = 'violating'
),

reviewed as (
    select distinct derived_from as eval_id
    from {{ ref('stg_aif__eval_forms') }} as forms
    where rater_type = 'hybrid' and derived_from is not null
),

violating as (
    select record_id, {{ sorted_string_agg("substr(dimension, length('hazard.') + 1)", "', '") }} as hazards
    from hazard_ratings
    group by record_id
),

judge_forms as (
    select
        forms.*,
        {%- for d in universal %}
        case when forms.{{ d }}_score <= {{ var('review_score_at_or_below') }} then '{{ d }}' end as low_{{ d }},
        case when forms.{{ d }}_confidence in ('{{ confidences | join("', '") }}') then '{{ d }}' end as unsure_{{ d }},
        {%- endfor %}
        violating.hazards as violating_hazards
    from {{ ref('stg_aif__eval_forms') }} as forms
    left join violating on forms.record_id = violating.record_id
    left join reviewed on forms.eval_id = reviewed.eval_id
    where forms.rater_type = 'llm_judge'
        and reviewed.eval_id is null
),

form_reasons as (
    select
        *,
        concat_ws(', ', {% for d in universal %}low_{{ d }}{% if not loop.last %}, {% endif %}{% endfor %}) as low_scores,
        concat_ws(', ', {% for d in universal %}unsure_{{ d }}{% if not loop.last %}, {% endif %}{% endfor %}) as low_confidences
    from judge_forms
),

queued_forms as (
    select
        record_id,
        'eval_form' as source_format,
        {{ eval_form_item_id() }} as item_id,
        task_id,
        subject_model as model_id,
        rater_id as judge_id,
        concat_ws(
            '; ',
            case when violating_hazards is not null then 'violating hazard: ' || violating_hazards end,
            case when low_scores <> '' then 'score <= {{ var("review_score_at_or_below") }}: ' || low_scores end,
            case when low_confidences <> '' then '{{ confidences | join("/") }} confidence: ' || low_confidences end
        ) as reasons,
        created_at,
        'awaiting_review' as status
    from form_reasons
    where violating_hazards is not null or low_scores <> '' or low_confidences <> ''
),

waiting_judge_records as (
    -- superseded by a completed record: one of its versions ranked above it (int_judge_records_ranked's order)
    select judge_records.*
    from judge_records
    inner join {{ ref('int_judge_records_ranked') }} as versions
        on judge_records.record_id = versions.record_id
    where judge_records.needs_human_review
        and not versions.is_completed
        and not versions.is_superseded_by_review
),

queued_judge_records as (
    select
        record_id,
        'cognibench' as source_format,
        item_id,
        task_id,
        model_id,
        judge_model as judge_id,
        coalesce(
            nullif({{ json_string_array_join('review_reasons_json', "'; '") }}, ''),
            case when parsing_error is not null then 'judge output could not be parsed' end,
            'needs human review'
        ) as reasons,
        created_at,
        lower(replace(human_review_status, ' ', '_')) as status
    from waiting_judge_records
),

unioned as (
    select * from queued_forms
    union all
    select * from queued_judge_records
)

select * from unioned
