-- One row per source format and review status of the records waiting for a person (fct_review_queue), with how
-- long they have waited as of the build. The queue is a current state, not a weekly history: a report for an
-- earlier week shows the backlog as of the build too, and says so.
with

review_queue as (
    select * from {{ ref('fct_review_queue') }}
),

final as (
    select
        source_format,
        status,
        count(*) as n_waiting,
        cast(sum(case when age_days <= 7 then 1 else 0 end) as bigint) as n_waiting_up_to_7_days,
        cast(sum(case when age_days > 7 and age_days <= 28 then 1 else 0 end) as bigint) as n_waiting_8_to_28_days,
        cast(sum(case when age_days > 28 then 1 else 0 end) as bigint) as n_waiting_over_28_days,
        avg(cast(age_days as double)) as mean_age_days,
        max(age_days) as max_age_days,
        min(created_at) as oldest_created_at,
        max(as_of) as as_of
    from review_queue
    group by source_format, status
)

select * from final
