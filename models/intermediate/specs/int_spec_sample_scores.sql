-- One row per spec, model, component, week and sample, plus one per spec, model, component and sample over all
-- weeks (week_start NULL): the sample's trials averaged. The sample is the sampling unit of every score statistic
-- (docs/STATS.md): int_spec_component_scores takes each component's mean and interval over these rows, and
-- int_spec_composites the composite's standard error, so both stand on the same samples.
with

trials as (
    select * from {{ ref('int_spec_trials_joined') }} where is_matched
),

rescored as (
    select * from {{ ref('int_spec_trials_rescored') }}
),

scored_trials as (
    select
        trials.spec_id,
        trials.model_id,
        trials.component_id,
        trials.sample_id,
        trials.week_start,
        trials.score,
        rescored.computed_score,
        rescored.disagrees
    from trials
    left join rescored on trials.trial_id = rescored.trial_id
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
        avg(computed_score) as sample_computed_score,
        cast(sum(case when disagrees then 1 else 0 end) as bigint) as n_disagreements
    from periods
    group by spec_id, model_id, component_id, week_start, sample_id
)

select * from final
