-- One row per spec, model and week, plus one per spec and model over all weeks (week_start NULL): the spec's
-- composite score by its documented method, and the promotion decision.
--   weighted_mean, weighted_average, mean, average, sum: the sum over components of weight x normalised value
--       (weights as int_spec_components_unioned sets them); NULL when a component that weighs is missing
--   boolean: 1.0 when every component with a threshold meets it, 0.0 when one fails, else NULL
--   no method (a draft-standard spec without config.aggregation): NULL
-- A model is promoted when the composite reaches promotion_threshold (1e-9 tolerance) and no component misses its
-- own threshold: a metric's threshold is a gate the weighted average cannot buy off. is_promoted is NULL when the
-- spec sets no promotion_threshold, or when no component fails and the composite is NULL.
with

scores as (
    select * from {{ ref('int_spec_component_scores') }}
),

specs as (
    select * from {{ ref('int_eval_specs_unioned') }} where is_current
),

rolled_up as (
    select
        spec_id,
        model_id,
        week_start,
        count(*) as n_components,
        sum(case when normalized_value is not null then 1 else 0 end) as n_components_scored,
        sum(case when weight > 0 and normalized_value is null then 1 else 0 end) as n_weighted_components_missing,
        sum(weight * normalized_value) as weighted_sum,
        sum(case when meets_threshold = false then 1 else 0 end) as n_failing_components,
        sum(case when threshold is not null and meets_threshold is null then 1 else 0 end) as n_thresholds_unknown,
        coalesce({{ sorted_string_agg("case when meets_threshold = false then component_id end", "', '") }}, '')
            as failing_components,
        coalesce({{ sorted_string_agg("case when normalized_value is null then component_id end", "', '") }}, '')
            as missing_components,
        sum(n_trials) as n_trials
    from scores
    group by spec_id, model_id, week_start
),

composites as (
    select
        rolled_up.*,
        specs.spec_kind,
        specs.aggregation_method,
        specs.promotion_threshold,
        case
            when specs.aggregation_method = 'boolean' then case
                when rolled_up.n_failing_components > 0 then 0.0
                when rolled_up.n_thresholds_unknown = 0 then 1.0
            end
            when specs.aggregation_method is null then null
            when rolled_up.n_weighted_components_missing > 0 then null
            else rolled_up.weighted_sum
        end as composite_score
    from rolled_up
    inner join specs on rolled_up.spec_id = specs.spec_id
),

decided as (
    select
        *,
        composite_score >= promotion_threshold - 1e-9 as composite_meets_threshold,
        case
            when promotion_threshold is null then null
            when n_failing_components > 0 then false
            when composite_score is null then null
            else composite_score >= promotion_threshold - 1e-9
        end as is_promoted
    from composites
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
        cast(n_failing_components as bigint) as n_failing_components,
        missing_components,
        cast(n_components as bigint) as n_components,
        cast(n_components_scored as bigint) as n_components_scored,
        cast(n_trials as bigint) as n_trials
    from decided
)

select * from final
