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
-- Baseline: the judge's first `drift_baseline_weeks` weeks with pairs on the dimension, extended week by week until
-- it holds `drift_min_items` items (a week without numeric scores adds 0), pooled; baseline_weeks says how many
-- weeks it took. Held to its first two weeks alone, a judge that started small (3 items a week, then 40) had a
-- baseline of 6 items for ever and none of its later weeks was tested. Baseline weeks never alert, and their change
-- and z are NULL. A judge whose baseline has not filled yet (baseline_n_items below drift_min_items) has only baseline
-- weeks, and they are untested, not steady: is_drift_alert NULL, "baseline still forming: 6 < 10 items" (a false
-- there would read as "no drift" for a judge never compared with anything); a full baseline's weeks are false. A
-- dimension without numeric scores (refusal_appropriateness) never fills one. A later week is compared
-- with the baseline as two samples of item biases: drift_z = change / sqrt(week's SE^2 + baseline_se^2) is Welch's
-- t, so it alerts beyond Student's t quantile on the Welch-Satterthwaite df with the normal's tail beyond
-- `drift_alert_z` (t_critical_at_z: 7.0 at df 9, 5.0 at 20), which keeps the false-alarm rate the cutoff of 4
-- promises (dbt_project.yml). Read against 4 itself, weeks of 2 to 4 items alerted on noise in 2% to 16% of tests (a
-- t on 1 to 3 df; /tmp/rv-sim simulation, review finding 1). With the rule below, the same simulation with 400
-- judges tested 4,045 cells (10 or 25 items) and none alerted.
-- The week's SE is at least the baseline's item spread over the week's n: integer scores make a few items agree
-- exactly (SE 0) far more often than a normal spread would, and the baseline's SE alone then divided a change into a
-- z of 15 on noise. Under no drift both spreads estimate the same one, so the larger is the cautious choice; a judge
-- that moves every item by 2 still alerts. The df keeps the week's n_items - 1 for it (the cautious df).
-- A week after the baseline with fewer than `drift_min_items` items is not tested: is_drift_alert and drift_z are
-- NULL and no_test_reason says why ("too few items to test: 3 < 10"), never a false that reads as "no drift". So is
-- a week without numeric scores (a hazard's not_applicable verdicts only). The baseline a week is compared with
-- holds drift_min_items items or more by construction (it had "too few baseline items to test: 6 < 10", for ever).
-- Where every item's bias is the same within each window (SE 0, on 10 or more items each: a hazard verdict the judge
-- always matched people on), the change is exact, not untested: an alert when the bias moved at all (every item by
-- the same amount), no drift when it did not; z and its cutoff are NULL (a t of 0/0 or x/0). Calling such weeks
-- untested painted a judge that always agrees as unknown.
-- The judge's version (rater.version: its prompt or model version) is what an analyst checks first beside an alert:
-- judge_versions lists those of the week's compared ratings, baseline_judge_versions those of its baseline weeks.
-- has_new_judge_version says the week rated with a version its baseline did not (what the alert's comparison rests
-- on); is_judge_version_changed says its versions differ from its previous week's on the dimension, which
-- previous_judge_versions gives (where a chart marks a change, and back, and says from what). dim_raters keeps the
-- latest version only, rpt_weekly_drift_alerts that of its example.
-- int_rating_pairs_joined is read where used, not through an import CTE: DuckDB copies a CTE read more than once whole
-- (docs/performance.md, "What made it faster").
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

-- Each pair's agreement: 1 or 0, NULL for a pair with no agreement to count (an 'unsure' hazard verdict)
pair_agreement as (
    select
        judge_id,
        dimension,
        week_start,
        judge_model,
        dimension_group,
        scale,
        human_rater_id,
        judge_version,
        score_difference,
        case
            when scale <> 'hazard_verdict' then case when judge_label = human_label then 1.0 else 0.0 end
            when {{ agreement_value('scale', 'judge_label', 'judge_value') }}
                = {{ agreement_value('scale', 'human_label', 'human_value') }} then 1.0
            when {{ agreement_value('scale', 'judge_label', 'judge_value') }} is not null
                and {{ agreement_value('scale', 'human_label', 'human_value') }} is not null then 0.0
        end as agrees
    from {{ ref('int_rating_pairs_joined') }} as pairs
    where pairing = 'same_item'
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
        count(agrees) as n_agreement_pairs,
        count(distinct human_rater_id) as n_humans,
        avg(agrees) as exact_agreement,
        avg(abs(score_difference)) as mae,
        -- sorted, so that two weeks with the same versions compare equal; NULL when no rating names one
        list_sort(list(distinct judge_version) filter (where judge_version is not null)) as judge_versions
    from pair_agreement
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
        weekly_pairs.judge_id,
        weekly_pairs.dimension,
        weekly_pairs.week_start,
        dense_rank() over (
            partition by weekly_pairs.judge_id, weekly_pairs.dimension order by weekly_pairs.week_start
        ) as week_number,
        lag(weekly_pairs.judge_versions) over (
            partition by weekly_pairs.judge_id, weekly_pairs.dimension order by weekly_pairs.week_start
        ) as previous_judge_versions,
        -- items of the judge's earlier weeks on the dimension (a week without numeric scores adds 0)
        coalesce(sum(coalesce(weekly_bias.n_items, 0)) over (
            partition by weekly_pairs.judge_id, weekly_pairs.dimension order by weekly_pairs.week_start
            rows between unbounded preceding and 1 preceding
        ), 0) as n_items_before
    from weekly_pairs
    left join weekly_bias
        on weekly_pairs.judge_id = weekly_bias.judge_id
        and weekly_pairs.dimension = weekly_bias.dimension
        and weekly_pairs.week_start = weekly_bias.week_start
),

-- The baseline is a prefix of the judge's weeks: the first drift_baseline_weeks, then each next week while the weeks
-- before it hold fewer than drift_min_items items, so the first week after it is one the baseline is full for.
weeks_marked as (
    select
        judge_id,
        dimension,
        week_start,
        week_number,
        previous_judge_versions,
        week_number <= {{ var('drift_baseline_weeks') }}
            or n_items_before < {{ var('drift_min_items') }} as is_baseline_week
    from week_numbers
),

baseline as (
    select
        item_bias.judge_id,
        item_bias.dimension,
        avg(item_bias.bias) as baseline_bias,
        {{ mean_se('item_bias.bias') }} as baseline_se,
        stddev_samp(item_bias.bias) as baseline_sd,
        count(*) as baseline_n_items
    from item_bias
    inner join weeks_marked
        on item_bias.judge_id = weeks_marked.judge_id
        and item_bias.dimension = weeks_marked.dimension
        and item_bias.week_start = weeks_marked.week_start
    where weeks_marked.is_baseline_week
    group by item_bias.judge_id, item_bias.dimension
),

baseline_length as (
    select
        weeks_marked.judge_id,
        weeks_marked.dimension,
        count(*) as n_baseline_weeks,
        list_sort(list_distinct(flatten(
            list(weekly_pairs.judge_versions) filter (where weekly_pairs.judge_versions is not null)
        ))) as baseline_judge_versions
    from weeks_marked
    inner join weekly_pairs
        on weeks_marked.judge_id = weekly_pairs.judge_id
        and weeks_marked.dimension = weekly_pairs.dimension
        and weeks_marked.week_start = weekly_pairs.week_start
    where weeks_marked.is_baseline_week
    group by weeks_marked.judge_id, weeks_marked.dimension
),

compared as (
    select
        weekly_pairs.judge_id,
        weekly_pairs.judge_model,
        weekly_pairs.dimension,
        weekly_pairs.dimension_group,
        weekly_pairs.scale,
        weekly_pairs.week_start,
        weeks_marked.week_number,
        weeks_marked.is_baseline_week,
        weekly_pairs.n_pairs,
        weekly_pairs.n_agreement_pairs,
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
        coalesce(baseline.baseline_n_items, 0) as baseline_n_items,
        coalesce(baseline_length.n_baseline_weeks, 0) as baseline_weeks,
        weekly_pairs.judge_versions,
        baseline_length.baseline_judge_versions,
        weeks_marked.previous_judge_versions,
        -- NULL in the judge's first week on the dimension, or where either week's ratings name no version
        case
            when weeks_marked.previous_judge_versions is not null
                then weekly_pairs.judge_versions <> weeks_marked.previous_judge_versions
        end as is_judge_version_changed,
        -- NULL in a baseline week (it is part of what it would be compared with), as bias_delta is
        case
            when not weeks_marked.is_baseline_week
                then not list_has_all(baseline_length.baseline_judge_versions, weekly_pairs.judge_versions)
        end as has_new_judge_version,
        -- A baseline week is part of the baseline it would be compared with (and the SE would leave that overlap
        -- out): its change is undefined, not 0, so NULL, as is every change while the baseline is still forming.
        case
            when not weeks_marked.is_baseline_week then weekly_bias.mean_bias - baseline.baseline_bias
        end as bias_delta,
        -- the week's variance of its mean bias as the test uses it: its own, or the baseline's spread over its n
        case
            when not weeks_marked.is_baseline_week
                and baseline.baseline_sd * baseline.baseline_sd / weekly_bias.n_items
                    > weekly_bias.bias_se * weekly_bias.bias_se
                then baseline.baseline_sd * baseline.baseline_sd / weekly_bias.n_items
            when not weeks_marked.is_baseline_week then weekly_bias.bias_se * weekly_bias.bias_se
        end as week_variance
    from weekly_pairs
    inner join weeks_marked
        on weekly_pairs.judge_id = weeks_marked.judge_id
        and weekly_pairs.dimension = weeks_marked.dimension
        and weekly_pairs.week_start = weeks_marked.week_start
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
    left join baseline_length
        on weekly_pairs.judge_id = baseline_length.judge_id
        and weekly_pairs.dimension = baseline_length.dimension
),

with_se as (
    select
        *,
        sqrt(week_variance + baseline_se * baseline_se) as bias_delta_se,
        -- Welch-Satterthwaite
        {{ safe_divide(
            '(week_variance + baseline_se * baseline_se) * (week_variance + baseline_se * baseline_se)',
            'week_variance * week_variance / (n_items - 1)
                + baseline_se * baseline_se * baseline_se * baseline_se / (baseline_n_items - 1)'
        ) }} as welch_df
    from compared
),

tested as (
    select
        *,
        case
            -- a week of a baseline that holds enough items is the reference: it never alerts (false, not NULL)
            when is_baseline_week and baseline_n_items >= {{ var('drift_min_items') }} then null
            when mean_bias is null then 'no numeric scores to compare'
            -- a judge whose weeks so far hold too few items to compare with: its baseline is all it has
            when is_baseline_week
                then 'baseline still forming: ' || cast(baseline_n_items as varchar)
                    || ' < {{ var("drift_min_items") }} items'
            when n_items < {{ var('drift_min_items') }}
                then 'too few items to test: ' || cast(n_items as varchar) || ' < {{ var("drift_min_items") }}'
            -- reachable only with drift_min_items below 2: a window of one item has no SE (no spread is SE 0, exact)
            when bias_delta_se is null then 'one item in a window: the change has no SE'
        end as no_test_reason
    from with_se
),

judged as (
    select
        judge_id,
        judge_model,
        dimension,
        dimension_group,
        scale,
        week_start,
        week_number,
        is_baseline_week,
        n_pairs,
        n_agreement_pairs,
        n_humans,
        n_items,
        exact_agreement,
        kappa_unweighted,
        kappa_quadratic,
        mean_bias,
        mae,
        bias_se,
        -- Student's t on the week's items: a week of 10 items is 2.26 SE either side, not the normal's 1.96
        mean_bias - {{ t_critical_975('n_items - 1') }} * bias_se as bias_ci_low,
        mean_bias + {{ t_critical_975('n_items - 1') }} * bias_se as bias_ci_high,
        baseline_bias,
        baseline_se,
        baseline_n_items,
        baseline_weeks,
        judge_versions,
        baseline_judge_versions,
        previous_judge_versions,
        is_judge_version_changed,
        has_new_judge_version,
        bias_delta,
        bias_delta_se,
        case when no_test_reason is null and not is_baseline_week and bias_delta_se > 0 then welch_df end as drift_df,
        case
            when no_test_reason is null and not is_baseline_week and bias_delta_se > 0
                then {{ t_critical_at_z('welch_df', var('drift_alert_z')) }}
        end as drift_critical_value,
        case
            when no_test_reason is null and not is_baseline_week and bias_delta_se > 0
                then bias_delta / bias_delta_se
        end as drift_z,
        case
            when no_test_reason is not null then null
            when is_baseline_week then false
            -- the exact case: 1e-9 absorbs the rounding of two means of equal values
            when bias_delta_se = 0 then abs(bias_delta) > 1e-9
            else abs(bias_delta / bias_delta_se) > {{ t_critical_at_z('welch_df', var('drift_alert_z')) }}
        end as is_drift_alert,
        no_test_reason
    from tested
),

-- The band a tested week's bias is read against, in the bias's own points: the page and the report shade it, and a
-- bias outside it is an alert. NULL where there is no cutoff (baseline and untested weeks; an exact change, SE 0,
-- alerts on any move).
final as (
    select
        *,
        baseline_bias - drift_critical_value * bias_delta_se as alert_band_low,
        baseline_bias + drift_critical_value * bias_delta_se as alert_band_high
    from judged
)

select * from final
