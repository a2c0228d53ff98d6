-- One row per model, eval, metric and k: pass@k (at least one of k attempts succeeds) and pass^k (all k succeed) of
-- one run, over all runs: the unbiased estimators per task and run, averaged over the task's runs, then over tasks,
-- with standard errors over tasks (the sampling unit). The trials counted are attempts scored on one metric.
-- Why per run: the runs are weeks apart and the model behind them moves (acme/chat-13b's gsm8k pass@4 fell from
-- 0.88 to 0.78 in W47). Pooling every run's trials of a task as if interchangeable reached k = 64 on tau_retail,
-- where no run made more than 8 attempts: k attempts drawn across weeks, which no run ever made, and a mixture of a
-- good and a bad week reads as reliable (all 8 successes of one week and 8 failures of another give a pooled pass@8
-- near 1, where each run's pass@8 is 1 and 0, 0.5 on average). So k runs over 1, 2, 4, ... up to the most attempts
-- one run made on a task, plus that most itself when it is not a power of two (macros/stats/pass_at_k.sql), and
-- where some run of some task made fewer than k attempts pass@k is NULL, as the weekly mart's rule (every task needs
-- k trials) says: n_tasks_with_enough_trials counts the tasks whose every run did. Trials without a run id count
-- as one run.
with

trials as (
    select * from {{ ref('int_trials_unioned') }}
),

run_tasks as (
    select
        model_id,
        evaluation_name,
        trial_metric,
        sample_id,
        run_id,
        count(is_correct) as n_trials,
        cast(sum(case when is_correct then 1 else 0 end) as bigint) as n_correct
    from trials
    group by model_id, evaluation_name, trial_metric, sample_id, run_id
    having count(is_correct) > 0
),

-- Per task: the mean over its runs of each run's pass@k; NULL at a k some run of the task made fewer attempts than.
task_pass_at_k as (
    {{ pass_at_k('run_tasks', ['model_id', 'evaluation_name', 'trial_metric', 'sample_id'],
                 n='n_trials', c='n_correct') }}
),

tasks as (
    select
        model_id,
        evaluation_name,
        trial_metric,
        sample_id,
        max(n_trials) as most_run_trials
    from run_tasks
    group by model_id, evaluation_name, trial_metric, sample_id
),

groups as (
    select
        model_id,
        evaluation_name,
        trial_metric,
        count(*) as n_tasks,
        max(most_run_trials) as most_run_trials
    from tasks
    group by model_id, evaluation_name, trial_metric
),

-- The group's k: those of a task whose run made the most attempts (1, 2, 4, ... and that most).
group_k as (
    select distinct
        task_pass_at_k.model_id,
        task_pass_at_k.evaluation_name,
        task_pass_at_k.trial_metric,
        task_pass_at_k.k
    from task_pass_at_k
    inner join tasks
        on task_pass_at_k.model_id = tasks.model_id
        and task_pass_at_k.evaluation_name = tasks.evaluation_name
        and task_pass_at_k.trial_metric = tasks.trial_metric
        and task_pass_at_k.sample_id = tasks.sample_id
    inner join groups
        on tasks.model_id = groups.model_id
        and tasks.evaluation_name = groups.evaluation_name
        and tasks.trial_metric = groups.trial_metric
        and tasks.most_run_trials = groups.most_run_trials
),

-- A task without a row at k (its runs made fewer than k attempts) or with a NULL one lacks enough trials.
pass_at_k as (
    select
        group_k.model_id,
        group_k.evaluation_name,
        group_k.trial_metric,
        group_k.k,
        groups.n_tasks,
        count(task_pass_at_k.pass_at_k) as n_tasks_with_enough_trials,
        case when count(task_pass_at_k.pass_at_k) = groups.n_tasks then avg(task_pass_at_k.pass_at_k) end
            as pass_at_k,
        case
            when count(task_pass_at_k.pass_at_k) = groups.n_tasks
                then {{ mean_se('task_pass_at_k.pass_at_k') }}
        end as pass_at_k_se,
        case when count(task_pass_at_k.pass_at_k) = groups.n_tasks then avg(task_pass_at_k.pass_hat_k) end
            as pass_hat_k,
        case
            when count(task_pass_at_k.pass_at_k) = groups.n_tasks
                then {{ mean_se('task_pass_at_k.pass_hat_k') }}
        end as pass_hat_k_se
    from group_k
    inner join groups
        on group_k.model_id = groups.model_id
        and group_k.evaluation_name = groups.evaluation_name
        and group_k.trial_metric = groups.trial_metric
    left join task_pass_at_k
        on group_k.model_id = task_pass_at_k.model_id
        and group_k.evaluation_name = task_pass_at_k.evaluation_name
        and group_k.trial_metric = task_pass_at_k.trial_metric
        and group_k.k = task_pass_at_k.k
    group by group_k.model_id, group_k.evaluation_name, group_k.trial_metric, group_k.k, groups.n_tasks
),

final as (
    select
        model_id,
        evaluation_name,
        trial_metric,
        k,
        n_tasks,
        cast(n_tasks_with_enough_trials as bigint) as n_tasks_with_enough_trials,
        pass_at_k,
        pass_at_k_se,
        pass_hat_k,
        pass_hat_k_se
    from pass_at_k
)

select * from final
