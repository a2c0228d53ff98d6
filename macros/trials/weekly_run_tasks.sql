{# The one definition of a run's week for the weekly marts that count a week's trials as runs (fct_pass_at_k_weekly
   through pass_at_k_over_runs, rpt_weekly_model_changes), so the pass@k and the accuracy of a week read the same
   runs. A run counts once, whole, in the week of its first trial: when it started, week_start as int_trials_unioned
   derives it (the Monday of the ISO week, UTC). Why: a run whose trials straddle a week's end (its files carry
   different times: an Every Eval Ever run's instance files with no aggregate take their ingest time) counted in each
   of its weeks with the attempts it made there, so one run of 8 attempts a task became two partial runs of, say, 5
   and 3, which no one ran, and the week's pass@8 lost it. A run is a run id
   of one model, eval and trial metric, as fct_benchmark_results groups a computed result (whose evaluated_at is the
   same first trial's); its first trial is its first on that metric, scored or not (an unscored attempt was still
   made then). Trials without a run id stay as they were: each week's trials of a task are one run of that week,
   since no id says which of them belong together across weeks.
   Table macro: one row per model, eval, trial metric, week, task and run with at least one scored attempt;
   n_trials counts the run's scored attempts at the task (is_correct not NULL), n_correct its successes, and
   run_started_at is when the run started: its first trial's evaluated_at, scored or not, the time its week is
   dated by (a trial without a run id: the first of its task's in the week). #}
{% macro weekly_run_tasks(trials) %}
{%- set run_keys = ['model_id', 'evaluation_name', 'trial_metric', 'run_id'] %}
{%- set cell_keys = ['model_id', 'evaluation_name', 'trial_metric', 'week_start', 'sample_id', 'run_id'] %}
{#- Why cells by the trial's own week first, then a window over the cells, then a regroup: no trial is read twice,
    and grouping trials on the week_start column is cheaper than on an expression of it. On 2,000,000 trials in
    250,000 run-tasks (the benchmark's scale), 2 threads, fct_pass_at_k_weekly took 0.50 s this way against 0.66 s
    grouping by run and a CASE of week_start, and 0.41 s when runs were split by week (fastest of six builds). #}
with

-- each run's attempts at a task in each week it has trials in
run_week_cells as (
    select
        {{ cell_keys | join(',\n        ') }},
        count(is_correct) as n_trials,
        cast(sum(case when is_correct then 1 else 0 end) as bigint) as n_correct,
        min(evaluated_at) as first_trial_at
    from {{ trials }}
    group by {{ cell_keys | join(', ') }}
),

-- The run's week: the earliest of its cells' weeks, scored or not; trials without a run id keep their own.
run_week_dated as (
    select
        model_id,
        evaluation_name,
        trial_metric,
        case
            when run_id is null then week_start
            else min(week_start) over (partition by {{ run_keys | join(', ') }})
        end as week_start,
        sample_id,
        run_id,
        n_trials,
        n_correct,
        case
            when run_id is null then first_trial_at
            else min(first_trial_at) over (partition by {{ run_keys | join(', ') }})
        end as run_started_at
    from run_week_cells
),

-- one row per run and task: a straddling run's cells of a task made one
run_week_tasks as (
    select
        {{ cell_keys | join(',\n        ') }},
        cast(sum(n_trials) as bigint) as n_trials,
        cast(sum(n_correct) as bigint) as n_correct,
        min(run_started_at) as run_started_at
    from run_week_dated
    group by {{ cell_keys | join(', ') }}
    having sum(n_trials) > 0
)

select * from run_week_tasks
{% endmacro %}

{# Each sample's score in a week: its scored attempts over the week's runs (weekly_run_tasks) averaged, the unit of
   the weekly comparisons (docs/STATS.md, error bars: a question answered K times is one observation, its K scores
   averaged first). Table macro: one row per model, eval, trial metric, week and sample, with n_trials and
   sample_score in [0, 1]. rpt_weekly_model_changes pairs a model's weeks on it; fct_model_comparisons pairs two
   models in one week. #}
{% macro weekly_sample_scores(trials) %}
with

run_samples as (
    {{ weekly_run_tasks(trials) }}
)

select
    model_id,
    evaluation_name,
    trial_metric,
    week_start,
    sample_id,
    sum(n_trials) as n_trials,
    sum(n_correct) / cast(sum(n_trials) as double) as sample_score
from run_samples
group by model_id, evaluation_name, trial_metric, week_start, sample_id
{% endmacro %}
