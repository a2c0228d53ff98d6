-- One row per result trial that names a spec, with the spec component it scores. Draft-standard results are
-- instance-level records whose evaluation_name is the evaluation spec's id; metadata.rubric_id names the rubric
-- (when absent: the spec's only rubric). ADP results carry metadata.suite_id and metadata.metric_id. A trial that
-- names a spec but no component of it (an unknown rubric or metric, or no rubric_id on a spec with several) is
-- kept with is_matched false, so dim_eval_specs can count it.
-- int_trials_unioned and int_spec_components_unioned are read where used, not through import CTEs: DuckDB copies
-- a CTE read more than once whole (docs/performance.md, "What made it faster").
with

specs as (
    select * from {{ ref('int_eval_specs_unioned') }} where is_current
),

single_rubrics as (
    select
        spec_id,
        min(component_id) as component_id
    from {{ ref('int_spec_components_unioned') }} as components
    where component_kind = 'rubric'
    group by spec_id
    having count(*) = 1
),

ieee_trials as (
    select
        trials.*,
        specs.spec_id,
        specs.spec_kind,
        coalesce(trials.metadata_rubric_id, single_rubrics.component_id) as component_id
    from {{ ref('int_trials_unioned') }} as trials
    inner join specs
        on trials.evaluation_name = specs.spec_id
        and specs.spec_kind = 'ieee_evaluation'
    left join single_rubrics on specs.spec_id = single_rubrics.spec_id
),

adp_trials as (
    select
        trials.*,
        specs.spec_id,
        specs.spec_kind,
        trials.metadata_metric_id as component_id
    from {{ ref('int_trials_unioned') }} as trials
    inner join specs
        on trials.metadata_suite_id = specs.spec_id
        and specs.spec_kind = 'adp_suite'
),

unioned as (
    select * from ieee_trials
    union all
    select * from adp_trials
),

final as (
    select
        unioned.trial_id,
        unioned.spec_id,
        unioned.spec_kind,
        unioned.component_id,
        components.component_kind,
        components.scored_by,
        components.component_id is not null as is_matched,
        unioned.model_id,
        unioned.sample_id,
        unioned.run_id,
        unioned.evaluation_name,
        unioned.trial_metric,
        unioned.score,
        unioned.is_correct,
        unioned.latency_ms,
        unioned.output_text,
        unioned.evaluated_at,
        unioned.week_start,
        unioned.source_path,
        unioned.source_line
    from unioned
    left join {{ ref('int_spec_components_unioned') }} as components
        on unioned.spec_id = components.spec_id
        and unioned.component_id = components.component_id
)

select * from final
