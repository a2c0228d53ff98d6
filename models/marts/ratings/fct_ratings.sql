-- One row per rating of one item on one dimension by one rater, from eval forms and CogniBench, with the number
-- it maps to, the rater and the gold target when the item is a calibration item. A view: the ratings that count
-- (int_ratings_counted, itself a view of int_ratings_unioned, appended to by ingest batch: one version of a
-- CogniBench judged response counts) under the columns a user reads.
{{ config(materialized='view') }}
with

ratings as (
    select * from {{ ref('int_ratings_counted') }}
),

final as (
    select
        rating_id,
        record_id,
        item_id,
        task_id,
        model_id,
        dimension,
        dimension_label,
        dimension_group,
        scale,
        agreement_level,
        score,
        label,
        value,
        confidence,
        rationale,
        severity,
        rater_id,
        rater_type,
        rater_group,
        judge_model,
        rater_version,
        is_gold,
        gold_item_id,
        expected_label,
        derived_from,
        rated_at,
        week_start,
        source_format,
        source_path,
        source_line,
        batch_id
    from ratings
)

select * from final
