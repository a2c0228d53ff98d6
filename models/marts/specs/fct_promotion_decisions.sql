-- One row per spec, model and week: the spec's composite score over that week's results, by the spec's
-- documented method, and whether the model is promoted: the composite reaches promotion_threshold and no
-- component misses its own threshold (failing_components names those that do; fct_spec_scores_weekly holds the
-- component values). NULL decisions are undefined ones: no promotion_threshold, a component threshold not measured
-- that week (unmeasured_thresholds: it is not a gate passed), or a weighted component without results. The
-- composite carries its standard error and 95% interval over the week's samples, and is_within_noise
-- marks a composite whose interval holds the threshold: the rule still decides, but another week's samples may not.
-- A composite with a weighted latency percentile has no interval (no_interval_reason says so and why).
-- Results outside a component's scale decide nothing ('out of scale': a 1.125 on a 0-1 composite must not promote),
-- and gates_within_noise names the component gates whose threshold lies inside the component's own interval.
-- spec_version names the version that decided the row: the spec's current one, for every week, so a new version
-- re-decides past weeks (docs/specs.md, "Versions": spec records carry no time to date a version by).
-- A spec whose thresholds name a component it does not have (a typo: "acuracy") sets a gate nobody can measure:
-- such a gate is not met, so a row the rule would promote is 'threshold not measured' instead (dim_eval_specs
-- names the keys).
with

composites as (
    select * from {{ ref('int_spec_composites') }} where week_start is not null
),

specs as (
    select * from {{ ref('dim_eval_specs') }}
),

final as (
    select
        composites.spec_id,
        composites.spec_kind,
        specs.version as spec_version,
        composites.model_id,
        composites.week_start,
        composites.aggregation_method,
        composites.composite_score,
        composites.composite_se,
        composites.composite_ci_low,
        composites.composite_ci_high,
        composites.n_composite_samples,
        composites.promotion_threshold,
        composites.composite_meets_threshold,
        composites.is_within_noise,
        composites.no_interval_reason,
        case when composites.is_promoted and specs.n_unknown_threshold_keys > 0 then null
            else composites.is_promoted end as is_promoted,
        case when composites.is_promoted and specs.n_unknown_threshold_keys > 0 then 'threshold not measured'
            else composites.decision_status end as decision_status,
        specs.unknown_threshold_keys,
        composites.failing_components,
        composites.n_failing_components,
        composites.unmeasured_thresholds,
        composites.n_unmeasured_thresholds,
        composites.out_of_scale_components,
        composites.n_out_of_scale_components,
        composites.gates_within_noise,
        composites.n_gates_within_noise,
        composites.missing_components,
        composites.n_components,
        composites.n_components_scored,
        composites.n_results
    from composites
    inner join specs on composites.spec_id = specs.spec_id
)

select * from final
