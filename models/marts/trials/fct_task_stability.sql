-- One row per model, eval, metric and sample (task): how many scored trials it had, how many succeeded, and whether
-- it always passes, always fails, or is flaky. Trials with no verdict (is_correct NULL) are not counted. A metric's
-- own trials only: the verdicts of one response on three rubrics are not three attempts. One scored trial shows
-- neither stability nor flakiness (it cannot have passed some times and failed others): stability is NULL then, as
-- with none, never a stable_pass or stable_fail that a count of stable tasks would take for a repeated result.
with

trials as (
    select * from {{ ref('int_trials_unioned') }}
),

tasks as (
    select
        model_id,
        evaluation_name,
        trial_metric,
        sample_id,
        count(is_correct) as n_trials,
        cast(sum(case when is_correct then 1 else 0 end) as bigint) as n_correct,
        count(*) - count(is_correct) as n_unscored,
        count(distinct run_id) as n_runs,
        min(evaluated_at) as first_evaluated_at,
        max(evaluated_at) as last_evaluated_at
    from trials
    group by model_id, evaluation_name, trial_metric, sample_id
),

final as (
    select
        model_id,
        evaluation_name,
        trial_metric,
        sample_id,
        n_trials,
        n_correct,
        n_unscored,
        n_runs,
        {{ safe_divide('n_correct', 'n_trials') }} as pass_rate,
        case
            when n_trials < 2 then null
            when n_correct = n_trials then 'stable_pass'
            when n_correct = 0 then 'stable_fail'
            else 'flaky'
        end as stability,
        first_evaluated_at,
        last_evaluated_at
    from tasks
)

select * from final
