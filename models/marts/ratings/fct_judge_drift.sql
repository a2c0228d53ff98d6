-- One row per LLM judge, dimension and week: how the judge's ratings compare with people's on the same items
-- (int_rating_pairs_joined says which ratings pair), and whether its bias moved away from its baseline.
--
-- The people are independent ones only (same_item pairs). A review of the judge's verdict (a hybrid form, a
-- CogniBench completed review; derived_from pairs) is made with that verdict in view and mostly confirms it, and
-- reviews come in a day or more after the judge rated: pooled in, they pulled the bias towards 0 and agreement up
-- in every week but the newest, where none were in yet, so a judge seemed to drift when only the mix changed.
-- How often reviewers change the judge's verdict is fct_judge_overrides.
-- Bias is judge minus human. The item is the sampling unit: for each item the judge's score is compared with the
-- mean of the people who rated it, and mean_bias and bias_se are taken over items. Agreement (exact agreement,
-- kappa with the scale's declared labels, MAE) is over pairs, compared as inter-rater agreement compares them
-- (agreement_labels, macros/declared_labels.sql): on a hazard, the verdict the violation rates count (not_applicable
-- is non_violating), and a pair with an 'unsure' verdict has no agreement to count (it had been a disagreement).
-- Baseline: the judge's first `drift_baseline_weeks` weeks with pairs on the dimension, pooled. An alert is a
-- weekly bias that differs from the baseline by more than `drift_alert_z` standard errors of the difference,
-- sqrt(bias_se^2 + baseline_se^2) (both are dbt vars in dbt_project.yml). Baseline weeks never alert, and their
-- change and z are NULL: a judge with fewer weeks than the baseline has no week an alert could fire in yet.
-- int_rating_pairs_joined is read where used, not through an import CTE: DuckDB copies a CTE read more than once whole
-- (docs/performance.md, "Import CTEs read more than once").
{%- set group_by = ['judge_id', 'dimension', 'week_start'] %}
with

item_bias as (
    select
        judge_id,
        dimension,
        week_start,
        item_id,
        avg(judge_score) - avg(human_score) as bias
    from {{ ref('int_rating_pairs_joined') }} as pairs
    where pairing = 'same_item'
        and judge_score is not null
        and human_score is not null
    group by judge_id, dimension, week_start, item_id
),

weekly_pairs as (
    select
        judge_id,
        dimension,
        week_start,
        max(judge_model) as judge_model,
        max(dimension_group) as dimension_group,
        max(scale) as scale,
        count(*) as n_pairs,
        count(distinct human_rater_id) as n_humans,
        avg(case
            when scale <> 'hazard_verdict' then case when judge_label = human_label then 1.0 else 0.0 end
            when {{ agreement_value('scale', 'judge_label', 'judge_value') }}
                = {{ agreement_value('scale', 'human_label', 'human_value') }} then 1.0
            when {{ agreement_value('scale', 'judge_label', 'judge_value') }} is not null
                and {{ agreement_value('scale', 'human_label', 'human_value') }} is not null then 0.0
        end) as exact_agreement,
        avg(abs(score_difference)) as mae
    from {{ ref('int_rating_pairs_joined') }} as pairs
    where pairing = 'same_item'
    group by judge_id, dimension, week_start
),

weekly_bias as (
    select
        judge_id,
        dimension,
        week_start,
        count(*) as n_items,
        avg(bias) as mean_bias,
        {{ mean_se('bias') }} as bias_se
    from item_bias
    group by judge_id, dimension, week_start
),

{% for scale, labels in agreement_labels().items() %}
pairs_{{ scale }} as (
    select judge_id, dimension, week_start, rating_a, rating_b
    from (
        select
            judge_id,
            dimension,
            week_start,
            {{ agreement_value("'" ~ scale ~ "'", 'judge_label', 'judge_value') }} as rating_a,
            {{ agreement_value("'" ~ scale ~ "'", 'human_label', 'human_value') }} as rating_b
        from {{ ref('int_rating_pairs_joined') }} as pairs
        where pairing = 'same_item'
            and scale = '{{ scale }}'
    ) as compared
    where rating_a is not null
        and rating_b is not null
),

kappa_{{ scale }} as (
    select
        unweighted.judge_id,
        unweighted.dimension,
        unweighted.week_start,
        unweighted.kappa as kappa_unweighted,
        quadratic.kappa as kappa_quadratic
    from ({{ cohen_kappa('pairs_' ~ scale, group_by, labels=labels, weights='unweighted') }}) as unweighted
    inner join ({{ cohen_kappa('pairs_' ~ scale, group_by, labels=labels, weights='quadratic') }}) as quadratic
        on unweighted.judge_id = quadratic.judge_id
        and unweighted.dimension = quadratic.dimension
        and unweighted.week_start = quadratic.week_start
),
{% endfor %}

kappas as (
    {%- for scale in agreement_labels() %}
    select * from kappa_{{ scale }}
    {% if not loop.last %}union all{% endif %}
    {%- endfor %}
),

week_numbers as (
    select
        judge_id,
        dimension,
        week_start,
        dense_rank() over (partition by judge_id, dimension order by week_start) as week_number
    from weekly_pairs
),

baseline as (
    select
        item_bias.judge_id,
        item_bias.dimension,
        avg(item_bias.bias) as baseline_bias,
        {{ mean_se('item_bias.bias') }} as baseline_se,
        count(*) as baseline_n_items
    from item_bias
    inner join week_numbers
        on item_bias.judge_id = week_numbers.judge_id
        and item_bias.dimension = week_numbers.dimension
        and item_bias.week_start = week_numbers.week_start
    where week_numbers.week_number <= {{ var('drift_baseline_weeks') }}
    group by item_bias.judge_id, item_bias.dimension
),

compared as (
    select
        weekly_pairs.judge_id,
        weekly_pairs.judge_model,
        weekly_pairs.dimension,
        weekly_pairs.dimension_group,
        weekly_pairs.scale,
        weekly_pairs.week_start,
        week_numbers.week_number,
        week_numbers.week_number <= {{ var('drift_baseline_weeks') }} as is_baseline_week,
        weekly_pairs.n_pairs,
        weekly_pairs.n_humans,
        coalesce(weekly_bias.n_items, 0) as n_items,
        weekly_pairs.exact_agreement,
        kappas.kappa_unweighted,
        kappas.kappa_quadratic,
        weekly_bias.mean_bias,
        weekly_pairs.mae,
        weekly_bias.bias_se,
        baseline.baseline_bias,
        baseline.baseline_se,
        baseline.baseline_n_items,
        -- A baseline week is part of the baseline it would be compared with (and the SE would leave that overlap
        -- out): its change is undefined, not 0, so NULL, as is every change while the baseline is still forming.
        case
            when week_numbers.week_number > {{ var('drift_baseline_weeks') }}
                then weekly_bias.mean_bias - baseline.baseline_bias
        end as bias_delta,
        case
            when week_numbers.week_number > {{ var('drift_baseline_weeks') }}
                then sqrt(weekly_bias.bias_se * weekly_bias.bias_se + baseline.baseline_se * baseline.baseline_se)
        end as bias_delta_se
    from weekly_pairs
    inner join week_numbers
        on weekly_pairs.judge_id = week_numbers.judge_id
        and weekly_pairs.dimension = week_numbers.dimension
        and weekly_pairs.week_start = week_numbers.week_start
    left join weekly_bias
        on weekly_pairs.judge_id = weekly_bias.judge_id
        and weekly_pairs.dimension = weekly_bias.dimension
        and weekly_pairs.week_start = weekly_bias.week_start
    left join kappas
        on weekly_pairs.judge_id = kappas.judge_id
        and weekly_pairs.dimension = kappas.dimension
        and weekly_pairs.week_start = kappas.week_start
    left join baseline
        on weekly_pairs.judge_id = baseline.judge_id
        and weekly_pairs.dimension = baseline.dimension
),

final as (
    select
        *,
        {{ safe_divide('bias_delta', 'bias_delta_se') }} as drift_z,
        coalesce(
            not is_baseline_week
            and abs({{ safe_divide('bias_delta', 'bias_delta_se') }}) > {{ var('drift_alert_z') }},
            false
        ) as is_drift_alert
    from compared
)

select * from final
