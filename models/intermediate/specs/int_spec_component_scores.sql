-- One row per spec, model, component and week, plus one row per spec, model and component over all weeks
-- (week_start NULL): the component's raw value in its own units, its value normalised to [0, 1], the interval,
-- the threshold check, and its weight in the composite. Every component of the spec gets a row for every model
-- and week with any result for the spec: a component without results there has n = 0 and NULL values.
-- The sample is the unit for scores (a sample's repeated trials are averaged first); for latency the request is.
-- Rates (pass rates, binary rubrics) get Wilson intervals on n; scales (a judge's 1-5) Wilson's on the effective
-- sample size (wilson_low_from_se on the scale's bounds, as fct_benchmark_results does): mean +- 1.96 SE left [0, 1]
-- near the top of a scale and shrank to a point when every sample scored the same; a latency percentile gets none.
-- Thresholds are compared in the component's own units with a 1e-9 tolerance for floating-point rounding. A
-- component with results outside its declared scale has no threshold verdict: a gate is not passed, nor failed, on
-- invalid data (n_results_out_of_scale counts them). is_within_noise marks a threshold inside the component's
-- interval, as fct_promotion_decisions does for the composite: the samples cannot tell the value from the gate.
with

trials as (
    select * from {{ ref('int_spec_trials_joined') }} where is_matched
),

-- Scores are taken over samples (int_spec_composites' standard error uses the same rows); latency over requests.
sample_scores as (
    select * from {{ ref('int_spec_sample_scores') }}
),

components as (
    select * from {{ ref('int_spec_components_unioned') }}
),

-- Each trial counts in its week and in the all-weeks row (week_start NULL).
periods as (
    select
        spec_id,
        model_id,
        component_id,
        week_start,
        cast(week_start as varchar) as period_key,
        latency_ms
    from trials
    union all
    select
        spec_id,
        model_id,
        component_id,
        cast(null as date) as week_start,
        'all weeks' as period_key,
        latency_ms
    from trials
),

score_stats as (
    select
        spec_id,
        model_id,
        component_id,
        coalesce(cast(week_start as varchar), 'all weeks') as period_key,
        count(sample_score) as n_samples,
        sum(n_results) as n_results,
        sum(n_results_out_of_scale) as n_results_out_of_scale,
        avg(sample_score) as mean_score,
        {{ mean_se('sample_score') }} as mean_score_se,
        sum(sample_score) as score_sum,
        avg(sample_computed_score) as computed_mean_score,
        count(sample_computed_score) as n_computed_samples,
        sum(n_disagreements) as n_disagreements
    from sample_scores
    group by spec_id, model_id, component_id, week_start
),

latency_stats as (
    select
        spec_id,
        model_id,
        component_id,
        period_key,
        count(latency_ms) as n_requests,
        avg(latency_ms) as latency_mean,
        {{ percentile_linear('latency_ms', 0.5) }} as latency_p50,
        {{ percentile_linear('latency_ms', 0.9) }} as latency_p90,
        {{ percentile_linear('latency_ms', 0.95) }} as latency_p95,
        {{ percentile_linear('latency_ms', 0.99) }} as latency_p99
    from periods
    group by spec_id, model_id, component_id, period_key
),

model_periods as (
    select distinct
        spec_id,
        model_id,
        period_key,
        week_start
    from periods
),

grid as (
    select
        model_periods.model_id,
        model_periods.period_key,
        model_periods.week_start,
        components.*
    from model_periods
    inner join components on model_periods.spec_id = components.spec_id
),

measured as (
    select
        grid.*,
        case
            when grid.component_kind = 'telemetry' then case grid.telemetry_statistic
                when 'p50' then latency_stats.latency_p50
                when 'p90' then latency_stats.latency_p90
                when 'p95' then latency_stats.latency_p95
                when 'p99' then latency_stats.latency_p99
                when 'mean' then latency_stats.latency_mean
            end
            else score_stats.mean_score
        end as raw_value,
        case
            when grid.component_kind = 'telemetry' then coalesce(latency_stats.n_requests, 0)
            else coalesce(score_stats.n_samples, 0)
        end as n,
        coalesce(score_stats.n_results, 0) as n_results,
        coalesce(score_stats.n_results_out_of_scale, 0) as n_results_out_of_scale,
        score_stats.mean_score_se,
        score_stats.score_sum,
        score_stats.computed_mean_score,
        coalesce(score_stats.n_computed_samples, 0) as n_computed_samples,
        coalesce(score_stats.n_disagreements, 0) as n_disagreements
    from grid
    left join score_stats
        on grid.spec_id = score_stats.spec_id
        and grid.model_id = score_stats.model_id
        and grid.component_id = score_stats.component_id
        and grid.period_key = score_stats.period_key
    left join latency_stats
        on grid.spec_id = latency_stats.spec_id
        and grid.model_id = latency_stats.model_id
        and grid.component_id = latency_stats.component_id
        and grid.period_key = latency_stats.period_key
),

normalized as (
    select
        *,
        case
            when normalization = 'latency_budget' then case
                when raw_value is null or threshold is null then null
                when raw_value <= threshold then 1.0
                else threshold / raw_value
            end
            else {{ safe_divide('raw_value - scale_min', 'scale_max - scale_min') }}
        end as normalized_value,
        case
            when raw_value is null or threshold is null or n_results_out_of_scale > 0 then null
            when threshold_direction = 'at_most' then raw_value <= threshold + 1e-9
            else raw_value >= threshold - 1e-9
        end as meets_threshold,
        -- A rate's successes on the [0, 1] scale: the sum of the samples' normalised scores.
        {{ safe_divide('score_sum - n * scale_min', 'scale_max - scale_min') }} as binary_successes
    from measured
),

-- A scale's interval on its own bounds, mapped onto [0, 1] like the value; NULL when the mean lies outside them.
{%- set scale_se = safe_divide('mean_score_se', 'scale_max - scale_min') %}
{%- set scale_low = wilson_low_from_se('normalized_value', scale_se, 'n') %}
{%- set scale_high = wilson_high_from_se('normalized_value', scale_se, 'n') %}
intervals as (
    select
        *,
        case
            -- Wilson needs 0 <= successes <= n: a "rate" fed scores outside [0, 1] gets no interval.
            when interval_method = 'wilson' and n > 0 and binary_successes between 0 and n
                then {{ wilson_low('binary_successes', 'n') }}
            when interval_method = 'wilson_from_se' and n > 0 then {{ scale_low }}
        end as ci_low,
        case
            when interval_method = 'wilson' and n > 0 and binary_successes between 0 and n
                then {{ wilson_high('binary_successes', 'n') }}
            when interval_method = 'wilson_from_se' and n > 0 then {{ scale_high }}
        end as ci_high
    from normalized
),

final as (
    select
        spec_id,
        spec_kind,
        model_id,
        component_id,
        week_start,
        component_index,
        component_kind,
        scored_by,
        normalization,
        raw_value,
        normalized_value,
        ci_low,
        ci_high,
        case when ci_low is not null then interval_method end as interval_method,
        -- Only beside a verdict: an out-of-scale value has none to be near. The tolerance is the threshold's own.
        -- A gate at an end of the scale (a rate of at least 1: no sample may fail) is a rule the samples keep or
        -- break, not an estimate: every interval of a perfect record reaches 1, so it would always read as noise.
        -- Without an interval (a latency percentile) nearness is undefined: NULL, never a false "clear of it" (a
        -- latency budget's normalized threshold is 1, an end of the scale, which alone read false).
        case
            when meets_threshold is not null and ci_low is not null and ci_high is not null
                then normalized_threshold between ci_low - 1e-9 and ci_high + 1e-9
                    and normalized_threshold > 1e-9 and normalized_threshold < 1 - 1e-9
        end as is_within_noise,
        weight,
        stated_weight,
        aggregation_method,
        threshold,
        normalized_threshold,
        threshold_direction,
        meets_threshold,
        cast(n as bigint) as n,
        cast(n_results as bigint) as n_results,
        cast(n_results_out_of_scale as bigint) as n_results_out_of_scale,
        computed_mean_score as computed_raw_value,
        cast(n_computed_samples as bigint) as n_computed_samples,
        cast(n_disagreements as bigint) as n_disagreements
    from intervals
)

select * from final
