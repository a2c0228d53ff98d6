-- One row per spec, model, component and week: the component values fct_promotion_decisions decides on that week,
-- so a week's failing_components are exactly the rows here whose meets_threshold is false. The columns are
-- fct_spec_scores' (all weeks pooled) with week_start; the rules are in docs/specs.md.
with

scores as (
    select * from {{ ref('int_spec_component_scores') }} where week_start is not null
),

specs as (
    select * from {{ ref('int_eval_specs_unioned') }} where is_current
),

final as (
    select
        scores.spec_id,
        scores.spec_kind,
        -- Every week is scored against the spec's current version (docs/specs.md, "Versions").
        specs.spec_version,
        scores.model_id,
        component_id,
        week_start,
        component_kind,
        scored_by,
        component_index,
        normalization,
        raw_value,
        normalized_value,
        ci_low,
        ci_high,
        interval_method,
        weight,
        stated_weight,
        threshold,
        normalized_threshold,
        threshold_direction,
        meets_threshold,
        n,
        n_results,
        computed_raw_value,
        n_computed_samples,
        n_disagreements
    from scores
    inner join specs on scores.spec_id = specs.spec_id
)

select * from final
