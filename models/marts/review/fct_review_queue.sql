-- One row per record awaiting a person (int_review_records_queued: which records, and why), with the record's texts
-- and how long it has waited: age_days is counted from created_at to the moment the queue is read (as_of). A view,
-- so the clock is read by each query, not frozen at the build: the queue itself is a table rebuilt only when its
-- sources change. The texts (the form's prompt and response, the judge's original record as JSON, to pre-fill a
-- review) are read from staging by record_id, unique there, rather than copied into the queue's table by every
-- build (docs/performance.md, "The review queue's texts").
{{ config(materialized='view') }}
with

queued as (
    select * from {{ ref('int_review_records_queued') }}
),

forms as (
    select record_id, prompt, response, record_json from {{ ref('stg_aif__eval_forms') }}
),

judge_records as (
    select record_id, record_json from {{ ref('stg_cognibench__judge_records') }}
),

final as (
    select
        queued.record_id,
        queued.source_format,
        queued.item_id,
        queued.task_id,
        queued.model_id,
        queued.judge_id,
        queued.reasons,
        queued.created_at,
        queued.status,
        forms.prompt,
        forms.response,
        coalesce(forms.record_json, judge_records.record_json) as judge_record_json,
        -- A record stamped after the build (clock skew between writers) is 0 days old, not negative.
        greatest({{ days_between('queued.created_at', build_timestamp()) }}, 0) as age_days,
        {{ build_timestamp() }} as as_of
    from queued
    left join forms
        on queued.source_format = 'eval_form'
        and queued.record_id = forms.record_id
    left join judge_records
        on queued.source_format = 'cognibench'
        and queued.record_id = judge_records.record_id
)

select * from final
