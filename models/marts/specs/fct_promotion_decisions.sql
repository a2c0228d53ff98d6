-- One row per spec, model and week: the spec's composite score over that week's results, by the spec's
-- documented method, and whether the model is promoted: the composite reaches promotion_threshold and no
-- component misses its own threshold (failing_components names those that do). NULL decisions are undefined ones:
-- no promotion_threshold, or a component without results that week.
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
        promotion_threshold,
        composite_meets_threshold,
        is_promoted,
        failing_components,
        n_failing_components,
        missing_components,
        n_components,
        n_components_scored,
        n_trials
    from composites
)

select * from final
