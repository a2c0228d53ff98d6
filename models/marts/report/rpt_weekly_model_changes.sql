-- One row per model, eval, metric and week with scored trials: the week's accuracy with its interval against the
-- week before, and whether the change is more than noise. What the weekly report's "Did any model get worse?" reads.
-- A metric's own trials only (trial_metric): the verdicts of one response on three rubrics are not averaged together.
-- A week's trials are those of the runs that started in it (macros/trials/weekly_run_tasks.sql: a run straddling a
-- week's end counts whole in its first week; trials without a run id in their own week), the runs whose pass@k
-- fct_pass_at_k_weekly gives beside the accuracy: both read one set of trials.
--
-- The sample (question) is the unit: each sample's trials within the week are averaged first (docs/STATS.md,
-- error bars), as fct_benchmark_results does for a run; the interval is the one it gives accuracy, Wilson's on the
-- effective sample size (wilson_low_from_se), so it agrees with accuracy_se. The comparison with the week before
-- (the calendar week, seven days earlier) is paired on the samples both weeks share: d_i = this week's score - last
-- week's, SE = sqrt(var_samp(d) / n_shared), t = mean(d) / SE, significant beyond Student's t quantile on
-- n_shared - 1 degrees of freedom (t_critical_975: 2.262 at 10 samples, where the normal's 1.96 flags 8.2% of
-- unchanged models; 2.093 at 20). With fewer than two shared samples it falls back to the two weeks as independent
-- windows with the pooled two-proportion SE,
-- sqrt(p (1 - p) (1/n1 + 1/n0)) with p the pooled accuracy: a sample's averaged score lies in [0, 1], so its
-- variance is at most p (1 - p) and this SE does not collapse to 0 when a small week scored all or nothing.
-- The unpaired z stays at |z| > 1.96 (a two-proportion test on the pooled SE). A comparison on fewer than
-- var `model_change_min_samples` (10) samples (the comparison's n) is not tested: is_significant is NULL, and so
-- are is_regression and is_improvement (no verdict either way, never a false that reads "held").
-- A paired comparison of a metric scored 0/1 (every shared sample's score 0 or 1 in both weeks, one trial each
-- or unanimous trials) is tested with the exact sign test on the samples whose score changed (McNemar's exact
-- test, sign_test_p_values), not with z: on 10 samples with 3 changes the z's normal approximation reads
-- -0.3 / 0.153 = -1.96 where the exact p is 0.25. Paired scores between 0 and 1 (a sample's several trials
-- averaged) keep STATS.md's paired SE, tested with t. Either way a paired change resting on fewer than var
-- `model_change_min_changed_samples` (6) changed samples is not tested (is_significant NULL, "too few changed
-- samples to test"): no split of fewer than 6 can reach p < 0.05 in the sign test, and a t from a handful of
-- non-zero differences leans on a normal approximation they cannot support. n_improved and n_worsened count the
-- shared samples that went up and down.
-- pass@1 and pass@k come from fct_pass_at_k_weekly, at the largest k every task of the week has trials for, with
-- their standard errors and 95% intervals as that mart computes them (its Wilson intervals, copied, not redone).
{#- The report (evalhouse/report/changes.py) and the app quote the vars as this build used them: rpt_build_settings. #}
with

trials as (
    select * from {{ ref('fct_trials') }}
),

pass_at_k_weekly as (
    select * from {{ ref('fct_pass_at_k_weekly') }}
),

-- each sample's score: its runs' scored attempts in the week they started (as fct_pass_at_k_weekly counts them)
sample_scores as (
    {{ weekly_sample_scores('trials') }}
),

weekly_means as (
    select
        model_id,
        evaluation_name,
        trial_metric,
        week_start,
        count(*) as n_samples,
        cast(sum(n_trials) as bigint) as n_trials,
        avg(sample_score) as accuracy,
        {{ mean_se('sample_score') }} as accuracy_se
    from sample_scores
    group by model_id, evaluation_name, trial_metric, week_start
),

weekly_scores as (
    select
        *,
        {{ wilson_low_from_se('accuracy', 'accuracy_se', 'n_samples') }} as ci_low,
        {{ wilson_high_from_se('accuracy', 'accuracy_se', 'n_samples') }} as ci_high
    from weekly_means
),

-- Portable date arithmetic: DuckDB and Spark both parse `date - interval 7 day`; the cast keeps it a date.
with_previous_week as (
    select
        *,
        cast(week_start - interval 7 day as date) as previous_week_start
    from weekly_scores
),

paired_samples as (
    select
        this_week.model_id,
        this_week.evaluation_name,
        this_week.trial_metric,
        this_week.week_start,
        this_week.sample_score as score_this_week,
        previous_week.sample_score as score_previous_week
    from sample_scores as this_week
    inner join sample_scores as previous_week
        on this_week.model_id = previous_week.model_id
        and this_week.evaluation_name = previous_week.evaluation_name
        and this_week.trial_metric = previous_week.trial_metric
        and this_week.sample_id = previous_week.sample_id
        and previous_week.week_start = cast(this_week.week_start - interval 7 day as date)
),

paired as (
    select
        model_id,
        evaluation_name,
        trial_metric,
        week_start,
        {{ paired_difference_aggregates('score_this_week', 'score_previous_week', 'n_improved', 'n_worsened',
                                        'paired_mean_difference', 'paired_se') }}
    from paired_samples
    group by model_id, evaluation_name, trial_metric, week_start
),

sign_tests as (
    {{ sign_test_p_values('paired', n_up='n_improved', n_down='n_worsened') }}
),

-- The two weeks' samples together: the pooled accuracy of the unpaired comparison.
pooled_scores as (
    select
        this_week.model_id,
        this_week.evaluation_name,
        this_week.trial_metric,
        this_week.week_start,
        (this_week.accuracy * this_week.n_samples + previous_week.accuracy * previous_week.n_samples)
        / cast(this_week.n_samples + previous_week.n_samples as double) as accuracy
    from with_previous_week as this_week
    inner join weekly_scores as previous_week
        on this_week.model_id = previous_week.model_id
        and this_week.evaluation_name = previous_week.evaluation_name
        and this_week.trial_metric = previous_week.trial_metric
        and this_week.previous_week_start = previous_week.week_start
),

largest_k as (
    select
        model_id,
        evaluation_name,
        trial_metric,
        week_start,
        max(k) as k
    from pass_at_k_weekly
    where k > 1
        and pass_at_k is not null
    group by model_id, evaluation_name, trial_metric, week_start
),

pass_at_1 as (
    select model_id, evaluation_name, trial_metric, week_start, pass_at_k as pass_at_1
    from pass_at_k_weekly
    where k = 1
),

pass_at_largest_k as (
    select
        largest_k.model_id,
        largest_k.evaluation_name,
        largest_k.trial_metric,
        largest_k.week_start,
        largest_k.k,
        pass_at_k_weekly.pass_at_k,
        pass_at_k_weekly.pass_at_k_se,
        pass_at_k_weekly.pass_at_k_ci_low,
        pass_at_k_weekly.pass_at_k_ci_high,
        pass_at_k_weekly.pass_hat_k,
        pass_at_k_weekly.pass_hat_k_se,
        pass_at_k_weekly.pass_hat_k_ci_low,
        pass_at_k_weekly.pass_hat_k_ci_high
    from largest_k
    inner join pass_at_k_weekly
        on largest_k.model_id = pass_at_k_weekly.model_id
        and largest_k.evaluation_name = pass_at_k_weekly.evaluation_name
        and largest_k.trial_metric = pass_at_k_weekly.trial_metric
        and largest_k.week_start = pass_at_k_weekly.week_start
        and largest_k.k = pass_at_k_weekly.k
),

compared as (
    select
        this_week.model_id,
        this_week.evaluation_name,
        this_week.trial_metric,
        this_week.week_start,
        this_week.previous_week_start,
        this_week.n_samples,
        this_week.n_trials,
        this_week.accuracy,
        this_week.accuracy_se,
        this_week.ci_low,
        this_week.ci_high,
        previous_week.n_samples as previous_n_samples,
        previous_week.accuracy as previous_accuracy,
        previous_week.accuracy_se as previous_accuracy_se,
        previous_week.ci_low as previous_ci_low,
        previous_week.ci_high as previous_ci_high,
        this_week.accuracy - previous_week.accuracy as accuracy_change,
        coalesce(paired.n_shared_samples, 0) as n_shared_samples,
        paired.n_improved,
        paired.n_worsened,
        paired.is_binary,
        sign_tests.sign_test_p,
        paired.paired_mean_difference,
        paired.paired_se,
        {{ safe_divide('paired.paired_mean_difference', 'paired.paired_se') }} as paired_z,
        paired.paired_correlation,
        sqrt(
            pooled.accuracy * (1 - pooled.accuracy)
            * (
                1 / nullif(cast(this_week.n_samples as double), 0)
                + 1 / nullif(cast(previous_week.n_samples as double), 0)
            )
        ) as unpaired_se,
        pass_at_1.pass_at_1,
        pass_at_largest_k.k as pass_k,
        pass_at_largest_k.pass_at_k,
        pass_at_largest_k.pass_at_k_se,
        pass_at_largest_k.pass_at_k_ci_low,
        pass_at_largest_k.pass_at_k_ci_high,
        pass_at_largest_k.pass_hat_k,
        pass_at_largest_k.pass_hat_k_se,
        pass_at_largest_k.pass_hat_k_ci_low,
        pass_at_largest_k.pass_hat_k_ci_high,
        previous_pass.pass_at_k as previous_pass_at_k
    from with_previous_week as this_week
    left join weekly_scores as previous_week
        on this_week.model_id = previous_week.model_id
        and this_week.evaluation_name = previous_week.evaluation_name
        and this_week.trial_metric = previous_week.trial_metric
        and this_week.previous_week_start = previous_week.week_start
    left join pooled_scores as pooled
        on this_week.model_id = pooled.model_id
        and this_week.evaluation_name = pooled.evaluation_name
        and this_week.trial_metric = pooled.trial_metric
        and this_week.week_start = pooled.week_start
    left join paired
        on this_week.model_id = paired.model_id
        and this_week.evaluation_name = paired.evaluation_name
        and this_week.trial_metric = paired.trial_metric
        and this_week.week_start = paired.week_start
    left join sign_tests
        on paired.n_improved = sign_tests.n_improved
        and paired.n_worsened = sign_tests.n_worsened
    left join pass_at_1
        on this_week.model_id = pass_at_1.model_id
        and this_week.evaluation_name = pass_at_1.evaluation_name
        and this_week.trial_metric = pass_at_1.trial_metric
        and this_week.week_start = pass_at_1.week_start
    left join pass_at_largest_k
        on this_week.model_id = pass_at_largest_k.model_id
        and this_week.evaluation_name = pass_at_largest_k.evaluation_name
        and this_week.trial_metric = pass_at_largest_k.trial_metric
        and this_week.week_start = pass_at_largest_k.week_start
    left join pass_at_k_weekly as previous_pass
        on this_week.model_id = previous_pass.model_id
        and this_week.evaluation_name = previous_pass.evaluation_name
        and this_week.trial_metric = previous_pass.trial_metric
        and this_week.previous_week_start = previous_pass.week_start
        and pass_at_largest_k.k = previous_pass.k
),

tested as (
    select
        *,
        case
            when n_shared_samples >= 2 then 'paired'
            when previous_accuracy is not null then 'unpaired'
        end as comparison,
        case
            when n_shared_samples >= 2 then n_shared_samples
            when previous_n_samples is null then null
            when previous_n_samples < n_samples then previous_n_samples
            else n_samples
        end as n_compared,
        case
            when n_shared_samples >= 2 and is_binary then 'sign test'
            when n_shared_samples >= 2 then 'paired t'
            when previous_accuracy is not null then 'unpaired z'
        end as change_test,
        case
            when n_shared_samples >= 2 then paired_z
            when previous_accuracy is not null then {{ safe_divide('accuracy_change', 'unpaired_se') }}
        end as change_z,
        case
            when n_shared_samples >= 2 then paired_mean_difference
            else accuracy_change
        end as compared_change
    from compared
),

with_critical_value as (
    select
        *,
        case
            when change_test = 'paired t' then {{ t_critical_975('n_shared_samples - 1') }}
            when change_test = 'unpaired z' then cast(1.96 as double)
        end as critical_value
    from tested
),

judged as (
    select
        *,
        {{ change_is_significant('n_compared', "case when comparison = 'paired' then n_improved + n_worsened end",
                                 'change_test', 'sign_test_p', 'change_z', 'critical_value') }} as is_significant
    from with_critical_value
),

final as (
    select
        model_id,
        evaluation_name,
        trial_metric,
        week_start,
        previous_week_start,
        n_samples,
        n_trials,
        accuracy,
        accuracy_se,
        ci_low,
        ci_high,
        previous_n_samples,
        previous_accuracy,
        previous_accuracy_se,
        previous_ci_low,
        previous_ci_high,
        accuracy_change,
        n_shared_samples,
        n_improved,
        n_worsened,
        paired_mean_difference,
        paired_se,
        paired_z,
        paired_correlation,
        unpaired_se,
        comparison,
        n_compared,
        change_test,
        change_z,
        critical_value,
        sign_test_p,
        is_significant,
        -- The direction from the compared change, not z: a sign test's z is NULL when every change went one way.
        -- An untested change (is_significant NULL) is neither a regression nor not one: NULL, never false, and an
        -- explicit case, since `is_significant and compared_change < 0` is false, not NULL, for an untested rise.
        case
            when is_significant is null then null
            when is_significant then compared_change < 0
            else false
        end as is_regression,
        case
            when is_significant is null then null
            when is_significant then compared_change > 0
            else false
        end as is_improvement,
        pass_at_1,
        pass_k,
        pass_at_k,
        pass_at_k_se,
        pass_at_k_ci_low,
        pass_at_k_ci_high,
        pass_hat_k,
        pass_hat_k_se,
        pass_hat_k_ci_low,
        pass_hat_k_ci_high,
        previous_pass_at_k
    from judged
)

select * from final
