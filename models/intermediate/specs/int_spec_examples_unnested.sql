-- One row per draft-standard evaluation spec (current version) and example of its dataset: the embedded dataset,
-- or the referenced dataset's latest version. sample_id is what result records call the example: its metadata.id,
-- else its 0-based position. expected_outputs_json is always a JSON array of the accepted strings (a single
-- expected_output string becomes a one-element array); NULL for a target_scores (multiple-choice) example.
with

specs as (
    select * from {{ ref('int_eval_specs_unioned') }} where is_current and spec_kind = 'ieee_evaluation'
),

datasets as (
    select * from {{ ref('stg_ieee_draft__datasets') }}
),

dataset_versions as (
    select
        *,
        row_number() over (
            partition by dataset_id
            order by {{ version_order_key('dataset_version') }} desc, ingested_at desc, record_id desc
        ) as version_rank
    from datasets
),

latest_datasets as (
    select * from dataset_versions where version_rank = 1
),

spec_datasets as (
    select
        specs.spec_id,
        specs.dataset_id,
        case
            when specs.is_dataset_embedded then {{ json_text('specs.embedded_dataset_json', '$.version') }}
            else latest_datasets.dataset_version
        end as dataset_version,
        case
            when specs.is_dataset_embedded then {{ json_fragment('specs.embedded_dataset_json', '$.examples') }}
            else latest_datasets.examples_json
        end as examples_json
    from specs
    left join latest_datasets on specs.dataset_id = latest_datasets.dataset_id
),

examples as (
    select
        spec_datasets.spec_id,
        spec_datasets.dataset_id,
        spec_datasets.dataset_version,
        example_index,
        example_element
    from spec_datasets
    {{ json_array_elements('spec_datasets.examples_json', 'example') }}
),

fields as (
    select
        spec_id,
        dataset_id,
        dataset_version,
        cast(example_index as bigint) as example_index,
        coalesce(
            {{ json_text('example_element', '$.metadata.id') }},
            cast(example_index as varchar)
        ) as sample_id,
        {{ json_text('example_element', '$.input') }} as input_text,
        {{ json_fragment('example_element', '$.expected_output') }} as expected_output_json,
        {{ json_fragment('example_element', '$.target_scores') }} as target_scores_json
    from examples
),

final as (
    select
        spec_id,
        dataset_id,
        dataset_version,
        example_index,
        sample_id,
        input_text,
        case
            when expected_output_json is null then null
            when substr(trim(expected_output_json), 1, 1) = '[' then expected_output_json
            else '[' || expected_output_json || ']'
        end as expected_outputs_json,
        target_scores_json
    from fields
)

select * from final
