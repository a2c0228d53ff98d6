-- One row per spec, model and week: the spec's composite score over that week's results, by the spec's
-- documented method, and whether the model is promoted: the composite reaches promotion_threshold and no
-- component misses its own threshold (failing_components names those that do; fct_spec_scores_weekly holds the
-- component values). NULL decisions are undefined ones: no promotion_threshold, a component threshold not measured
-- that week (unmeasured_thresholds: it is not a gate passed), or a weighted component without results. The
-- composite carries its standard error and 95% interval over the week's samples, and is_within_noise
-- marks a composite whose interval holds the threshold: the rule still decides, but another week's samples may not.
-- A composite with a weighted latency percentile has no interval (no_interval_reason says so and why).
with

composites as (
    select * from {{ ref('int_spec_composites') }} where week_start is not null
),

final as (
    select
        spec_id,
        spec_kind,
        model_id,
        week_start,
        aggregation_method,
        composite_score,
        composite_se,
        composite_ci_low,
        composite_ci_high,
        n_composite_samples,
        promotion_threshold,
        composite_meets_threshold,
        is_within_noise,
        no_interval_reason,
        is_promoted,
        decision_status,
        failing_components,
        n_failing_components,
        unmeasured_thresholds,
        n_unmeasured_thresholds,
        missing_components,
        n_components,
        n_components_scored,
        n_results
    from composites
)

select * from final
