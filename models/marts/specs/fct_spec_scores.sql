-- One row per spec, model and component (a draft-standard rubric or an ADP metric), all weeks pooled: the
-- component's raw value in its own units, normalised to [0, 1] by the documented rule (docs/specs.md), with its
-- interval, weight, threshold and n. For exact_match / regex_match rubrics, the score recomputed from the outputs
-- and how many samples disagree with what the records reported. No promotion decision is made on these pooled
-- values: fct_promotion_decisions decides per week, on the values fct_spec_scores_weekly holds.
with

scores as (
    select * from {{ ref('int_spec_component_scores') }} where week_start is null
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
