-- One row per result an aggregate record reports (an eval run's score on one metric), with its published
-- uncertainty: Every Eval Ever aggregates, Inspect AI log headers and lm-evaluation-harness results files. When the
-- aggregate is linked to instance files, evaluation_name is the instances' name, so reported and computed results
-- of the same eval line up; the aggregate's own name is kept beside it. Names go through the seeds
-- evaluation_aliases and metric_vocabulary, as trials' names do; a harness's result is named as its trials are.
-- trial_metric is the metric the result's trials carry (int_trials_unioned.trial_metric), so that the result and
-- the results computed from its trials share it:
--   Every Eval Ever  the metric every instance record linked to the aggregate names itself (metadata.metric_id, else
--                    metadata.rubric_id, through the vocabulary: a suite metric's 'groundedness', a rubric's
--                    'exact_match') when all of them name one and the same; else the aggregate's own metric (records
--                    that name none carry it, and an accuracy over responses scored on several rubrics spans them)
--   Inspect AI       the scorer;  lm-evaluation-harness  the reported metric itself.
-- min_score and max_score bound the metric: as its metric_config declares them, else as the vocabulary does (rates
-- are [0, 1]). evaluated_at is the result's or its record's evaluation_timestamp (a harness's run time), else, for an
-- aggregate that has none (HELM's leaderboard exports), when it was retrieved, else when it was ingested: a result
-- with no time would fall out of every date filter. evaluated_at_source says which.
-- n_samples is the samples (questions) the score is over, the n its interval is built on: an Every Eval Ever result's
-- source_data.sample_ids ("sample ids used for evaluation"), counted once each, else its
-- score_details.uncertainty.num_samples ("samples used to compute the uncertainty estimates"; 0, which the Inspect
-- converter writes when it read no samples, is no count), else NULL. Never source_data.samples_number: that is
-- "the number of samples in the dataset" (ai2_arc's 2376 for a score over 3), kept as dataset_n_samples, as are an
-- Inspect log's eval.dataset.samples and an lm-eval task's n-samples original.
-- ci_level is the confidence level the published interval states (confidence_interval.confidence_level: 0.9 for a
-- 90% interval), NULL when it states none: fct_benchmark_results shows the published interval as its 95% one only
-- when it says 0.95 or nothing.
{%- set run_keys = ['source_path', 'file_sha256', 'evaluation_id', 'model_id'] %}
with

aggregates as (
    select * from {{ ref('stg_every_eval_ever__aggregates') }}
),

links as (
    select aggregate_record_id, min(evaluation_name) as instance_evaluation_name
    from (
        select links.aggregate_record_id, instances.evaluation_name
        from {{ ref('int_instance_files_linked') }} as links
        inner join {{ ref('stg_every_eval_ever__instances') }} as instances
            on links.source_path = instances.source_path
            and links.evaluation_id = instances.evaluation_id
        where links.aggregate_record_id is not null
        group by links.aggregate_record_id, instances.evaluation_name
    ) as linked_names
    group by aggregate_record_id
    -- An aggregate whose instances carry several eval names keeps its own names (no guessing).
    having count(*) = 1
),

results as (
    select
        aggregates.record_id as aggregate_record_id,
        aggregates.evaluation_id as run_id,
        aggregates.model_id,
        aggregates.model_developer,
        aggregates.evaluated_at as run_evaluated_at,
        aggregates.retrieved_at,
        aggregates.ingested_at,
        aggregates.source_path,
        aggregates.source_line,
        result_index,
        result_element
    from aggregates
    {{ json_array_elements('aggregates.evaluation_results_json', 'result') }}
),

typed as (
    select
        aggregate_record_id,
        run_id,
        model_id,
        model_developer,
        result_index,
        {{ json_text('result_element', '$.evaluation_result_id') }} as evaluation_result_id,
        {{ json_text('result_element', '$.evaluation_name') }} as reported_evaluation_name,
        coalesce(
            {{ json_text('result_element', '$.metric_config.metric_name') }},
            {{ json_text('result_element', '$.metric_config.metric_id') }},
            {{ json_text('result_element', '$.metric_config.evaluation_description') }},
            'score'
        ) as metric_name,
        cast({{ json_text('result_element', '$.metric_config.lower_is_better') }} as boolean) as lower_is_better,
        cast({{ json_text('result_element', '$.metric_config.min_score') }} as double) as min_score,
        cast({{ json_text('result_element', '$.metric_config.max_score') }} as double) as max_score,
        cast({{ json_text('result_element', '$.score_details.score') }} as double) as score,
        cast({{ json_text('result_element', '$.score_details.uncertainty.standard_error.value') }} as double)
            as standard_error,
        cast(coalesce(
            {{ json_text('result_element', '$.score_details.uncertainty.confidence_interval.lower') }},
            {{ json_text('result_element', '$.score_details.confidence_interval.lower') }}
        ) as double) as ci_low,
        cast(coalesce(
            {{ json_text('result_element', '$.score_details.uncertainty.confidence_interval.upper') }},
            {{ json_text('result_element', '$.score_details.confidence_interval.upper') }}
        ) as double) as ci_high,
        cast(coalesce(
            {{ json_text('result_element', '$.score_details.uncertainty.confidence_interval.confidence_level') }},
            {{ json_text('result_element', '$.score_details.confidence_interval.confidence_level') }}
        ) as double) as ci_level,
        nullif(
            cast({{ json_text('result_element', '$.score_details.uncertainty.num_samples') }} as bigint), 0
        ) as stated_n_samples,
        cast({{ json_text('result_element', '$.source_data.samples_number') }} as bigint) as dataset_n_samples,
        -- an array only: anything else (a repaired record's stray value) lists no ids
        case
            when left(ltrim({{ json_fragment('result_element', '$.source_data.sample_ids') }}), 1) = '['
                then {{ json_fragment('result_element', '$.source_data.sample_ids') }}
        end as sample_ids_json,
        coalesce(
            {{ epoch_to_utc(json_text('result_element', '$.evaluation_timestamp')) }},
            run_evaluated_at,
            retrieved_at,
            ingested_at
        ) as evaluated_at,
        case
            when {{ epoch_to_utc(json_text('result_element', '$.evaluation_timestamp')) }} is not null
                or run_evaluated_at is not null
                then 'record'
            when retrieved_at is not null then 'retrieved_at'
            else 'ingested_at'
        end as evaluated_at_source,
        source_path,
        source_line
    from results
),

listed_samples as (
    -- the distinct sample ids a result lists; an empty list gives no row (no count, not a count of 0)
    select
        aggregate_record_id,
        result_index,
        count(distinct sample_id_element) as n_listed_samples
    from typed
    {{ json_array_elements('typed.sample_ids_json', 'sample_id') }}
    group by aggregate_record_id, result_index
),

aliases as (
    select * from {{ ref('evaluation_aliases') }}
),

vocabulary as (
    select * from {{ ref('metric_vocabulary') }}
),

instance_metrics as (
    -- the one metric all instance records linked to an aggregate name themselves, read as int_trials_unioned reads it
    select
        links.aggregate_record_id,
        min(coalesce(
            vocabulary.metric_name, lower(trim({{ instance_named_metric('instances') }}))
        )) as trial_metric
    from {{ ref('int_instance_files_linked') }} as links
    inner join {{ ref('stg_every_eval_ever__instances') }} as instances
        on {{ keys_equal('links', 'instances', run_keys) }}
    left join vocabulary on lower(trim({{ instance_named_metric('instances') }})) = vocabulary.alias
    where links.aggregate_record_id is not null
    group by links.aggregate_record_id
    having count({{ instance_named_metric('instances') }}) = count(*)
        and count(distinct coalesce(
            vocabulary.metric_name, lower(trim({{ instance_named_metric('instances') }}))
        )) = 1
),

aggregate_results as (
    select
        typed.aggregate_record_id,
        typed.run_id,
        typed.model_id,
        typed.model_developer,
        typed.result_index,
        typed.evaluation_result_id,
        typed.reported_evaluation_name,
        coalesce(
            aliases.evaluation_name,
            links.instance_evaluation_name,
            typed.reported_evaluation_name
        ) as evaluation_name,
        coalesce(vocabulary.metric_name, lower(trim(typed.metric_name))) as metric_name,
        typed.metric_name as reported_metric_name,
        coalesce(
            instance_metrics.trial_metric, vocabulary.metric_name, lower(trim(typed.metric_name))
        ) as trial_metric,
        coalesce(typed.lower_is_better, vocabulary.lower_is_better, false) as lower_is_better,
        coalesce(typed.min_score, vocabulary.min_score) as min_score,
        coalesce(typed.max_score, vocabulary.max_score) as max_score,
        typed.score,
        typed.standard_error,
        typed.ci_low,
        typed.ci_high,
        typed.ci_level,
        coalesce(listed_samples.n_listed_samples, typed.stated_n_samples) as n_samples,
        typed.dataset_n_samples,
        typed.evaluated_at,
        typed.evaluated_at_source,
        typed.source_path,
        typed.source_line
    from typed
    left join listed_samples
        on typed.aggregate_record_id = listed_samples.aggregate_record_id
        and typed.result_index = listed_samples.result_index
    left join links on typed.aggregate_record_id = links.aggregate_record_id
    left join instance_metrics on typed.aggregate_record_id = instance_metrics.aggregate_record_id
    left join aliases on coalesce(links.instance_evaluation_name, typed.reported_evaluation_name) = aliases.alias
    left join vocabulary on lower(trim(typed.metric_name)) = vocabulary.alias
),

harness_results as (
    select * from {{ ref('int_inspect_results_unnested') }}
    union all
    select * from {{ ref('int_lm_eval_results_unnested') }}
),

harness_named as (
    select
        harness_results.*,
        coalesce(aliases.evaluation_name, harness_results.reported_evaluation_name) as evaluation_name,
        coalesce(vocabulary.metric_name, lower(trim(harness_results.metric_name))) as canonical_metric_name,
        vocabulary.lower_is_better as vocabulary_lower_is_better,
        vocabulary.min_score as vocabulary_min_score,
        vocabulary.max_score as vocabulary_max_score,
        coalesce(
            trial_vocabulary.metric_name, lower(trim(harness_results.trial_metric))
        ) as canonical_trial_metric
    from harness_results
    left join aliases on harness_results.reported_evaluation_name = aliases.alias
    left join vocabulary on lower(trim(harness_results.metric_name)) = vocabulary.alias
    left join vocabulary as trial_vocabulary on lower(trim(harness_results.trial_metric)) = trial_vocabulary.alias
),

harness_ranked as (
    select
        *,
        -- Two reported names for one vocabulary metric (Inspect's accuracy and mean, say): the first keeps it.
        row_number() over (
            partition by aggregate_record_id, evaluation_name, canonical_metric_name order by result_index
        ) as name_rank
    from harness_named
),

harness_final as (
    select
        aggregate_record_id,
        run_id,
        model_id,
        cast(null as varchar) as model_developer,
        result_index,
        cast(null as varchar) as evaluation_result_id,
        reported_evaluation_name,
        evaluation_name,
        case when name_rank = 1 then canonical_metric_name else lower(trim(metric_name)) end as metric_name,
        metric_name as reported_metric_name,
        canonical_trial_metric as trial_metric,
        coalesce(lower_is_better, vocabulary_lower_is_better, false) as lower_is_better,
        vocabulary_min_score as min_score,
        vocabulary_max_score as max_score,
        score,
        standard_error,
        cast(null as double) as ci_low,
        cast(null as double) as ci_high,
        cast(null as double) as ci_level,
        n_samples,
        dataset_n_samples,
        evaluated_at,
        case when evaluated_at is not null then 'record' end as evaluated_at_source,
        source_path,
        source_line
    from harness_ranked
),

unioned as (
    select * from aggregate_results
    union all
    select * from harness_final
),

-- What the schemas accept but no result can mean is set aside (NULL), never let through to fail the build of every
-- result: a negative standard error or sample count, an interval whose ends are the wrong way round or that leaves
-- out the score it is of. unusable_values names what was set aside; the test reported_values_are_usable warns.
{%- set interval_usable = 'ci_low <= ci_high and ci_low <= score + 1e-12 and score <= ci_high + 1e-12' %}
final as (
    select
        aggregate_record_id,
        run_id,
        model_id,
        model_developer,
        result_index,
        evaluation_result_id,
        reported_evaluation_name,
        evaluation_name,
        metric_name,
        reported_metric_name,
        trial_metric,
        lower_is_better,
        min_score,
        max_score,
        score,
        case when standard_error >= 0 then standard_error end as standard_error,
        case when {{ interval_usable }} then ci_low end as ci_low,
        case when {{ interval_usable }} then ci_high end as ci_high,
        case when {{ interval_usable }} then ci_level end as ci_level,
        case when n_samples >= 0 then n_samples end as n_samples,
        case when dataset_n_samples >= 0 then dataset_n_samples end as dataset_n_samples,
        evaluated_at,
        evaluated_at_source,
        source_path,
        source_line,
        nullif(
            trim(
                case when standard_error < 0 then 'standard_error ' else '' end
                || case when (ci_low is not null or ci_high is not null) and not coalesce({{ interval_usable }}, false)
                    then 'confidence_interval ' else '' end
                || case when n_samples < 0 then 'n_samples ' else '' end
                || case when dataset_n_samples < 0 then 'dataset_n_samples' else '' end
            ),
            ''
        ) as unusable_values
    from unioned
)

select * from final
