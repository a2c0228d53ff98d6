-- One row per result an Inspect AI log reports: one metric of one scorer (accuracy, mean...), with the scorer's
-- stderr metric as its standard error. The first scorer's metrics keep their names, so the reported accuracy lines
-- up with the accuracy computed from the trials (which carry the first scorer's value); another scorer's metrics
-- are named <scorer>/<metric>. trial_metric names the scorer, as a trial scored by it names its metric.
-- n_samples counts samples, not sample-epochs (completed sample-epochs / epochs); dataset_n_samples is the dataset's
-- size (eval.dataset.samples), of which the eval may have run a few.
with

logs as (
    -- A log rewritten at the same path reports once: its latest header.
    select * from (
        select
            *,
            row_number() over (partition by source_path order by ingested_at desc, source_line desc) as recency
        from {{ ref('stg_inspect_ai__logs') }}
    ) as ranked_logs
    where recency = 1
),

scores as (
    select
        logs.record_id,
        logs.run_id,
        logs.model_id,
        logs.task_name,
        logs.created_at,
        logs.completed_samples,
        logs.epochs,
        logs.dataset_samples,
        logs.source_path,
        logs.source_line,
        score_index,
        {{ json_text('score_element', '$.name') }} as score_name,
        coalesce(
            {{ json_text('score_element', '$.scorer') }}, {{ json_text('score_element', '$.name') }}
        ) as scorer_name,
        {{ json_fragment('score_element', '$.metrics') }} as metrics_json
    from logs
    {{ json_array_elements('logs.results_scores_json', 'score') }}
),

metrics as (
    select
        scores.*,
        metric_key as metric_name,
        cast({{ json_text('metric_value', '$.value') }} as double) as metric_value
    from scores
    {{ json_object_entries('scores.metrics_json', 'metric') }}
),

standard_errors as (
    -- Inspect's stderr (or bootstrap_stderr) metric is the standard error of its scorer's mean.
    select
        record_id,
        score_index,
        coalesce(
            max(case when metric_name = 'stderr' then metric_value end),
            max(case when metric_name = 'bootstrap_stderr' then metric_value end)
        ) as standard_error
    from metrics
    group by record_id, score_index
),

final as (
    select
        metrics.record_id as aggregate_record_id,
        metrics.run_id,
        metrics.model_id,
        row_number() over (
            partition by metrics.record_id order by metrics.score_index, metrics.metric_name
        ) - 1 as result_index,
        metrics.task_name as reported_evaluation_name,
        case
            when metrics.score_index = 0 then metrics.metric_name
            else metrics.score_name || '/' || metrics.metric_name
        end as metric_name,
        metrics.scorer_name as trial_metric,
        cast(null as boolean) as lower_is_better,
        metrics.metric_value as score,
        standard_errors.standard_error,
        cast(metrics.completed_samples / coalesce(metrics.epochs, 1) as bigint) as n_samples,
        metrics.dataset_samples as dataset_n_samples,
        metrics.created_at as evaluated_at,
        metrics.source_path,
        metrics.source_line
    from metrics
    left join standard_errors
        on metrics.record_id = standard_errors.record_id
        and metrics.score_index = standard_errors.score_index
    where metrics.metric_name not in ('stderr', 'bootstrap_stderr')
)

select * from final
