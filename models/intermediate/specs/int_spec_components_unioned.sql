-- One row per spec and component, for the current version of every spec: a draft-standard spec's rubrics
-- (referenced by id, resolved to the rubric's latest version, or embedded) and an ADP suite's metrics. Each
-- component says how its results become a raw value and a value in [0, 1] (normalization), its threshold in its
-- own units and normalised, and its weight in the composite (docs/specs.md has the rules):
--   rubric         mean score per sample, then over samples; normalised (mean - min_score) / (max_score - min_score),
--                  0 and 1 by default; its threshold, if the spec's config.aggregation.thresholds sets one, is
--                  normalised and its raw-unit equivalent is min + t (max - min). A referenced rubric that is not
--                  loaded has no scale: no normalised value and no raw threshold (the component counts as missing)
--   deterministic  pass rate of 0/1 scores (already in [0, 1]); threshold true means 1.0
--   llm_judge      mean score on the rubric's scale ("1-5"): (mean - min) / (max - min); threshold likewise
--   telemetry      latency (p50/p90/p95/p99 as the metric's name says, else the mean) against max_ms:
--                  1 within budget, else max_ms / value; the threshold is max_ms, an upper bound
-- Weights: weighted_mean / weighted_average divide the stated weights by their sum (a component the weights leave
-- out weighs 0); mean / average weigh each component 1/m; sum keeps the stated weights (1 each when none);
-- boolean and a spec without an aggregation method have none.
with

specs as (
    select * from {{ ref('int_eval_specs_unioned') }} where is_current
),

rubrics as (
    select * from {{ ref('stg_ieee_draft__rubrics') }}
),

rubric_versions as (
    select
        *,
        row_number() over (
            partition by rubric_id
            order by {{ version_order_key('rubric_version') }} desc, ingested_at desc, record_id desc
        ) as version_rank
    from rubrics
),

latest_rubrics as (
    select * from rubric_versions where version_rank = 1
),

referenced_rubric_ids as (
    select
        specs.spec_id,
        rubric_ids_text as component_id,
        rubric_ids_index as component_index
    from specs
    {{ json_string_elements('specs.rubric_ids_json', 'rubric_ids') }}
    where specs.spec_kind = 'ieee_evaluation'
),

referenced_rubrics as (
    select
        referenced_rubric_ids.spec_id,
        referenced_rubric_ids.component_id,
        referenced_rubric_ids.component_index,
        'referenced' as definition_source,
        latest_rubrics.rubric_version as component_version,
        latest_rubrics.rubric_id is not null as is_resolved,
        latest_rubrics.metric,
        latest_rubrics.score_type,
        latest_rubrics.case_sensitive,
        latest_rubrics.trim_whitespace,
        latest_rubrics.pattern,
        latest_rubrics.min_score,
        latest_rubrics.max_score
    from referenced_rubric_ids
    left join latest_rubrics on referenced_rubric_ids.component_id = latest_rubrics.rubric_id
),

embedded_rubric_elements as (
    select
        specs.spec_id,
        rubric_element,
        rubric_index
    from specs
    {{ json_array_elements('specs.embedded_components_json', 'rubric') }}
    where specs.spec_kind = 'ieee_evaluation'
),

embedded_rubrics as (
    select
        spec_id,
        {{ json_text('rubric_element', '$.id') }} as component_id,
        -- After the referenced ones, in the order written.
        1000000 + rubric_index as component_index,
        'embedded' as definition_source,
        {{ json_text('rubric_element', '$.version') }} as component_version,
        true as is_resolved,
        {{ json_text('rubric_element', '$.metric') }} as metric,
        {{ json_text('rubric_element', '$.score_type') }} as score_type,
        cast({{ json_text('rubric_element', '$.params.case_sensitive') }} as boolean) as case_sensitive,
        cast({{ json_text('rubric_element', '$.params.trim_whitespace') }} as boolean) as trim_whitespace,
        {{ json_text('rubric_element', '$.params.pattern') }} as pattern,
        cast({{ json_text('rubric_element', '$.params.min_score') }} as double) as min_score,
        cast({{ json_text('rubric_element', '$.params.max_score') }} as double) as max_score
    from embedded_rubric_elements
),

spec_rubrics as (
    select * from referenced_rubrics
    union all
    select * from embedded_rubrics
),

-- A rubric both referenced and embedded counts once: the embedded definition wins (it travels with the spec).
distinct_rubrics as (
    select
        *,
        row_number() over (
            partition by spec_id, component_id
            order by case when definition_source = 'embedded' then 0 else 1 end, component_index
        ) as definition_rank
    from spec_rubrics
),

threshold_entries as (
    select
        specs.spec_id,
        threshold_key,
        cast(threshold_value as double) as normalized_threshold
    from specs
    {{ json_object_entries('specs.thresholds_json', 'threshold') }}
),

rubric_components as (
    select
        distinct_rubrics.spec_id,
        distinct_rubrics.component_id,
        distinct_rubrics.component_index,
        'rubric' as component_kind,
        distinct_rubrics.metric as scored_by,
        distinct_rubrics.definition_source,
        distinct_rubrics.component_version,
        distinct_rubrics.is_resolved,
        distinct_rubrics.score_type,
        -- An exact match is exact unless the rubric relaxes it.
        case when distinct_rubrics.metric in ('exact_match', 'regex_match')
            then coalesce(distinct_rubrics.case_sensitive, true) end as case_sensitive,
        case when distinct_rubrics.metric in ('exact_match', 'regex_match')
            then coalesce(distinct_rubrics.trim_whitespace, false) end as trim_whitespace,
        distinct_rubrics.pattern,
        -- A referenced rubric that is not loaded has no known scale: its scores are not normalised on a guessed
        -- 0-1 (a 1-5 judge's 3 would read 2.5 times the top), so the component counts as missing.
        case when distinct_rubrics.is_resolved then coalesce(distinct_rubrics.min_score, 0.0) end as scale_min,
        case when distinct_rubrics.is_resolved then coalesce(distinct_rubrics.max_score, 1.0) end as scale_max,
        'scale' as normalization,
        case
            when distinct_rubrics.metric in ('exact_match', 'regex_match') then 'wilson'
            when lower(distinct_rubrics.score_type) = 'binary' then 'wilson'
            else 'wilson_from_se'
        end as interval_method,
        cast(null as varchar) as telemetry_statistic,
        case when distinct_rubrics.is_resolved then coalesce(distinct_rubrics.min_score, 0.0)
            + threshold_entries.normalized_threshold
            * (coalesce(distinct_rubrics.max_score, 1.0) - coalesce(distinct_rubrics.min_score, 0.0)) end as threshold,
        threshold_entries.normalized_threshold,
        'at_least' as threshold_direction
    from distinct_rubrics
    left join threshold_entries
        on distinct_rubrics.spec_id = threshold_entries.spec_id
        and distinct_rubrics.component_id = threshold_entries.threshold_key
    where distinct_rubrics.definition_rank = 1
),

metric_elements as (
    select
        specs.spec_id,
        metric_element,
        metric_index
    from specs
    {{ json_array_elements('specs.embedded_components_json', 'metric') }}
    where specs.spec_kind = 'adp_suite'
),

metric_fields as (
    select
        spec_id,
        metric_index,
        {{ json_text('metric_element', '$.id') }} as component_id,
        {{ json_text('metric_element', '$.type') }} as evaluator_type,
        {{ json_text('metric_element', '$.function') }} as function_name,
        {{ json_text('metric_element', '$.model') }} as judge_model,
        coalesce(
            {{ json_text('metric_element', '$.metric') }},
            {{ json_text('metric_element', '$.telemetry.metric') }}
        ) as telemetry_metric,
        lower({{ json_text('metric_element', '$.threshold') }}) as threshold_text,
        cast({{ json_text('metric_element', '$.max_ms') }} as double) as max_ms,
        -- A judge's scale is its rubric criteria's ("1-5"); the first criterion's is read.
        {{ json_text('metric_element', '$.rubric[0].scale') }} as judge_scale
    from metric_elements
),

metric_scales as (
    select
        *,
        case when threshold_text in ('true', 'false') then null else try_cast(threshold_text as double) end
            as numeric_threshold,
        try_cast(nullif(regexp_extract(
            judge_scale, '^ *(-?[0-9]+([.][0-9]+)?) *(-|to) *(-?[0-9]+([.][0-9]+)?) *$', 1
        ), '') as double) as judge_scale_min,
        try_cast(nullif(regexp_extract(
            judge_scale, '^ *(-?[0-9]+([.][0-9]+)?) *(-|to) *(-?[0-9]+([.][0-9]+)?) *$', 4
        ), '') as double) as judge_scale_max,
        case
            when lower(telemetry_metric) not like '%latency%' then null
            when regexp_extract(lower(telemetry_metric), 'p(50|90|95|99)', 1) <> ''
                then 'p' || regexp_extract(lower(telemetry_metric), 'p(50|90|95|99)', 1)
            else 'mean'
        end as telemetry_statistic,
        row_number() over (partition by spec_id, component_id order by metric_index)
            as definition_rank
    from metric_fields
),

metric_components as (
    select
        spec_id,
        component_id,
        metric_index as component_index,
        evaluator_type as component_kind,
        case evaluator_type
            when 'deterministic' then function_name
            when 'llm_judge' then judge_model
            else telemetry_metric
        end as scored_by,
        'embedded' as definition_source,
        cast(null as varchar) as component_version,
        true as is_resolved,
        cast(null as varchar) as score_type,
        cast(null as boolean) as case_sensitive,
        cast(null as boolean) as trim_whitespace,
        cast(null as varchar) as pattern,
        case evaluator_type when 'deterministic' then 0.0 when 'llm_judge' then judge_scale_min end as scale_min,
        case evaluator_type when 'deterministic' then 1.0 when 'llm_judge' then judge_scale_max end as scale_max,
        case evaluator_type
            when 'deterministic' then 'pass_rate'
            when 'llm_judge' then 'scale'
            when 'telemetry' then case when telemetry_statistic is not null then 'latency_budget' end
        end as normalization,
        case evaluator_type when 'deterministic' then 'wilson' when 'llm_judge' then 'wilson_from_se' end as interval_method,
        case when evaluator_type = 'telemetry' then telemetry_statistic end as telemetry_statistic,
        case evaluator_type
            when 'deterministic' then case threshold_text when 'true' then 1.0 when 'false' then 0.0
                else numeric_threshold end
            when 'llm_judge' then numeric_threshold
            when 'telemetry' then coalesce(max_ms, numeric_threshold)
        end as threshold,
        case evaluator_type
            when 'deterministic' then case threshold_text when 'true' then 1.0 when 'false' then 0.0
                else numeric_threshold end
            when 'llm_judge'
                then {{ safe_divide('numeric_threshold - judge_scale_min', 'judge_scale_max - judge_scale_min') }}
            when 'telemetry' then case when coalesce(max_ms, numeric_threshold) is not null then 1.0 end
        end as normalized_threshold,
        case when evaluator_type = 'telemetry' then 'at_most' else 'at_least' end as threshold_direction
    from metric_scales
    -- A metric id listed twice in one suite counts once (the first).
    where definition_rank = 1
),

components as (
    select * from rubric_components
    union all
    select * from metric_components
),

weight_entries as (
    select
        specs.spec_id,
        weight_key,
        cast(weight_value as double) as stated_weight
    from specs
    {{ json_object_entries('specs.weights_json', 'weight') }}
),

weighted as (
    select
        components.*,
        specs.spec_kind,
        specs.aggregation_method,
        weight_entries.stated_weight,
        case
            when specs.aggregation_method in ('weighted_mean', 'weighted_average')
                then coalesce(weight_entries.stated_weight, 0.0) / nullif(
                    sum(coalesce(weight_entries.stated_weight, 0.0)) over (partition by components.spec_id), 0
                )
            when specs.aggregation_method in ('mean', 'average')
                then 1.0 / count(*) over (partition by components.spec_id)
            when specs.aggregation_method = 'sum'
                then coalesce(
                    weight_entries.stated_weight, case when specs.weights_json is null then 1.0 else 0.0 end
                )
        end as weight
    from components
    inner join specs on components.spec_id = specs.spec_id
    left join weight_entries
        on components.spec_id = weight_entries.spec_id
        and components.component_id = weight_entries.weight_key
),

final as (
    select
        spec_id,
        spec_kind,
        component_id,
        cast(component_index as bigint) as component_index,
        component_kind,
        scored_by,
        definition_source,
        component_version,
        is_resolved,
        score_type,
        case_sensitive,
        trim_whitespace,
        pattern,
        scale_min,
        scale_max,
        normalization,
        interval_method,
        telemetry_statistic,
        threshold,
        normalized_threshold,
        threshold_direction,
        aggregation_method,
        stated_weight,
        weight
    from weighted
)

select * from final
