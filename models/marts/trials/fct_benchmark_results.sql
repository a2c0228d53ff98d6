-- One row per model, eval, metric, trial metric, origin and run: a benchmark score with its error bars.
--   reported  what an aggregate record published, with its own standard error; trial_metric is the metric the
--             result's trials carry, so it lines up with the results computed from them.
--   computed  what the warehouse computes from the run's trials, one trial metric at a time (scores of different
--             metrics are never averaged together): accuracy, the share of trials that succeeded, and mean_score,
--             their mean score. Each sample's trials are averaged first (the sample is the unit; K trials of one
--             question are not K independent observations), then the mean and its standard error
--             sqrt(var_samp / n_samples) are taken over samples. When the run reports a metric that is its trials'
--             own metric and every trial's score is its verdict, 0 or 1 (lm-eval's exact_match: the share of docs
--             matched), the mean_score is given under the reported name too, so the two sit side by side. Other
--             scores are not: a reported F1 or perplexity need not be the mean of its samples' values.
-- n_samples: the samples (questions) the score is over, which its interval is built on: a reported result's as
-- int_benchmark_results_unnested counts them (the sample ids it lists, else the count it states), a computed one's
-- samples with a trial. dataset_n_samples: the size of the dataset a reported result drew them from (Every Eval Ever's
-- samples_number: ai2_arc's 2376 for a score over 3 of them); NULL for computed results.
-- evaluated_at: a reported result's (int_benchmark_results_unnested: its record's time, else when it was retrieved,
-- else ingested); a computed result's earliest trial's. evaluated_at_source says which.
-- The 95% interval stays within the metric's bounds (min_score, max_score) where it has them:
--   both bounds      the Wilson interval on the effective sample size (macros/stats/wilson_interval.sql,
--                    wilson_low_from_se): consistent with standard_error, unlike a Wilson interval on n_samples,
--                    which ignores that a sample's averaged trials vary less than one trial does
--   otherwise        score +- 1.96 standard_error, cut at the bound it has
--   published        the aggregate's own interval, cut at the bounds, when it is a 95% one: its record states
--                    confidence_level 0.95, or no level. An interval at another level (0.9, 0.99) is no 95% interval
--                    and is not shown as one: the result's interval is built from its standard error as above, or
--                    there is none (int_benchmark_results_unnested keeps the published ends and their ci_level)
-- Bounds: accuracy is a rate, [0, 1]; a reported metric's are its metric_config's, else the seed
-- metric_vocabulary's; a computed mean_score's are its trial metric's: the vocabulary's, else the scale of the spec
-- component (rubric, suite metric) its trials score, else the run's reported result's on it, else [0, 1] when every
-- score is its trial's verdict (1 when it succeeded, 0 when not: the mean score is then the accuracy). Declared bounds
-- the score lies outside of cannot be right: such a row has no interval.
with

reported as (
    select * from {{ ref('int_benchmark_results_unnested') }}
),

trials as (
    select * from {{ ref('int_trials_unioned') }}
),

vocabulary as (
    select * from {{ ref('metric_vocabulary') }}
),

reported_results as (
    select
        model_id,
        evaluation_name,
        metric_name,
        trial_metric,
        'reported' as result_origin,
        run_id,
        score,
        standard_error,
        ci_low as published_ci_low,
        ci_high as published_ci_high,
        ci_level as published_ci_level,
        min_score,
        max_score,
        n_samples,
        dataset_n_samples,
        lower_is_better,
        evaluated_at,
        evaluated_at_source
    from reported
),

reported_trial_metrics as (
    -- reported results that are their trials' own metric averaged (lm-eval's exact_match), not named as computed
    select distinct run_id, model_id, evaluation_name, metric_name
    from reported
    where metric_name = trial_metric and metric_name not in ('accuracy', 'mean_score')
),

reported_bounds as (
    -- what a run's reported results declare of a trial metric's range: the widest, if they differ
    select
        run_id,
        trial_metric,
        min(min_score) as min_score,
        max(max_score) as max_score
    from reported
    group by run_id, trial_metric
),

