-- One row per spec, model and week, plus one per spec and model over all weeks (week_start NULL): the spec's
-- composite score by its documented method, and the promotion decision.
--   weighted_mean, weighted_average, mean, average, sum: the sum over components of weight x normalised value
--       (weights as int_spec_components_unioned sets them); NULL when a component that weighs is missing
--   boolean: 1.0 when every component with a threshold meets it, 0.0 when one fails, else NULL
--   no method (a draft-standard spec without config.aggregation): NULL
-- A model is promoted when the composite reaches promotion_threshold (1e-9 tolerance) and every component with a
-- threshold meets it: a metric's threshold is a gate the weighted average cannot buy off, and a gate with no value
-- that week (no results, or a value the warehouse cannot measure) is not a gate passed. It is not promoted when the
-- composite falls short or a component fails, whatever is unmeasured. is_promoted is NULL otherwise: the spec sets
-- no promotion_threshold, a threshold was not measured, or the composite is NULL.
-- The composite's standard error takes the sample as the unit (docs/STATS.md): each sample's composite is the weighted
-- sum of its own normalised scores, so components scored on the same samples covary as they do. It is NULL where that
-- is not the composite's sampling error: a method that is not a weighted sum (boolean, none), a weighted latency
-- percentile (a budget ratio of a percentile over requests has no per-sample value), or a sample without a score on
-- every weighted component (the mean of the samples' composites would not be the composite). The interval is Wilson's
-- on the effective sample size (wilson_low_from_se: n is 10 to 12 here, and a composite can sit at 1). Where a
-- composite has none, no_interval_reason says why, so the report states it rather than showing a bare number. A
-- composite outside [0, the sum of the weights] (scores outside a component's scale: a warning, not clipped) has no
-- Wilson interval, so its standard error is dropped with it: a bad input must never fail the build.
-- Results outside their scale decide nothing: a component that weighs or gates with any (out_of_scale_components)
-- makes the row 'out of scale', never promoted nor not promoted, since 1.125 on a 0-1 composite reaching 0.8 says
-- only that the data are wrong. gates_within_noise names the gates whose threshold lies inside the component's own
-- interval (int_spec_component_scores.is_within_noise): their pass or fail is not established by the samples.
with

scores as (
    select * from {{ ref('int_spec_component_scores') }}
),

specs as (
    select * from {{ ref('int_eval_specs_unioned') }} where is_current
),

sample_scores as (
    select * from {{ ref('int_spec_sample_scores') }}
),

components as (
    select * from {{ ref('int_spec_components_unioned') }}
),

weighted_components as (
    select
        spec_id,
        component_id,
        weight,
        -- A component's per-sample value, normalised as its mean is; a latency budget has none.
        component_kind <> 'telemetry' and normalization in ('scale', 'pass_rate') as has_sample_values,
        scale_min,
        scale_max
    from components
    where weight > 0
),

weighted_counts as (
    select
        spec_id,
        count(*) as n_weighted_components,
        sum(case when has_sample_values then 0 else 1 end) as n_weighted_without_sample_values,
        sum(weight) as weight_sum
    from weighted_components
    group by spec_id
),

sample_composites as (
    select
        sample_scores.spec_id,
        sample_scores.model_id,
        sample_scores.week_start,
        sample_scores.sample_id,
        sum(
            weighted_components.weight
            * {{ safe_divide('sample_scores.sample_score - weighted_components.scale_min',
                             'weighted_components.scale_max - weighted_components.scale_min') }}
        ) as sample_composite,
        sum(case
            when weighted_components.has_sample_values and sample_scores.sample_score is not null then 1 else 0
        end) as n_weighted_scored
    from sample_scores
    inner join weighted_components
        on sample_scores.spec_id = weighted_components.spec_id
        and sample_scores.component_id = weighted_components.component_id
    group by sample_scores.spec_id, sample_scores.model_id, sample_scores.week_start, sample_scores.sample_id
),

composite_spread as (
    select
        sample_composites.spec_id,
        sample_composites.model_id,
        sample_composites.week_start,
        count(*) as n_composite_samples,
        sum(case
            when sample_composites.n_weighted_scored = weighted_counts.n_weighted_components then 0 else 1
        end) as n_incomplete_samples,
        {{ mean_se('sample_composites.sample_composite') }} as sample_composite_se,
        max(weighted_counts.weight_sum) as weight_sum
    from sample_composites
    inner join weighted_counts on sample_composites.spec_id = weighted_counts.spec_id
    group by sample_composites.spec_id, sample_composites.model_id, sample_composites.week_start
),

{%- set gates = '(threshold is not null or normalized_threshold is not null)' %}
{#- The mean as well as the results: rows built without a result count (unit tests) still show a value off scale. #}
{%- set off_scale = '(coalesce(n_results_out_of_scale, 0) > 0 '
    ~ 'or coalesce(normalized_value < -1e-9 or normalized_value > 1 + 1e-9, false))' %}
{%- set out_of_scale = off_scale ~ ' and (weight > 0 or ' ~ gates ~ ')' %}
{%- set unmeasured = gates ~ ' and meets_threshold is null and not ' ~ off_scale %}
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
        -- A threshold the spec sets with no verdict that week: no results, or a value the warehouse cannot measure
        -- (a telemetry metric that is not a latency; a rubric that is not loaded, whose raw threshold is unknown).
        sum(case when {{ unmeasured }} then 1 else 0 end) as n_thresholds_unknown,
        sum(case when {{ out_of_scale }} then 1 else 0 end) as n_out_of_scale_components,
        sum(case when weight > 0 and {{ off_scale }} then 1 else 0 end) as n_weighted_out_of_scale,
        sum(case when is_within_noise then 1 else 0 end) as n_gates_within_noise,
        coalesce({{ sorted_string_agg("case when meets_threshold = false then component_id end", "', '") }}, '')
            as failing_components,
        coalesce({{ sorted_string_agg("case when " ~ unmeasured ~ " then component_id end", "', '") }}, '')
            as unmeasured_thresholds,
        coalesce({{ sorted_string_agg("case when " ~ out_of_scale ~ " then component_id end", "', '") }}, '')
            as out_of_scale_components,
        coalesce({{ sorted_string_agg("case when is_within_noise then component_id end", "', '") }}, '')
            as gates_within_noise,
        coalesce({{ sorted_string_agg("case when normalized_value is null then component_id end", "', '") }}, '')
            as missing_components,
        sum(n_results) as n_results
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
                when rolled_up.n_thresholds_unknown = 0 and rolled_up.n_out_of_scale_components = 0 then 1.0
            end
            when specs.aggregation_method is null then null
            when rolled_up.n_weighted_components_missing > 0 then null
            else rolled_up.weighted_sum
        end as composite_score
    from rolled_up
    inner join specs on rolled_up.spec_id = specs.spec_id
),

with_spread as (
    select
        composites.*,
        case
            when composites.aggregation_method = 'boolean' or composites.composite_score is null then null
            when composite_spread.n_incomplete_samples = 0 then composite_spread.n_composite_samples
        end as n_composite_samples,
        case
            when composites.aggregation_method = 'boolean' or composites.composite_score is null then null
            when composite_spread.n_incomplete_samples = 0 then composite_spread.sample_composite_se
        end as composite_se,
        composite_spread.weight_sum,
        composite_spread.n_incomplete_samples,
        coalesce(weighted_counts.n_weighted_without_sample_values, 0) as n_weighted_without_sample_values
    from composites
    left join weighted_counts on composites.spec_id = weighted_counts.spec_id
    left join composite_spread
        on composites.spec_id = composite_spread.spec_id
        and composites.model_id = composite_spread.model_id
        and composites.week_start is not distinct from composite_spread.week_start
),

-- Within [0, the sum of the weights] up to rounding (a perfect score summed in another order may exceed it by 1e-16),
-- else NULL: the interval is undefined outside the scale.
{%- set in_scale = 'case when composite_score between -1e-9 and weight_sum + 1e-9 then '
    ~ 'least(greatest(composite_score, 0), weight_sum) end' %}
with_interval as (
    select
        *,
        -- n only where the standard error is defined: the macro falls back to Wilson on n when se is NULL.
        {{ wilson_low_from_se(in_scale, 'composite_se',
                              'case when composite_se is not null then n_composite_samples end',
                              0, 'weight_sum') }} as composite_ci_low,
        {{ wilson_high_from_se(in_scale, 'composite_se',
                               'case when composite_se is not null then n_composite_samples end',
                               0, 'weight_sum') }} as composite_ci_high
    from with_spread
),

decided as (
    select
        *,
        -- Not on a composite that weighs results outside their scale: it meets nothing.
        case
            when n_weighted_out_of_scale = 0 then composite_score >= promotion_threshold - 1e-9
        end as composite_meets_threshold,
        -- The threshold inside the interval: the composite cannot tell this model from the threshold on these samples.
        promotion_threshold between composite_ci_low and composite_ci_high as is_within_noise,
        case
            when composite_score is null or composite_ci_low is not null then null
            when composite_se is not null then 'composite outside its scale'
            when aggregation_method = 'boolean' then 'boolean composite'
            when n_weighted_without_sample_values > 0 then 'latency percentile'
            when n_incomplete_samples > 0 then 'a sample lacks a weighted score'
            else 'fewer than 2 samples'
        end as no_interval_reason,
        case
            when promotion_threshold is null then null
            when n_out_of_scale_components > 0 then null
            when n_failing_components > 0 then false
            when composite_score < promotion_threshold - 1e-9 then false
            when n_thresholds_unknown > 0 then null
            when composite_score is null then null
            else true
        end as is_promoted
    from with_interval
),

final as (
    select
        spec_id,
        spec_kind,
        model_id,
        week_start,
        aggregation_method,
        composite_score,
        -- Only with an interval: the contract holds the three together.
        case when composite_ci_low is not null then composite_se end as composite_se,
        composite_ci_low,
        composite_ci_high,
        cast(case when composite_ci_low is not null then n_composite_samples end as bigint) as n_composite_samples,
        promotion_threshold,
        composite_meets_threshold,
        is_within_noise,
        no_interval_reason,
        is_promoted,
        case
            when promotion_threshold is null then 'no threshold'
            when n_out_of_scale_components > 0 then 'out of scale'
            when is_promoted then 'promoted'
            when not is_promoted then 'not promoted'
            when n_thresholds_unknown > 0 then 'threshold not measured'
            else 'no composite'
        end as decision_status,
        failing_components,
        cast(n_failing_components as bigint) as n_failing_components,
        unmeasured_thresholds,
        cast(n_thresholds_unknown as bigint) as n_unmeasured_thresholds,
        out_of_scale_components,
        cast(n_out_of_scale_components as bigint) as n_out_of_scale_components,
        gates_within_noise,
        cast(n_gates_within_noise as bigint) as n_gates_within_noise,
        missing_components,
        cast(n_components as bigint) as n_components,
        cast(n_components_scored as bigint) as n_components_scored,
        cast(n_results as bigint) as n_results
    from decided
)

select * from final
