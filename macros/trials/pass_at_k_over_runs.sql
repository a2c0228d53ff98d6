{# The select of the two pass@k marts, which differ only in their window: fct_pass_at_k (every run: weekly=false)
   and fct_pass_at_k_weekly (the runs of one week: weekly=true, with week_start). One rule, so the two cannot drift
   apart again: the weekly mart pooled a week's runs of a task as one run while the all-time mart went per run.
   pass@k and pass^k are one run's (the unbiased estimators per task and run, docs/STATS.md), averaged over the
   task's runs in the window, then over tasks, with standard errors over tasks (the sampling unit). A week's runs
   are those that started in it: a run whose trials straddle a week's end counts once, whole, in the week of its
   first trial (macros/trials/weekly_run_tasks.sql; it counted in each of its weeks with the attempts it made there).
   Trials without a run id count as one run (in the weekly mart, one per week). The trials counted are attempts
   scored on one metric. first_run_at and last_run_at say when the first and the last of the runs started (a run's
   first trial on the metric, the time a weekly run is dated by): the span n_runs covers.
   The 95% intervals are Wilson's on the effective sample size of the standard error over tasks (wilson_low_from_se
   on n_tasks: wherever an estimate is defined every task has one), as fct_benchmark_results gives accuracy. pass@k
   sits near 1 at large k and an eval has few tasks: the mean +- 1.96 SE the app drew, clipped to [0, 1], was a
   one-sided [0.97, 1.00] around 0.99, and a bare point at 1 when every task passed (SE 0), where this interval is
   Wilson's on n_tasks (3 tasks, all passed: [0.44, 1]). #}
{% macro pass_at_k_over_runs(weekly) %}
{%- set keys = ['model_id', 'evaluation_name', 'trial_metric'] + (['week_start'] if weekly else []) %}
{#- Why not pass_at_k(group_by=keys + ['sample_id']) for the per-task means: it makes k per task, a 63-row cross join
    for each of the benchmark's 250,000 weekly run-tasks (1.7 s against 0.35 s for the pooled weekly mart); k is
    the group's, so it is made once per group here and the estimates once per distinct (n, c, k) as there. #}
with

trials as (
    select * from {{ ref('int_trials_unioned') }}
),

{% if weekly %}
-- each run in the week it started, whole (macros/trials/weekly_run_tasks.sql)
run_tasks as (
    {{ weekly_run_tasks('trials') }}
),
{% else %}
run_task_cells as (
    select
        {{ keys | join(',\n        ') }},
        sample_id,
        run_id,
        count(is_correct) as n_trials,
        cast(sum(case when is_correct then 1 else 0 end) as bigint) as n_correct,
        min(evaluated_at) as first_trial_at
    from trials
    group by {{ keys | join(', ') }}, sample_id, run_id
),

-- the tasks a run scored; when it started is its first trial on the metric, at any task, scored or not (as a
-- weekly run is dated): the window runs before QUALIFY leaves out the tasks it did not score
run_tasks as (
    select
        {{ keys | join(',\n        ') }},
        sample_id,
        run_id,
        n_trials,
        n_correct,
        min(first_trial_at) over (partition by {{ keys | join(', ') }}, run_id) as run_started_at
    from run_task_cells
    qualify n_trials > 0
),
{% endif %}

-- count(distinct run_id) leaves out a NULL run id, which is one run of its own.
groups as (
    select
        {{ keys | join(',\n        ') }},
        count(distinct run_id) + max(case when run_id is null then 1 else 0 end) as n_runs,
        max(n_trials) as most_run_trials
    from run_tasks
    group by {{ keys | join(', ') }}
),

-- When the first and the last of the runs averaged over started (a run is as many rows as its tasks: one each)
run_spans as (
    select
        {{ keys | join(',\n        ') }},
        min(run_started_at) as first_run_at,
        max(run_started_at) as last_run_at
    from (
        select {{ keys | join(', ') }}, run_id, min(run_started_at) as run_started_at
        from run_tasks
        group by {{ keys | join(', ') }}, run_id
    ) as runs
    group by {{ keys | join(', ') }}
),

k_exponents as (
    select {{ integer_series(0, 62) }} as exponent
),

-- The group's k: 1, 2, 4, ... up to the most attempts one run made on a task, and that most.
group_k as (
    select
        {%- for key in keys %}
        groups.{{ key }},
        {%- endfor %}
        cast(power(2, k_exponents.exponent) as bigint) as k
    from groups
    cross join k_exponents
    where power(2, k_exponents.exponent) <= groups.most_run_trials

    union

    select
        {{ keys | join(',\n        ') }},
        most_run_trials as k
    from groups
),

run_task_k as (
    select
        run_tasks.*,
        group_k.k
    from run_tasks
    inner join group_k
        on {{ keys_equal('run_tasks', 'group_k', keys) }}
),

pass_triples as (
    select distinct
        n_trials,
        n_correct,
        k
    from run_task_k
),

{{ stats_pass_at_k_ctes('pass_triples') }},

-- Per task: the mean over its runs of each run's pass@k; NULL at a k some run of the task made fewer attempts than.
task_k as (
    select
        {%- for key in keys %}
        run_task_k.{{ key }},
        {%- endfor %}
        run_task_k.sample_id,
        run_task_k.k,
        case when min(run_task_k.n_trials) >= run_task_k.k then avg(pass_estimates.pass_at_k) end as pass_at_k,
        case when min(run_task_k.n_trials) >= run_task_k.k then avg(pass_estimates.pass_hat_k) end as pass_hat_k
    from run_task_k
    inner join pass_estimates
        on run_task_k.n_trials = pass_estimates.n_trials
        and run_task_k.n_correct = pass_estimates.n_correct
        and run_task_k.k = pass_estimates.k
    group by
        {%- for key in keys %}
        run_task_k.{{ key }},
        {%- endfor %}
        run_task_k.sample_id,
        run_task_k.k
),

-- Every task has a row at each k of its group, so count(*) is the group's tasks.
pass_at_k as (
    select
        {{ keys | join(',\n        ') }},
        k,
        count(*) as n_tasks,
        count(pass_at_k) as n_tasks_with_enough_trials,
        case when count(pass_at_k) = count(*) then avg(pass_at_k) end as pass_at_k,
        case when count(pass_at_k) = count(*) then {{ mean_se('pass_at_k') }} end as pass_at_k_se,
        case when count(pass_at_k) = count(*) then avg(pass_hat_k) end as pass_hat_k,
        case when count(pass_at_k) = count(*) then {{ mean_se('pass_hat_k') }} end as pass_hat_k_se
    from task_k
    group by {{ keys | join(', ') }}, k
),

final as (
    select
        {%- for key in keys %}
        pass_at_k.{{ key }},
        {%- endfor %}
        pass_at_k.k,
        cast(pass_at_k.n_tasks as bigint) as n_tasks,
        cast(groups.n_runs as bigint) as n_runs,
        run_spans.first_run_at,
        run_spans.last_run_at,
        cast(pass_at_k.n_tasks_with_enough_trials as bigint) as n_tasks_with_enough_trials,
        pass_at_k.pass_at_k,
        pass_at_k.pass_at_k_se,
        {{ wilson_low_from_se('pass_at_k.pass_at_k', 'pass_at_k.pass_at_k_se', 'pass_at_k.n_tasks') }}
            as pass_at_k_ci_low,
        {{ wilson_high_from_se('pass_at_k.pass_at_k', 'pass_at_k.pass_at_k_se', 'pass_at_k.n_tasks') }}
            as pass_at_k_ci_high,
        pass_at_k.pass_hat_k,
        pass_at_k.pass_hat_k_se,
        {{ wilson_low_from_se('pass_at_k.pass_hat_k', 'pass_at_k.pass_hat_k_se', 'pass_at_k.n_tasks') }}
            as pass_hat_k_ci_low,
        {{ wilson_high_from_se('pass_at_k.pass_hat_k', 'pass_at_k.pass_hat_k_se', 'pass_at_k.n_tasks') }}
            as pass_hat_k_ci_high
    from pass_at_k
    inner join groups
        on {{ keys_equal('pass_at_k', 'groups', keys) }}
    inner join run_spans
        on {{ keys_equal('pass_at_k', 'run_spans', keys) }}
)

select * from final
{% endmacro %}