spec_bounds as (
    -- the scale of the spec component a trial metric's trials score (a 1 to 5 judge rubric, a 0/1 check)
    select
        spec_trials.evaluation_name,
        spec_trials.trial_metric,
        min(components.scale_min) as min_score,
        max(components.scale_max) as max_score
    from {{ ref('int_spec_trials_joined') }} as spec_trials
    inner join {{ ref('int_spec_components_unioned') }} as components
        on spec_trials.spec_id = components.spec_id
        and spec_trials.component_id = components.component_id
    where spec_trials.is_matched
    group by spec_trials.evaluation_name, spec_trials.trial_metric
),

sample_means as (
    select
        run_id,
        model_id,
        evaluation_name,
        trial_metric,
        sample_id,
        avg(case when is_correct then 1.0 when not is_correct then 0.0 end) as accuracy,
        avg(score) as mean_score,
        -- 1 when every scored trial's score is its verdict as 0/1
        min(
            case
                when score is null then 1
                when score = 1 and is_correct then 1
                when score = 0 and not is_correct then 1
                else 0
            end
        ) as scores_are_verdicts,
        min(evaluated_at) as evaluated_at,
        -- where the sample's earliest trial took its time from
        {{ first_by('evaluated_at_source', ['evaluated_at', 'evaluated_at_source']) }} as evaluated_at_source
    from trials
    group by run_id, model_id, evaluation_name, trial_metric, sample_id
),

computed_accuracy as (
    select
        model_id,
        evaluation_name,
        'accuracy' as metric_name,
        trial_metric,
        run_id,
        avg(accuracy) as score,
        {{ mean_se('accuracy') }} as standard_error,
        count(accuracy) as n_samples,
        min(evaluated_at) as evaluated_at,
        {{ first_by('evaluated_at_source', ['evaluated_at', 'evaluated_at_source']) }} as evaluated_at_source
    from sample_means
    where accuracy is not null
    group by model_id, evaluation_name, trial_metric, run_id
),

computed_mean_score as (
    select
        model_id,
        evaluation_name,
        'mean_score' as metric_name,
        trial_metric,
        run_id,
        avg(mean_score) as score,
        {{ mean_se('mean_score') }} as standard_error,
        count(mean_score) as n_samples,
        min(scores_are_verdicts) = 1 as scores_are_verdicts,
        min(evaluated_at) as evaluated_at,
        {{ first_by('evaluated_at_source', ['evaluated_at', 'evaluated_at_source']) }} as evaluated_at_source
    from sample_means
    where mean_score is not null
    group by model_id, evaluation_name, trial_metric, run_id
),

computed_means as (
    select * from computed_mean_score

    union all

    -- the same mean under the name the run reports it by
    select
        computed_mean_score.model_id,
        computed_mean_score.evaluation_name,
        reported_trial_metrics.metric_name,
        computed_mean_score.trial_metric,
        computed_mean_score.run_id,
        computed_mean_score.score,
        computed_mean_score.standard_error,
        computed_mean_score.n_samples,
        computed_mean_score.scores_are_verdicts,
        computed_mean_score.evaluated_at,
        computed_mean_score.evaluated_at_source
    from computed_mean_score
    inner join reported_trial_metrics
        on computed_mean_score.run_id = reported_trial_metrics.run_id
        and computed_mean_score.model_id = reported_trial_metrics.model_id
        and computed_mean_score.evaluation_name = reported_trial_metrics.evaluation_name
        and computed_mean_score.trial_metric = reported_trial_metrics.metric_name
    where computed_mean_score.scores_are_verdicts
),

