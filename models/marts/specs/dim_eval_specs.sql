-- One row per spec: every draft-standard evaluation specification and ADP evaluation suite, at the version results
-- are scored against, with how its composite is made and how many results it has. Weight and threshold keys that name
-- none of the spec's components are counted and named: the composite ignores them, so a typo ("fmat" for "fmt")
-- would otherwise move a weight or drop a gate without a word (a row fct_promotion_decisions would promote reads
-- 'threshold not measured').
with

specs as (
    select * from {{ ref('int_eval_specs_unioned') }} where is_current
),

components as (
    select * from {{ ref('int_spec_components_unioned') }}
),

trials as (
    select * from {{ ref('int_spec_trials_joined') }}
),

examples as (
    select * from {{ ref('int_spec_examples_unnested') }}
),

config_keys as (
    -- The spec's weight and threshold keys, each with what it keys.
    select specs.spec_id, 'weight' as key_kind, weight_key as config_key
    from specs
    {{ json_object_entries('specs.weights_json', 'weight') }}
    union all
    select specs.spec_id, 'threshold' as key_kind, threshold_key as config_key
    from specs
    {{ json_object_entries('specs.thresholds_json', 'threshold') }}
),

unknown_keys as (
    -- The keys that name none of the spec's components, counted and named per kind.
    select
        config_keys.spec_id,
        count(case when key_kind = 'weight' then 1 end) as n_unknown_weight_keys,
        {{ sorted_string_agg("case when key_kind = 'weight' then config_key end", "', '") }} as unknown_weight_keys,
        count(case when key_kind = 'threshold' then 1 end) as n_unknown_threshold_keys,
        {{ sorted_string_agg("case when key_kind = 'threshold' then config_key end", "', '") }}
            as unknown_threshold_keys
    from config_keys
    left join components
        on config_keys.spec_id = components.spec_id
        and config_keys.config_key = components.component_id
    where components.component_id is null
    group by config_keys.spec_id
),

component_counts as (
    select
        spec_id,
        count(*) as n_components,
        sum(case when not is_resolved then 1 else 0 end) as n_unresolved_components
    from components
    group by spec_id
),

result_counts as (
    select
        spec_id,
        sum(case when is_matched then 1 else 0 end) as n_results,
        sum(case when is_matched then 0 else 1 end) as n_unmatched_results,
        count(distinct case when is_matched then model_id end) as n_models,
        min(week_start) as first_week_start,
        max(week_start) as last_week_start
    from trials
    group by spec_id
),

example_counts as (
    select
        spec_id,
        max(dataset_version) as dataset_version,
        count(*) as n_examples
    from examples
    group by spec_id
),

final as (
    select
        specs.spec_id,
        specs.spec_kind,
        specs.spec_name as name,
        specs.description,
        specs.spec_version as version,
        cast(specs.n_versions as bigint) as n_versions,
        specs.aggregation_method,
        specs.weights_json as weights,
        specs.thresholds_json as thresholds,
        specs.promotion_threshold,
        specs.dataset_id,
        example_counts.dataset_version,
        cast(coalesce(example_counts.n_examples, 0) as bigint) as n_examples,
        cast(coalesce(component_counts.n_components, 0) as bigint) as n_components,
        cast(coalesce(component_counts.n_unresolved_components, 0) as bigint) as n_unresolved_components,
        cast(coalesce(unknown_keys.n_unknown_weight_keys, 0) as bigint) as n_unknown_weight_keys,
        coalesce(unknown_keys.unknown_weight_keys, '') as unknown_weight_keys,
        cast(coalesce(unknown_keys.n_unknown_threshold_keys, 0) as bigint) as n_unknown_threshold_keys,
        coalesce(unknown_keys.unknown_threshold_keys, '') as unknown_threshold_keys,
        cast(coalesce(result_counts.n_results, 0) as bigint) as n_results,
        cast(coalesce(result_counts.n_unmatched_results, 0) as bigint) as n_unmatched_results,
        cast(coalesce(result_counts.n_models, 0) as bigint) as n_models,
        result_counts.first_week_start,
        result_counts.last_week_start,
        specs.source_path,
        specs.source_line
    from specs
    left join component_counts on specs.spec_id = component_counts.spec_id
    left join result_counts on specs.spec_id = result_counts.spec_id
    left join example_counts on specs.spec_id = example_counts.spec_id
    left join unknown_keys on specs.spec_id = unknown_keys.spec_id
)

select * from final
