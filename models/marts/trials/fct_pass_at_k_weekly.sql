-- One row per model, eval, metric, week and k: pass@k and pass^k over the trials of that week only, for
-- week-over-week comparison (the overview and the weekly report). Same estimators, attempts of one metric and NULL
-- rules as fct_pass_at_k.
with

trials as (
    select * from {{ ref('int_trials_unioned') }}
),

weekly_tasks as (
    select
        model_id,
        evaluation_name,
        trial_metric,
        week_start,
        sample_id,
        count(is_correct) as n_trials,
        cast(sum(case when is_correct then 1 else 0 end) as bigint) as n_correct
    from trials
    group by model_id, evaluation_name, trial_metric, week_start, sample_id
    having count(is_correct) > 0
),

pass_at_k as (
    {{ pass_at_k(
        'weekly_tasks', ['model_id', 'evaluation_name', 'trial_metric', 'week_start'], n='n_trials', c='n_correct'
    ) }}
),

final as (
    select
        model_id,
        evaluation_name,
        trial_metric,
        week_start,
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
