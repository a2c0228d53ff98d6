-- One row per model, eval, metric and k: pass@k (at least one of k trials succeeds) and pass^k (all k succeed), the
-- unbiased estimators averaged over tasks with their standard errors. The trials counted are attempts scored on
-- one metric (fct_task_stability). k runs over 1, 2, 4, ... up to the most trials any task has, plus that most
-- itself when it is not a power of two (macros/stats/pass_at_k.sql). NULL where some task has fewer than k trials
-- (n_tasks_with_enough_trials says how many).
with

tasks as (
    select * from {{ ref('fct_task_stability') }}
    where n_trials > 0
),

pass_at_k as (
    {{ pass_at_k('tasks', ['model_id', 'evaluation_name', 'trial_metric'], n='n_trials', c='n_correct') }}
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