computed_results as (
    select
        computed_accuracy.model_id,
        computed_accuracy.evaluation_name,
        computed_accuracy.metric_name,
        computed_accuracy.trial_metric,
        'computed' as result_origin,
        computed_accuracy.run_id,
        computed_accuracy.score,
        computed_accuracy.standard_error,
        cast(null as double) as published_ci_low,
        cast(null as double) as published_ci_high,
        cast(null as double) as published_ci_level,
        cast(0 as double) as min_score,
        cast(1 as double) as max_score,
        computed_accuracy.n_samples,
        cast(null as bigint) as dataset_n_samples,
        false as lower_is_better,
        computed_accuracy.evaluated_at,
        computed_accuracy.evaluated_at_source
    from computed_accuracy

    union all

    select
        computed_mean_score.model_id,
        computed_mean_score.evaluation_name,
        computed_mean_score.metric_name,
        computed_mean_score.trial_metric,
        'computed' as result_origin,
        computed_mean_score.run_id,
        computed_mean_score.score,
        computed_mean_score.standard_error,
        cast(null as double) as published_ci_low,
        cast(null as double) as published_ci_high,
        cast(null as double) as published_ci_level,
        coalesce(
            vocabulary.min_score,
            spec_bounds.min_score,
            reported_bounds.min_score,
            case when computed_mean_score.scores_are_verdicts then 0.0 end
        ) as min_score,
        coalesce(
            vocabulary.max_score,
            spec_bounds.max_score,
            reported_bounds.max_score,
            case when computed_mean_score.scores_are_verdicts then 1.0 end
        ) as max_score,
        computed_mean_score.n_samples,
        cast(null as bigint) as dataset_n_samples,
        coalesce(vocabulary.lower_is_better, false) as lower_is_better,
        computed_mean_score.evaluated_at,
        computed_mean_score.evaluated_at_source
    from computed_means as computed_mean_score
    left join vocabulary on computed_mean_score.trial_metric = vocabulary.alias
    left join spec_bounds
        on computed_mean_score.evaluation_name = spec_bounds.evaluation_name
        and computed_mean_score.trial_metric = spec_bounds.trial_metric
    left join reported_bounds
        on computed_mean_score.run_id = reported_bounds.run_id
        and computed_mean_score.trial_metric = reported_bounds.trial_metric
),

unioned as (
    select * from reported_results
    union all
    select * from computed_results
),

bounded as (
    -- a range whose ends are the wrong way round is no range
    select
        model_id,
        evaluation_name,
        metric_name,
        trial_metric,
        result_origin,
        run_id,
        score,
        standard_error,
        published_ci_low,
        published_ci_high,
        published_ci_level,
        case when coalesce(min_score < max_score, true) then min_score end as min_score,
        case when coalesce(min_score < max_score, true) then max_score end as max_score,
        n_samples,
        dataset_n_samples,
        lower_is_better,
        evaluated_at,
        evaluated_at_source
    from unioned
),

classified as (
    select
        *,
        case
            when score is null
                or not coalesce(score >= min_score, true)
                or not coalesce(score <= max_score, true)
                then 'none'
            when published_ci_low is not null and published_ci_high is not null
                and coalesce(abs(published_ci_level - 0.95) < 1e-9, true) then 'published'
            when min_score is not null and max_score is not null
                and (standard_error is not null or result_origin = 'computed') then 'wilson'
            when standard_error is not null then 'normal'
            else 'none'
        end as interval_kind
    from bounded
),

intervals as (
    select
        *,
        case interval_kind
            when 'published' then greatest(published_ci_low, min_score)
            when 'wilson'
                then {{ wilson_low_from_se('score', 'standard_error', 'n_samples', 'min_score', 'max_score') }}
            when 'normal' then greatest(score - 1.96 * standard_error, min_score)
        end as ci_low,
        case interval_kind
            when 'published' then least(published_ci_high, max_score)
            when 'wilson'
                then {{ wilson_high_from_se('score', 'standard_error', 'n_samples', 'min_score', 'max_score') }}
            when 'normal' then least(score + 1.96 * standard_error, max_score)
        end as ci_high
    from classified
),

final as (
    select
        model_id,
        evaluation_name,
        metric_name,
        trial_metric,
        result_origin,
        run_id,
        score,
        standard_error,
        ci_low,
        ci_high,
        case
            when ci_low is null or ci_high is null then null
            when interval_kind = 'published' then 'reported'
            when result_origin = 'reported' then interval_kind || '_from_reported_se'
            else interval_kind
        end as interval_method,
        min_score,
        max_score,
        n_samples,
        dataset_n_samples,
        lower_is_better,
        evaluated_at,
        evaluated_at_source,
        {{ week_start('evaluated_at') }} as week_start
    from intervals
)

select * from final
