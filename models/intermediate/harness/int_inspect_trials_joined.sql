-- One row per Inspect AI sample and epoch (a trial), joined to its log's header (the eval, the model, when it ran)
-- with the primary scorer's value as its score. The log's primary scorer is the first it reports results for
-- (stg_inspect_ai__logs.primary_scorer); a log that names none uses the sample's only scorer.
-- Values map as Inspect's value_to_float does, except that what it cannot read is NULL (unscored), never 0:
--   C, yes, true -> 1;  I, no, false -> 0;  P -> 0.5;  N (no answer) -> 0;  numbers and numeric text as they are.
-- A scorer that wrote NaN (stored as null), an object or a list value leaves the trial unscored (NULL).
-- is_correct: 1 is correct and 0 is not; P (partial) is not correct; other numbers (a graded 0.7) have no verdict.
-- Tokens: the sample's model_usage summed over its models (every call it made), else its output's usage.
-- Samples of a file that has no header record (it was quarantined) give no trial.
-- A log rewritten at the same path (Inspect rewrites a running eval's log; ingest loads only what changed) counts
-- once: its latest header, and each sample-epoch from the latest ingest that stored it.
with

all_samples as (
    select * from {{ ref('stg_inspect_ai__samples') }}
),

all_logs as (
    select * from {{ ref('stg_inspect_ai__logs') }}
),

samples as (
    select * from (
        select
            *,
            row_number() over (
                partition by source_path, sample_id, epoch order by ingested_at desc, source_line desc
            ) as recency
        from all_samples
    ) as ranked_samples
    where recency = 1
),

logs as (
    select * from (
        select
            *,
            row_number() over (partition by source_path order by ingested_at desc, source_line desc) as recency
        from all_logs
    ) as ranked_logs
    where recency = 1
),

sample_scores as (
    select
        samples.record_id,
        score_key as scorer,
        score_value as score_json
    from samples
    {{ json_object_entries('samples.scores_json', 'score') }}
),

scorer_counts as (
    select record_id, count(*) as n_scorers, min(scorer) as only_scorer
    from sample_scores
    group by record_id
),

usage as (
    select
        samples.record_id,
        cast(sum(cast({{ json_text('usage_value', '$.input_tokens') }} as bigint)) as bigint) as input_tokens,
        cast(sum(cast({{ json_text('usage_value', '$.output_tokens') }} as bigint)) as bigint) as output_tokens
    from samples
    {{ json_object_entries('samples.model_usage_json', 'usage') }}
    group by samples.record_id
),

with_header as (
    select
        samples.*,
        logs.record_id as log_record_id,
        logs.run_id,
        logs.eval_id,
        logs.task_name,
        logs.model_id,
        logs.created_at,
        coalesce(
            logs.primary_scorer, case when scorer_counts.n_scorers = 1 then scorer_counts.only_scorer end
        ) as scorer
    from samples
    inner join logs on samples.source_path = logs.source_path
    left join scorer_counts on samples.record_id = scorer_counts.record_id
),

valued as (
    select
        with_header.*,
        upper(trim({{ json_text('sample_scores.score_json', '$.value') }})) as score_value
    from with_header
    left join sample_scores
        on with_header.record_id = sample_scores.record_id
        and with_header.scorer = sample_scores.scorer
),

scored as (
    select
        *,
        case
            when score_value in ('C', 'YES', 'TRUE') then 1.0
            when score_value in ('I', 'NO', 'FALSE', 'N') then 0.0
            when score_value = 'P' then 0.5
            -- Text a cast would read as a non-finite number stays unscored (never NaN downstream).
            when score_value in ('NAN', '-NAN', 'INF', '-INF', 'INFINITY', '-INFINITY', '+INFINITY') then null
            else try_cast(score_value as double)
        end as score
    from valued
),

final as (
    select
        scored.record_id as trial_id,
        scored.run_id,
        scored.eval_id,
        scored.task_name,
        scored.model_id,
        scored.sample_id,
        scored.epoch,
        scored.scorer,
        scored.score_value,
        scored.score,
        case
            when scored.score = 1 then true
            when scored.score = 0 then false
            when scored.score_value = 'P' then false
        end as is_correct,
        coalesce(usage.input_tokens, scored.output_input_tokens) as input_tokens,
        coalesce(usage.output_tokens, scored.output_output_tokens) as output_tokens,
        scored.latency_ms,
        scored.created_at as evaluated_at,
        scored.interaction_type,
        scored.input_text,
        scored.reference_text,
        scored.output_text,
        scored.error_message,
        scored.log_record_id,
        scored.source_path,
        scored.source_line
    from scored
    left join usage on scored.record_id = usage.record_id
)

select * from final
