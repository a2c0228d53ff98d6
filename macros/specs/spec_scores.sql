{# The select of the two spec score marts, which are two cuts of int_spec_component_scores: fct_spec_scores (all
   weeks pooled: weekly=false) and fct_spec_scores_weekly (one row per week: weekly=true, with week_start). One
   column list, so the two cannot drift apart. Every week is scored against the spec's current version
   (docs/specs.md, "Versions"), which spec_version names. #}
{% macro spec_scores(weekly) %}
with

scores as (
    select * from {{ ref('int_spec_component_scores') }}
    where week_start is {{ 'not null' if weekly else 'null' }}
),

specs as (
    select * from {{ ref('int_eval_specs_unioned') }} where is_current
),

final as (
    select
        scores.spec_id,
        scores.spec_kind,
        specs.spec_version,
        scores.model_id,
        component_id,
        {%- if weekly %}
        week_start,
        {%- endif %}
        component_kind,
        scored_by,
        component_index,
        normalization,
        raw_value,
        normalized_value,
        ci_low,
        ci_high,
        interval_method,
        weight,
        stated_weight,
        threshold,
        normalized_threshold,
        threshold_direction,
        meets_threshold,
        is_within_noise,
        n,
        n_results,
        n_results_out_of_scale,
        computed_raw_value,
        n_computed_samples,
        n_disagreements
    from scores
    inner join specs on scores.spec_id = specs.spec_id
)

select * from final
{% endmacro %}
