-- One row per spec, model, component, week and sample, plus one per spec, model, component and sample over all
-- weeks (week_start NULL): the sample's trials averaged. The sample is the sampling unit of every score statistic
-- (docs/STATS.md): int_spec_component_scores takes each component's mean and interval over these rows, and
-- int_spec_composites the composite's standard error, so both stand on the same samples. Results outside their
-- component's declared scale (a judge's 6 on "1-5") are counted here, per result, since an average can hide them:
-- int_spec_composites decides nothing on a component that has any.
with

trials as (
    select * from {{ ref('int_spec_trials_joined') }} where is_matched
),

rescored as (
    select * from {{ ref('int_spec_trials_rescored') }}
),

components as (
    select * from {{ ref('int_spec_components_unioned') }}
),

scored_trials as (
    select
        trials.spec_id,
        trials.model_id,
        trials.component_id,
        trials.sample_id,
        trials.week_start,
        trials.score,
        -- NULL where the component has no scale (latency, a rubric that is not loaded): nothing to be outside of.
        trials.score < components.scale_min - 1e-9 or trials.score > components.scale_max + 1e-9 as is_out_of_scale,
        rescored.computed_score,
        rescored.disagrees
    from trials
    left join rescored on trials.trial_id = rescored.trial_id
    left join components
        on trials.spec_id = components.spec_id
        and trials.component_id = components.component_id
),

-- Each trial counts in its week and in the all-weeks row (week_start NULL).
periods as (
    select * from scored_trials
    union all
    select
        spec_id,
        model_id,
        component_id,
        sample_id,
        cast(null as date) as week_start,
        score,
        is_out_of_scale,
        computed_score,
        disagrees
    from scored_trials
),

final as (
    select
        spec_id,
        model_id,
        component_id,
        week_start,
        sample_id,
        cast(count(*) as bigint) as n_results,
        avg(score) as sample_score,
        cast(sum(case when is_out_of_scale then 1 else 0 end) as bigint) as n_results_out_of_scale,
        avg(computed_score) as sample_computed_score,
        cast(sum(case when disagrees then 1 else 0 end) as bigint) as n_disagreements
    from periods
    group by spec_id, model_id, component_id, week_start, sample_id
)

select * from final
