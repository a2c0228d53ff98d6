-- One row: the dbt vars the last build computed the marts with, and when it ran. The report and the app quote
-- these ("an alert needs t up to 7.0 with 10 items a window", "changes need 10 samples") rather than today's
-- dbt_project.yml, which someone may have edited since without rebuilding, or which a build's --vars overrode.
-- Tagged as_of_build, so every `evalhouse build` writes it, new data or not; it is built after the models that
-- read the vars (the depends_on below), so a dbt run that rebuilds one of them, or fails on one, rewrites it or
-- leaves it with the values of the tables that stand.
-- depends_on: {{ ref('fct_judge_drift') }}
-- depends_on: {{ ref('rpt_weekly_model_changes') }}
-- depends_on: {{ ref('rpt_weekly_refusal_changes') }}
-- depends_on: {{ ref('rpt_weekly_agreement') }}
-- depends_on: {{ ref('int_review_records_queued') }}
{%- set confidences = var('review_confidences') %}
{%- set confidences = [confidences] if confidences is string else confidences %}
with

final as (
    select
        {{ run_started_timestamp() }} as built_at,
        cast({{ var('drift_baseline_weeks') }} as integer) as drift_baseline_weeks,
        cast({{ var('drift_min_items') }} as integer) as drift_min_items,
        cast({{ var('drift_alert_z') }} as double) as drift_alert_z,
        -- The largest drift_critical_value a tested week can have (fct_judge_drift): Student's t on
        -- drift_min_items - 1 df, the fewest Welch's df can be with both windows holding drift_min_items items.
        {{ t_critical_at_z(var('drift_min_items') ~ ' - 1', var('drift_alert_z')) }}
            as drift_critical_value_at_min_items,
        cast({{ var('model_change_min_samples') }} as integer) as model_change_min_samples,
        cast({{ var('model_change_min_changed_samples') }} as integer) as model_change_min_changed_samples,
        cast({{ var('refusal_change_min_items') }} as integer) as refusal_change_min_items,
        cast({{ var('alpha_bootstrap_replicates') }} as integer) as alpha_bootstrap_replicates,
        cast({{ var('review_score_at_or_below') }} as double) as review_score_at_or_below,
        cast({{ stats_literal(confidences | join(', ')) }} as varchar) as review_confidences
)

select * from final
