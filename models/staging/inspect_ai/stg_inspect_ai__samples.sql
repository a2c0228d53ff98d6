-- One row per Inspect AI sample and epoch (one trial), typed. Its scores and per-model token usage stay JSON here
-- (keyed by scorer and model names); int_inspect_trials_joined picks the log's primary scorer and sums the usage.
with

source as (
    select * from {{ source('inspect_ai', 'samples') }}
),

extracted as (
    select
        *,
        {{ json_fragment('record_json', '$.messages') }} as messages_json,
        {{ json_text('record_json', '$.output.choices[0].message.content[0].type') }} as first_content_type
    from source
),

renamed as (
    select
        record_id,
        {{ json_text('record_json', '$.id') }} as sample_id,
        cast({{ json_text('record_json', '$.epoch') }} as integer) as epoch,
        -- Text, or the JSON of the chat messages when the input is a list of them.
        {{ json_text('record_json', '$.input') }} as input_text,
        coalesce(
            {{ json_text('record_json', '$.target[0]') }},
            {{ json_text('record_json', '$.target') }}
        ) as reference_text,
        -- A message's content is text, or a list of parts (reasoning first, then text).
        case
            when first_content_type is null
                then {{ json_text('record_json', '$.output.choices[0].message.content') }}
            when first_content_type = 'text'
                then {{ json_text('record_json', '$.output.choices[0].message.content[0].text') }}
            else {{ json_text('record_json', '$.output.choices[0].message.content[1].text') }}
        end as output_text,
        {{ json_text('record_json', '$.output.model') }} as output_model,
        {{ json_fragment('record_json', '$.scores') }} as scores_json,
        {{ json_fragment('record_json', '$.model_usage') }} as model_usage_json,
        cast({{ json_text('record_json', '$.output.usage.input_tokens') }} as bigint) as output_input_tokens,
        cast({{ json_text('record_json', '$.output.usage.output_tokens') }} as bigint) as output_output_tokens,
        cast({{ json_text('record_json', '$.total_time') }} as double) * 1000 as latency_ms,
        cast({{ json_text('record_json', '$.working_time') }} as double) * 1000 as working_time_ms,
        {{ json_text('record_json', '$.error.message') }} as error_message,
        {{ json_text('record_json', '$.uuid') }} as sample_uuid,
        -- Counted on the compact JSON of the transcript: a tool message makes it agentic, several answers multi-turn.
        case
            when messages_json like '%"role":"tool"%' then 'agentic'
            when length(messages_json) - length(replace(messages_json, '"role":"assistant"', '')) > 18 then 'multi_turn'
            else 'single_turn'
        end as interaction_type,
        source_path,
        source_line,
        record_sha256,
        file_sha256,
        ingested_at,
        batch_id
    from extracted
)

select * from renamed
