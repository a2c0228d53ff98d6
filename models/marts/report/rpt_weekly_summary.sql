-- One row per week with any activity (trials, ratings, files loaded or lines quarantined): the week's counts,
-- for the weekly report's header and its "at a glance" list. Results (trials, ratings) count in the week they
-- were evaluated or rated; files and quarantined lines in the week they were ingested.
with

trials as (
    select * from {{ ref('fct_trials') }}
),

ratings as (
    select * from {{ ref('fct_ratings') }}
),

ingested_files as (
    select * from {{ ref('fct_ingested_files') }}
),

quarantined_lines as (
    select * from {{ ref('fct_quarantined_lines') }}
),

judge_drift as (
    select * from {{ ref('fct_judge_drift') }}
),

item_disagreement as (
    select * from {{ ref('fct_item_disagreement') }}
),

model_changes as (
    select * from {{ ref('rpt_weekly_model_changes') }}
),

weekly_trials as (
    select
        week_start,
        count(*) as n_trials,
        count(distinct model_id) as n_models_evaluated,
        count(distinct evaluation_name) as n_evals
    from trials
    group by week_start
),

-- An attempt is one model's answer to one sample (its trial_index); a trial is an attempt scored on one metric, so an
-- answer scored on three rubrics is one attempt and three trials.
weekly_attempts as (
    select
        week_start,
        count(*) as n_attempts
    from (select distinct week_start, evaluation_name, model_id, sample_id, trial_index from trials) as attempts
    group by week_start
),

weekly_ratings as (
    select
        week_start,
        count(*) as n_ratings,
        count(distinct item_id) as n_rated_items,
        count(distinct rater_id) as n_raters
    from ratings
    group by week_start
),

weekly_files as (
    select
        week_start,
        count(distinct source_path) as n_files_loaded,
        cast(sum(n_accepted) as bigint) as n_records_loaded
    from ingested_files
    where status = 'loaded'
    group by week_start
),

weekly_quarantine as (
    select
        week_start,
        count(*) as n_quarantined_lines
    from quarantined_lines
    group by week_start
),

-- The alerts with their n: the judge-dimension pairs tested that week (past their baseline weeks, with a verdict),
-- and those past their baseline with too few items to test (no verdict, which is not "no drift").
weekly_drift as (
    select
        week_start,
        count(case when is_drift_alert then 1 end) as n_drift_alerts,
        count(distinct case when is_drift_alert then judge_id end) as n_judges_alerting,
        count(case when not is_baseline_week and is_drift_alert is not null then 1 end) as n_drift_tested,
        count(case when not is_baseline_week and is_drift_alert is null then 1 end) as n_drift_untested
    from judge_drift
    group by week_start
),

weekly_flags as (
    select
        week_start,
        count(distinct item_id) as n_flagged_items
    from item_disagreement
    where is_flagged
    group by week_start
),

-- An untested change (is_regression and is_improvement NULL) counts as neither: the counts are of verdicts reached.
weekly_changes as (
    select
        week_start,
        cast(sum(case when is_regression then 1 else 0 end) as bigint) as n_regressions,
        cast(sum(case when is_improvement then 1 else 0 end) as bigint) as n_improvements,
        -- the n behind the two counts: the week's changes with a verdict, and those without one
        count(is_significant) as n_changes_tested,
        count(*) - count(is_significant) as n_changes_untested
    from model_changes
    group by week_start
),

weeks as (
    select week_start from weekly_trials
    union
    select week_start from weekly_ratings
    union
    select week_start from weekly_files
    union
    select week_start from weekly_quarantine
),

final as (
    select
        weeks.week_start,
        coalesce(weekly_trials.n_trials, 0) + coalesce(weekly_ratings.n_ratings, 0) > 0 as has_results,
        coalesce(weekly_trials.n_trials, 0) as n_trials,
        coalesce(weekly_attempts.n_attempts, 0) as n_attempts,
        coalesce(weekly_trials.n_models_evaluated, 0) as n_models_evaluated,
        coalesce(weekly_trials.n_evals, 0) as n_evals,
        coalesce(weekly_ratings.n_ratings, 0) as n_ratings,
        coalesce(weekly_ratings.n_rated_items, 0) as n_rated_items,
        coalesce(weekly_ratings.n_raters, 0) as n_raters,
        coalesce(weekly_files.n_files_loaded, 0) as n_files_loaded,
        coalesce(weekly_files.n_records_loaded, 0) as n_records_loaded,
        coalesce(weekly_quarantine.n_quarantined_lines, 0) as n_quarantined_lines,
        coalesce(weekly_drift.n_drift_alerts, 0) as n_drift_alerts,
        coalesce(weekly_drift.n_judges_alerting, 0) as n_judges_alerting,
        coalesce(weekly_drift.n_drift_tested, 0) as n_drift_tested,
        coalesce(weekly_drift.n_drift_untested, 0) as n_drift_untested,
        coalesce(weekly_flags.n_flagged_items, 0) as n_flagged_items,
        coalesce(weekly_changes.n_regressions, 0) as n_regressions,
        coalesce(weekly_changes.n_improvements, 0) as n_improvements,
        coalesce(weekly_changes.n_changes_tested, 0) as n_changes_tested,
        coalesce(weekly_changes.n_changes_untested, 0) as n_changes_untested
    from weeks
    left join weekly_trials on weeks.week_start = weekly_trials.week_start
    left join weekly_attempts on weeks.week_start = weekly_attempts.week_start
    left join weekly_ratings on weeks.week_start = weekly_ratings.week_start
    left join weekly_files on weeks.week_start = weekly_files.week_start
    left join weekly_quarantine on weeks.week_start = weekly_quarantine.week_start
    left join weekly_drift on weeks.week_start = weekly_drift.week_start
    left join weekly_flags on weeks.week_start = weekly_flags.week_start
    left join weekly_changes on weeks.week_start = weekly_changes.week_start
)

select * from final
