-- One row per record awaiting a person (int_review_records_queued: which records, and why), with how long it has
-- waited: age_days is counted from created_at to the moment the queue is read (as_of). A view, so the clock is
-- read by each query, not frozen at the build: the queue itself is a table rebuilt only when its sources change.
{{ config(materialized='view') }}
with

queued as (
    select * from {{ ref('int_review_records_queued') }}
),

final as (
    select
        *,
        -- A record stamped after the build (clock skew between writers) is 0 days old, not negative.
        greatest({{ days_between('created_at', build_timestamp()) }}, 0) as age_days,
        {{ build_timestamp() }} as as_of
    from queued
)

select * from final
