-- One row per model, eval, metric, week and sample (task): fct_task_stability for the runs that started that week, so
-- the Reliability page's stable/flaky counts for a week read the same runs as its pass@k curves for that week
-- (fct_pass_at_k_weekly): a run counts once, whole, in the week of its first trial (macros/trials/weekly_run_tasks.sql).
-- A task with no scored trial in the week's runs has no row (fct_task_stability's stability NULL, "no verdict");
-- one with a single scored trial has stability NULL, as in fct_task_stability: one trial shows no stability.
with

trials as (
    select * from {{ ref('int_trials_unioned') }}
),

-- each run's scored attempts at each task, in the week the run started
run_tasks as (
    {{ weekly_run_tasks('trials') }}
),

-- count(distinct run_id) leaves out a NULL run id, which is one run of its own (as fct_pass_at_k_weekly counts).
tasks as (
    select
        model_id,
        evaluation_name,
        trial_metric,
        week_start,
        sample_id,
        cast(sum(n_trials) as bigint) as n_trials,
        cast(sum(n_correct) as bigint) as n_correct,
        count(distinct run_id) + max(case when run_id is null then 1 else 0 end) as n_runs
    from run_tasks
    group by model_id, evaluation_name, trial_metric, week_start, sample_id
),

final as (
    select
        model_id,
        evaluation_name,
        trial_metric,
        week_start,
        sample_id,
        n_trials,
        n_correct,
        n_runs,
        {{ safe_divide('n_correct', 'n_trials') }} as pass_rate,
        case
            when n_trials < 2 then null
            when n_correct = n_trials then 'stable_pass'
            when n_correct = 0 then 'stable_fail'
            else 'flaky'
        end as stability
    from tasks
)

select * from final
