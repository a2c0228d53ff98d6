-- One row per spec version: every draft-standard evaluation specification and every ADP evaluation suite loaded,
-- with where its composite's method comes from. is_current marks the version results are scored against: the
-- highest version in semver order ("v1.10" after "v1.9", "2.0.0" after "2.0.0-rc1"; macros/specs/spec_portable.sql),
-- then the latest ingested. ADP suites have no version.
-- A spec id both a draft-standard evaluation and an ADP suite use names two specs, and results name a spec by its id
-- alone: neither is current, so neither is scored (a results-to-spec join would pair every result with both, and the
-- build failed on the duplicate components). is_id_shared marks them, and fct_spec_id_conflicts lists them.
-- aggregation_method is the method as the spec states it; an ADP suite without scoring.combine combines with
-- weighted_average when it lists weights, else average; a draft-standard spec without config.aggregation has
-- none (NULL): rubric-level scores only, no composite.
with

evaluations as (
    select * from {{ ref('stg_ieee_draft__evaluations') }}
),

suites as (
    select * from {{ ref('stg_adp__suites') }}
),

ieee_specs as (
    select
        evaluation_id as spec_id,
        'ieee_evaluation' as spec_kind,
        evaluation_version as spec_version,
        spec_name,
        description,
        dataset_id,
        is_dataset_embedded,
        embedded_dataset_json,
        rubric_ids_json,
        embedded_rubrics_json,
        aggregation_method,
        aggregation_weights_json as weights_json,
        aggregation_thresholds_json as thresholds_json,
        promotion_threshold,
        record_id,
        source_path,
        source_line,
        ingested_at
    from evaluations
),

adp_specs as (
    select
        suite_id as spec_id,
        'adp_suite' as spec_kind,
        cast(null as varchar) as spec_version,
        -- A suite has no name of its own: its id names it.
        suite_id as spec_name,
        description,
        cast(null as varchar) as dataset_id,
        cast(null as boolean) as is_dataset_embedded,
        cast(null as varchar) as embedded_dataset_json,
        cast(null as varchar) as rubric_ids_json,
        metrics_json as embedded_rubrics_json,
        coalesce(
            scoring_combine,
            case when scoring_weights_json is not null then 'weighted_average' else 'average' end
        ) as aggregation_method,
        scoring_weights_json as weights_json,
        cast(null as varchar) as thresholds_json,
        promotion_threshold,
        record_id,
        source_path,
        source_line,
        ingested_at
    from suites
),

unioned as (
    select * from ieee_specs
    union all
    select * from adp_specs
),

ranked as (
    select
        *,
        row_number() over (
            partition by spec_kind, spec_id
            order by {{ version_order_key('spec_version') }} desc, ingested_at desc, record_id desc
        ) as version_rank,
        count(*) over (partition by spec_kind, spec_id) as n_versions,
        min(spec_kind) over (partition by spec_id) <> max(spec_kind) over (partition by spec_id) as is_id_shared
    from unioned
),

final as (
    select
        record_id as spec_record_id,
        spec_id,
        spec_kind,
        spec_version,
        spec_name,
        description,
        dataset_id,
        is_dataset_embedded,
        embedded_dataset_json,
        rubric_ids_json,
        -- For an ADP suite, its metrics list.
        embedded_rubrics_json as embedded_components_json,
        aggregation_method,
        weights_json,
        thresholds_json,
        promotion_threshold,
        cast(version_rank as bigint) as version_rank,
        version_rank = 1 and not is_id_shared as is_current,
        is_id_shared,
        n_versions,
        source_path,
        source_line,
        ingested_at
    from ranked
)

select * from final
