-- One row per LLM judge, dimension and week with a drift alert (fct_judge_drift: the judge's bias against people
-- moved from its baseline beyond the t cutoff; weeks with too few items are not tested and never here), with the
-- item that shows it best: the one
-- whose judge-minus-people gap lies furthest in the direction of the drift, with its prompt and response.
-- The weekly report lists these and draws each alerting judge's weekly bias from fct_judge_drift.
-- The judge's versions are the week's, its previous week's and its baseline's, as fct_judge_drift has them: an alert
-- in the week a new prompt came in reads differently from one on the prompt the baseline used. example_judge_version
-- is the example form's own, one of judge_versions.
with

judge_drift as (
    select * from {{ ref('fct_judge_drift') }}
),

rating_pairs as (
    select * from {{ ref('int_rating_pairs_joined') }}
),

eval_forms as (
    select * from {{ ref('stg_aif__eval_forms') }}
),

alerts as (
    select * from judge_drift
    where is_drift_alert
),

-- As in fct_judge_drift: per item, the judge's score against the mean of the independent people who rated it
-- (same_item pairs: a review of the judge's own verdict is no second opinion); only in the weeks that alert (the
-- pairs of the others are never read).
item_gaps as (
    select
        judge_id,
        dimension,
        week_start,
        item_id,
        max(judge_record_id) as judge_record_id,
        avg(judge_score) as judge_score,
        avg(human_score) as human_score,
        count(distinct human_rater_id) as n_humans,
        avg(judge_score) - avg(human_score) as gap
    from rating_pairs
    where pairing = 'same_item'
        and judge_score is not null
        and human_score is not null
        and exists (
            select 1 from alerts
            where alerts.judge_id = rating_pairs.judge_id
                and alerts.dimension = rating_pairs.dimension
                and alerts.week_start = rating_pairs.week_start
        )
    group by judge_id, dimension, week_start, item_id
),

ranked_gaps as (
    select
        item_gaps.*,
        row_number() over (
            partition by item_gaps.judge_id, item_gaps.dimension, item_gaps.week_start
            order by
                case when alerts.bias_delta < 0 then item_gaps.gap else -item_gaps.gap end,
                item_gaps.item_id
        ) as gap_rank
    from item_gaps
    inner join alerts
        on item_gaps.judge_id = alerts.judge_id
        and item_gaps.dimension = alerts.dimension
        and item_gaps.week_start = alerts.week_start
),

final as (
    select
        alerts.judge_id,
        alerts.judge_model,
        alerts.dimension,
        alerts.dimension_group,
        alerts.week_start,
        alerts.n_items,
        alerts.n_humans,
        alerts.mean_bias,
        alerts.bias_se,
        alerts.bias_ci_low,
        alerts.bias_ci_high,
        alerts.baseline_bias,
        alerts.baseline_se,
        alerts.baseline_n_items,
        alerts.baseline_weeks,
        alerts.bias_delta,
        alerts.bias_delta_se,
        alerts.drift_z,
        alerts.drift_critical_value,
        alerts.n_agreement_pairs,
        alerts.exact_agreement,
        alerts.kappa_quadratic,
        alerts.judge_versions,
        alerts.baseline_judge_versions,
        alerts.previous_judge_versions,
        alerts.is_judge_version_changed,
        alerts.has_new_judge_version,
        ranked_gaps.item_id as example_item_id,
        ranked_gaps.judge_score as example_judge_score,
        ranked_gaps.human_score as example_human_score,
        ranked_gaps.n_humans as example_n_humans,
        eval_forms.rater_version as example_judge_version,
        eval_forms.subject_model as example_model_id,
        eval_forms.task_id as example_task_id,
        eval_forms.prompt as example_prompt,
        eval_forms.response as example_response
    from alerts
    left join ranked_gaps
        on alerts.judge_id = ranked_gaps.judge_id
        and alerts.dimension = ranked_gaps.dimension
        and alerts.week_start = ranked_gaps.week_start
        and ranked_gaps.gap_rank = 1
    left join eval_forms
        on ranked_gaps.judge_record_id = eval_forms.record_id
)

select * from final
