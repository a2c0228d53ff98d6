-- One row per result an lm-evaluation-harness results file reports: one task (or group), metric and filter
-- ("exact_match,strict-match": value), with "<metric>_stderr,<filter>" as its standard error (lm-eval writes "N/A"
-- where it computed none: NULL here). The eval is named as the trials name it: the task, or task/filter when the
-- filter is not "none". n_samples is the task's effective sample count (after --limit), dataset_n_samples its original
-- one (the task's documents); lower_is_better from higher_is_better.
-- trial_metric is the metric: a samples line whose primary metric it is carries it as its trial's metric.
with

results as (
    select * from {{ ref('stg_lm_eval__results') }}
),

tasks as (
    select
        results.record_id,
        results.run_id,
        results.model_id,
        results.evaluated_at,
        results.n_samples_json,
        results.higher_is_better_json,
        results.source_path,
        results.source_line,
        task_key as task_name,
        task_value as task_results_json
    from results
    {{ json_object_entries('results.results_json', 'task') }}
),

entries as (
    select
        tasks.record_id,
        tasks.task_name,
        regexp_extract(entry_key, '^([^,]*),', 1) as metric_name,
        regexp_extract(entry_key, '^[^,]*,(.*)$', 1) as filter_name,
        entry_value
    from tasks
    {{ json_object_entries('tasks.task_results_json', 'entry') }}
    where entry_key like '%,%'
),

valued as (
    select
        *,
        -- Numbers only: "N/A" (and anything else that is not a number) is no value.
        case
            when lower(entry_value) in ('nan', '-nan', 'inf', '-inf', 'infinity', '-infinity') then null
            else try_cast(entry_value as double)
        end as value
    from entries
),

sample_counts as (
    select
        tasks.record_id,
        tasks.task_name,
        cast({{ json_text('count_value', '$.effective') }} as bigint) as n_effective,
        cast({{ json_text('count_value', '$.original') }} as bigint) as n_original
    from tasks
    {{ json_object_entries('tasks.n_samples_json', 'count') }}
    where count_key = tasks.task_name
),

directions as (
    select
        tasks.record_id,
        tasks.task_name,
        direction_key as metric_name,
        cast(direction_value as boolean) as higher_is_better
    from tasks
    {{ json_object_entries('tasks.higher_is_better_json', 'task_direction') }}
    {{ json_object_entries('task_direction_value', 'direction') }}
    where task_direction_key = tasks.task_name
),

metric_values as (
    select * from valued where right(metric_name, 7) <> '_stderr'
),

standard_errors as (
    select * from valued where right(metric_name, 7) = '_stderr'
),

final as (
    select
        tasks.record_id as aggregate_record_id,
        tasks.run_id,
        tasks.model_id,
        row_number() over (
            partition by tasks.record_id
            order by tasks.task_name, metric_values.metric_name, metric_values.filter_name
        ) - 1 as result_index,
        case
            when metric_values.filter_name = 'none' then tasks.task_name
            else tasks.task_name || '/' || metric_values.filter_name
        end as reported_evaluation_name,
        metric_values.metric_name,
        metric_values.metric_name as trial_metric,
        not directions.higher_is_better as lower_is_better,
        metric_values.value as score,
        standard_errors.value as standard_error,
        sample_counts.n_effective as n_samples,
        sample_counts.n_original as dataset_n_samples,
        tasks.evaluated_at,
        tasks.source_path,
        tasks.source_line
    from metric_values
    inner join tasks
        on metric_values.record_id = tasks.record_id
        and metric_values.task_name = tasks.task_name
    left join standard_errors
        on metric_values.record_id = standard_errors.record_id
        and metric_values.task_name = standard_errors.task_name
        and metric_values.metric_name || '_stderr' = standard_errors.metric_name
        and metric_values.filter_name = standard_errors.filter_name
    left join sample_counts
        on metric_values.record_id = sample_counts.record_id
        and metric_values.task_name = sample_counts.task_name
    left join directions
        on metric_values.record_id = directions.record_id
        and metric_values.task_name = directions.task_name
        and metric_values.metric_name = directions.metric_name
    where metric_values.value is not null
)

select * from final
