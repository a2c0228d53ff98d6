-- One row per model, eval, metric, week and k: pass@k and pass^k of one run over the runs that started that week,
-- for week-over-week comparison (the overview and the weekly report). The same rule as fct_pass_at_k, whose select
-- it shares (macros/trials/pass_at_k_over_runs.sql): each run's estimate per task, averaged over the task's runs in
-- the week, then over tasks. A run counts once, whole, in the week of its first trial, even when its trials straddle
-- the week's end (macros/trials/weekly_run_tasks.sql, which rpt_weekly_model_changes's accuracy reads too). Why per
-- run within the week: it pooled a week's runs of a task as one run, so two runs of 8 attempts made k reach 16,
-- which no run made, and a run that solved a task 8 of 8 beside one that solved it 0 of 8 read as a task solved
-- (pooled pass@8 near 1), where each run's pass@8 is 1 and 0 (0.5 on average).
{{ pass_at_k_over_runs(weekly=true) }}
