-- One row per week with any promotion decision: how many were made and how they fell, for a headline such as
-- "8 decided (2 promoted, 6 not), 1 within noise; 1 undecided: a threshold not measured, 1 out of scale; 4 cannot be
-- decided: the spec sets no threshold". The weekly report's headline reads these counts. Rows of a spec
-- without a promotion threshold are counted apart: they are never decisions, and adding them to the decided ones
-- overstates what was decided.
with

decisions as (
    select * from {{ ref('fct_promotion_decisions') }}
),

final as (
    select
        week_start,
        cast(count(*) as bigint) as n_rows,
        cast(sum(case when decision_status in ('promoted', 'not promoted') then 1 else 0 end) as bigint)
            as n_decided,
        cast(sum(case when decision_status = 'promoted' then 1 else 0 end) as bigint) as n_promoted,
        cast(sum(case when decision_status = 'not promoted' then 1 else 0 end) as bigint) as n_not_promoted,
        -- Only where the composite alone decides: a failing component's gate does not move with the composite.
        cast(sum(case
            when decision_status in ('promoted', 'not promoted') and n_failing_components = 0 and is_within_noise
                then 1
            else 0
        end) as bigint) as n_decided_within_noise,
        -- A gate's own interval holds its threshold: that gate's pass or fail is not established by the samples.
        cast(sum(case
            when decision_status in ('promoted', 'not promoted') and n_gates_within_noise > 0 then 1 else 0
        end) as bigint) as n_decided_with_gates_within_noise,
        cast(sum(case when decision_status = 'threshold not measured' then 1 else 0 end) as bigint)
            as n_threshold_not_measured,
        cast(sum(case when decision_status = 'out of scale' then 1 else 0 end) as bigint) as n_out_of_scale,
        cast(sum(case when decision_status = 'no composite' then 1 else 0 end) as bigint) as n_no_composite,
        cast(sum(case when decision_status = 'no threshold' then 1 else 0 end) as bigint) as n_no_threshold,
        cast(count(distinct spec_id) as bigint) as n_specs,
        cast(count(distinct case when decision_status = 'no threshold' then spec_id end) as bigint)
            as n_specs_without_threshold
    from decisions
    group by week_start
)

select * from final
