-- One row per model, eval, metric, origin and run: a benchmark score with its error bars.
--   reported  what an aggregate record published, with its own standard error and interval;
--   computed  what the warehouse computes from the run's trials: each sample's trials are averaged first (the
--             sample is the unit; K trials of one question are not K independent observations), then the mean
--             and its standard error are taken over samples. Accuracy is a 0/1 rate: its interval is Wilson's
--             on n_samples (conservative when samples have several trials); mean_score gets mean +- 1.96 SE.
with

reported as (
    select * from {{ ref('int_benchmark_results_unnested') }}
),

trials as (
    select * from {{ ref('int_trials_unioned') }}
),

reported_results as (
    select
        model_id,
        evaluation_name,
        metric_name,
        'reported' as result_origin,
        run_id,
        score,
        standard_error,
        coalesce(ci_low, score - 1.96 * standard_error) as ci_low,
        coalesce(ci_high, score + 1.96 * standard_error) as ci_high,
        case
            when ci_low is not null then 'reported'
            when standard_error is not null then 'normal_from_reported_se'
        end as interval_method,
        n_samples,
        lower_is_better,
        evaluated_at
    from reported
),

sample_means as (
    select
        run_id,
        model_id,
        evaluation_name,
        sample_id,
        avg(case when is_correct then 1.0 when not is_correct then 0.0 end) as accuracy,
        avg(score) as mean_score,
        min(evaluated_at) as evaluated_at
    from trials
    group by run_id, model_id, evaluation_name, sample_id
),

accuracy as (
    select
        model_id,
        evaluation_name,
        'accuracy' as metric_name,
        'computed' as result_origin,
        run_id,
        avg(accuracy) as score,
        {{ mean_se('accuracy') }} as standard_error,
        {{ wilson_low('sum(accuracy)', 'count(accuracy)') }} as ci_low,
        {{ wilson_high('sum(accuracy)', 'count(accuracy)') }} as ci_high,
        'wilson' as interval_method,
        count(accuracy) as n_samples,
        false as lower_is_better,
        min(evaluated_at) as evaluated_at
    from sample_means
    where accuracy is not null
    group by model_id, evaluation_name, run_id
),

mean_score as (
    select
        model_id,
        evaluation_name,
        'mean_score' as metric_name,
        'computed' as result_origin,
        run_id,
        avg(mean_score) as score,
        {{ mean_se('mean_score') }} as standard_error,
        avg(mean_score) - 1.96 * {{ mean_se('mean_score') }} as ci_low,
        avg(mean_score) + 1.96 * {{ mean_se('mean_score') }} as ci_high,
        'normal' as interval_method,
        count(mean_score) as n_samples,
        false as lower_is_better,
        min(evaluated_at) as evaluated_at
    from sample_means
    where mean_score is not null
    group by model_id, evaluation_name, run_id
),

unioned as (
    select * from reported_results
    union all
    select * from accuracy
    union all
    select * from mean_score
),

final as (
    select
        *,
        {{ week_start('evaluated_at') }} as week_start
    from unioned
)

select * from final
