-- One row per eval, trial metric, week and ordered pair of models that answered at least two samples in common
-- that week: is one model better than the other on the same questions, or is the gap between their leaderboard
-- scores noise? Two models' intervals can overlap while the paired test is clear (each sample's difficulty cancels
-- out of the difference), and a gap between two scores on different samples says little. docs/STATS.md: "Two models
-- on the same questions: paired differences d_i = s_A,i - s_B,i; SE = sqrt(var(d)/n). Report the correlation too."
--
-- A sample's score is its runs' scored attempts of that week averaged (weekly_sample_scores, as
-- rpt_weekly_model_changes counts a week). The test is the one rpt_weekly_model_changes gives a model's two weeks:
-- the exact sign test on the samples where the two differ when every shared score is 0 or 1 (McNemar's exact test),
-- else Student's t on n_shared_samples - 1 degrees of freedom; no verdict (is_significant NULL) on fewer than var
-- model_change_min_samples shared samples or fewer than var model_change_min_changed_samples samples that differ.
-- Each pair has two rows, one from each side (the differences change sign), so `where model_id = ...` lists how
-- a model compares with every other. Many pairs are tested at once: at the 5% level about one in twenty pairs of
-- equal models reads as significant, so a single surprising verdict wants a second week.
-- A view, computed when read: it is not rebuilt by every build, and its rows are tested by a dbt unit test and by
-- tests/models/test_model_comparisons.py against a recomputation from fct_trials.
{{ config(materialized='view') }}
with

trials as (
    select * from {{ ref('fct_trials') }}
),

sample_scores as (
    {{ weekly_sample_scores('trials') }}
),

paired_samples as (
    select
        this_model.evaluation_name,
        this_model.trial_metric,
        this_model.week_start,
        this_model.model_id,
        other_model.model_id as other_model_id,
        this_model.sample_score,
        other_model.sample_score as other_sample_score
    from sample_scores as this_model
    inner join sample_scores as other_model
        on this_model.evaluation_name = other_model.evaluation_name
        and this_model.trial_metric = other_model.trial_metric
        and this_model.week_start = other_model.week_start
        and this_model.sample_id = other_model.sample_id
        and this_model.model_id <> other_model.model_id
),

paired as (
    select
        evaluation_name,
        trial_metric,
        week_start,
        model_id,
        other_model_id,
        avg(sample_score) as score,
        avg(other_sample_score) as other_score,
        {{ paired_difference_aggregates('sample_score', 'other_sample_score', 'n_better', 'n_worse',
                                        'mean_difference', 'difference_se') }}
    from paired_samples
    group by evaluation_name, trial_metric, week_start, model_id, other_model_id
    having count(*) >= 2
),

sign_tests as (
    {{ sign_test_p_values('paired', n_up='n_better', n_down='n_worse') }}
),

tested as (
    select
        paired.*,
        case when paired.is_binary then 'sign test' else 'paired t' end as comparison_test,
        {{ safe_divide('paired.mean_difference', 'paired.difference_se') }} as t_statistic,
        {{ t_critical_975('paired.n_shared_samples - 1') }} as critical_value,
        sign_tests.sign_test_p
    from paired
    left join sign_tests
        on paired.n_better = sign_tests.n_better
        and paired.n_worse = sign_tests.n_worse
),

judged as (
    select
        *,
        {{ change_is_significant('n_shared_samples', 'n_better + n_worse', 'comparison_test', 'sign_test_p',
                                 't_statistic', 'critical_value') }} as is_significant
    from tested
),

final as (
    select
        evaluation_name,
        trial_metric,
        week_start,
        model_id,
        other_model_id,
        n_shared_samples,
        score,
        other_score,
        mean_difference,
        difference_se,
        -- no interval from an SE of 0 (every shared sample differs by the same amount): a point would claim
        -- certainty; and none past -1 or 1, which no difference of two scores in [0, 1] can reach
        case
            when difference_se > 0 then greatest(cast(-1 as double), mean_difference - critical_value * difference_se)
        end as difference_ci_low,
        case
            when difference_se > 0 then least(cast(1 as double), mean_difference + critical_value * difference_se)
        end as difference_ci_high,
        paired_correlation,
        n_better,
        n_worse,
        comparison_test,
        t_statistic,
        critical_value,
        sign_test_p,
        is_significant,
        -- an untested pair is neither better nor not: NULL, never a false that reads "no better"
        case
            when is_significant is null then null
            when is_significant then mean_difference > 0
            else false
        end as is_better,
        case
            when is_significant is null then null
            when is_significant then mean_difference < 0
            else false
        end as is_worse
    from judged
)

select * from final
