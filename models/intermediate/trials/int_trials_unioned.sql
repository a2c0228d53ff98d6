-- One row per scored attempt on one metric, from every source that has them: Every Eval Ever instance records,
-- CogniBench judge records (whose outcomes are final_answer_verified and aggregated_score), Inspect AI samples (one
-- trial per epoch) and lm-evaluation-harness samples lines (one trial per doc and filter). trial_index numbers the
-- attempts of one model on one sample of one eval scored on one metric (1, 2, ... in time order): the trials pass@k
-- counts. A response scored on three rubrics is three rows with the same trial_index, never three attempts.
-- trial_metric names the metric, through the seed metric_vocabulary:
--   Every Eval Ever  metadata.metric_id (an ADP suite metric), else metadata.rubric_id (a draft-standard rubric),
--                    else the metric of the linked aggregate's result the record names (evaluation_result_id: the
--                    format's rule is one instance record per aggregate result), else the linked aggregate's metric
--                    when all its results name one (records older than evaluation_result_id), else, in a run whose
--                    records name several results and no aggregate says which metrics they are, the record's
--                    evaluation_result_id (its metrics kept apart, if not matched across runs), else 'score';
--   CogniBench       judge_verdict; Inspect AI the primary scorer; lm-evaluation-harness the primary metric.
-- A CogniBench response is one trial per judge, from the version of its record that counts (int_judge_records_ranked:
-- a completed review exports the record again); a later version replaces its group's trials, as a changed trial of
-- the other sources does.
-- Eval names are made canonical through the seed evaluation_aliases (source_evaluation_name keeps the original).
--
-- Incremental by trial group (evaluation_name, model_id, sample_id), all of its metrics together: one new trial can
-- renumber its metric's trial_index, and a late aggregate can rename a trial's metric without moving it out of the
-- group. New instance records (record ids that are not trials yet) evaluated after their group's last stored trial
-- are added, numbered on from their metric's count: the common case, new runs being newer. A group is
-- recomputed whole, from all of its sources' rows, and replaced (strategy replace_groups,
-- macros/incremental_groups.sql: a tombstone row marks each replaced group, so one left with no rows is emptied) when
--   a new instance record is evaluated no later than its group's last stored trial (an old run arriving late),
--   an instance run's link changed (a new aggregate record names it: its run_id, evaluated_at and the aggregate
--   that names its metrics move), or
--   a trial of the other sources differs from the one stored (they are small: compared column by column; a
--   rewritten Inspect log replaces its samples' records).
-- A changed project makes `evalhouse build` rebuild it in full (the alias, label and vocabulary seeds are part of
-- the project).
-- written_in numbers the builds that wrote the row (next_build_stamp: one more than the table's highest, a full
-- refresh numbering on): the grain tests check the rows written since the last build that passed.
{{ config(
    materialized='incremental',
    incremental_strategy='replace_groups',
    unique_key=['evaluation_name', 'model_id', 'sample_id'],
    row_key='trial_id',
    on_schema_change='fail',
) }}
{%- set group_keys = ['evaluation_name', 'model_id', 'sample_id'] %}
{#- the trials trial_index numbers: a trial group's attempts scored on one metric #}
{%- set partition_keys = group_keys + ['trial_metric'] %}
{%- if is_incremental() %}
{#- what a stored trial of the other sources is compared on: every column but the three derived in `final` #}
{%- set compared = adapter.get_columns_in_relation(this) | map(attribute='name')
    | reject('in', ['trial_index', 'week_start', 'written_in']) | list %}
{%- endif %}
{%- set link_columns = 'source_path, evaluation_id, model_id, aggregate_record_id, run_id, evaluated_at, '
    ~ 'evaluated_at_source' %}
{%- set run_keys = ['source_path', 'file_sha256', 'evaluation_id', 'model_id'] %}
{#- the metric an instance record names, before the vocabulary (the header says in which order) #}
{%- set written_metric -%}
coalesce(
            {{ instance_named_metric('instances') }},
            result_metrics.trial_metric,
            aggregate_metrics.trial_metric,
            case when links.n_evaluation_results > 1 then instances.evaluation_result_id end
        )
{%- endset %}
with

links as (
    select * from {{ ref('int_instance_files_linked') }}
),

judge_records as (
    -- one trial per judged response and judge: the version of it that counts (a completion exports the verdict
    -- again; int_judge_records_ranked says which record counts and why)
    select judge_records.*
    from {{ ref('stg_cognibench__judge_records') }} as judge_records
    inner join {{ ref('int_judge_records_ranked') }} as versions
        on judge_records.record_id = versions.record_id
    where versions.version_rank = 1
),

inspect_samples as (
    select * from {{ ref('int_inspect_trials_joined') }}
),

lm_eval_samples as (
    select * from {{ ref('int_lm_eval_trials_joined') }}
),

aliases as (
    select * from {{ ref('evaluation_aliases') }}
),

vocabulary as (
    select * from {{ ref('metric_vocabulary') }}
),

aggregate_labels as (
    select label, score_value from {{ ref('score_label_map') }} where scale = 'cognibench_aggregate'
),

aggregate_results as (
    select * from {{ ref('int_benchmark_results_unnested') }}
),

result_metrics as (
    -- each aggregate result's metric, by the evaluation_result_id instance records name it with
    select aggregate_record_id, evaluation_result_id, min(trial_metric) as trial_metric
    from aggregate_results
    where evaluation_result_id is not null
    group by aggregate_record_id, evaluation_result_id
    having count(distinct trial_metric) = 1
),

aggregate_metrics as (
    -- the metric of an aggregate whose results all name one
    select aggregate_record_id, min(trial_metric) as trial_metric
    from aggregate_results
    group by aggregate_record_id
    having count(distinct trial_metric) = 1
),

judge_trials as (
    select
        judge_records.record_id as trial_id,
        'cognibench' as source_format,
        -- CogniBench writes no run id: a week of one judge prompt is treated as one run.
        'cognibench/'
        || regexp_extract(judge_records.judge_prompt_template_path, '([^/]+?)(\.[a-z]+)?$', 1)
        || '@' || cast({{ week_start('judge_records.created_at') }} as varchar) as run_id,
        cast(null as varchar) as aggregate_record_id,
        cast(null as varchar) as evaluation_id,
        'cognibench/'
        || regexp_extract(judge_records.judge_prompt_template_path, '([^/]+?)(\.[a-z]+)?$', 1) as evaluation_name,
        'cognibench/'
        || regexp_extract(judge_records.judge_prompt_template_path, '([^/]+?)(\.[a-z]+)?$', 1)
            as source_evaluation_name,
        judge_records.model_id,
        judge_records.task_id as sample_id,
        -- One judgement per record: its verdict (is_correct) and its grade (score) read the same metric.
        'judge_verdict' as trial_metric,
        cast(null as integer) as trial_number,
        aggregate_labels.score_value as score,
        judge_records.final_answer_verified as is_correct,
        cast(null as bigint) as input_tokens,
        cast(null as bigint) as output_tokens,
        cast(null as double) as latency_ms,
        judge_records.created_at as evaluated_at,
        'record' as evaluated_at_source,
        'single_turn' as interaction_type,
        cast(null as varchar) as input_text,
        cast(null as varchar) as reference_text,
        cast(null as varchar) as output_text,
        cast(null as varchar) as metadata_suite_id,
        cast(null as varchar) as metadata_metric_id,
        cast(null as varchar) as metadata_rubric_id,
        judge_records.source_path,
        judge_records.source_line
    from judge_records
    left join aggregate_labels on lower(judge_records.aggregated_score) = aggregate_labels.label
),

inspect_trials as (
    select
        inspect_samples.trial_id,
        'inspect_sample' as source_format,
        inspect_samples.run_id,
        cast(null as varchar) as aggregate_record_id,
        inspect_samples.eval_id as evaluation_id,
        coalesce(aliases.evaluation_name, inspect_samples.task_name) as evaluation_name,
        inspect_samples.task_name as source_evaluation_name,
        inspect_samples.model_id,
        inspect_samples.sample_id,
        coalesce(vocabulary.metric_name, lower(trim(inspect_samples.scorer)), 'score') as trial_metric,
        inspect_samples.epoch as trial_number,
        inspect_samples.score,
        inspect_samples.is_correct,
        inspect_samples.input_tokens,
        inspect_samples.output_tokens,
        inspect_samples.latency_ms,
        inspect_samples.evaluated_at,
        'record' as evaluated_at_source,
        inspect_samples.interaction_type,
        inspect_samples.input_text,
        inspect_samples.reference_text,
        inspect_samples.output_text,
        cast(null as varchar) as metadata_suite_id,
        cast(null as varchar) as metadata_metric_id,
        cast(null as varchar) as metadata_rubric_id,
        inspect_samples.source_path,
        inspect_samples.source_line
    from inspect_samples
    left join aliases on inspect_samples.task_name = aliases.alias
    left join vocabulary on lower(trim(inspect_samples.scorer)) = vocabulary.alias
),

lm_eval_trials as (
    select
        lm_eval_samples.trial_id,
        'lm_eval_sample' as source_format,
        lm_eval_samples.run_id,
        cast(null as varchar) as aggregate_record_id,
        cast(null as varchar) as evaluation_id,
        coalesce(aliases.evaluation_name, lm_eval_samples.evaluation_name) as evaluation_name,
        lm_eval_samples.evaluation_name as source_evaluation_name,
        lm_eval_samples.model_id,
        lm_eval_samples.sample_id,
        coalesce(vocabulary.metric_name, lower(trim(lm_eval_samples.primary_metric)), 'score') as trial_metric,
        -- One line per doc and filter: lm-eval numbers no attempts (repeats are collapsed by the filter).
        cast(null as integer) as trial_number,
        lm_eval_samples.score,
        lm_eval_samples.is_correct,
        cast(null as bigint) as input_tokens,
        cast(null as bigint) as output_tokens,
        cast(null as double) as latency_ms,
        lm_eval_samples.evaluated_at,
        lm_eval_samples.evaluated_at_source,
        'single_turn' as interaction_type,
        lm_eval_samples.input_text,
        lm_eval_samples.reference_text,
        lm_eval_samples.output_text,
        cast(null as varchar) as metadata_suite_id,
        cast(null as varchar) as metadata_metric_id,
        cast(null as varchar) as metadata_rubric_id,
        lm_eval_samples.source_path,
        lm_eval_samples.source_line
    from lm_eval_samples
    left join aliases on lm_eval_samples.evaluation_name = aliases.alias
    left join vocabulary on lower(trim(lm_eval_samples.primary_metric)) = vocabulary.alias
),

other_trials as (
    select * from judge_trials
    union all
    select * from inspect_trials
    union all
    select * from lm_eval_trials
),

{% if is_incremental() %}
fresh_instances as (
    -- instance records that are not trials yet: their group, and when their run was evaluated
    select
        fresh.record_id,
        coalesce(aliases.evaluation_name, fresh.evaluation_name) as evaluation_name,
        fresh.model_id,
        fresh.sample_id,
        links.evaluated_at
    from {{ ref('stg_every_eval_ever__instances') }} as fresh
    left join aliases on fresh.evaluation_name = aliases.alias
    left join links on {{ keys_equal('fresh', 'links', run_keys) }}
    where fresh.record_id in (
        select record_id from {{ ref('stg_every_eval_ever__instances') }}
        except
        select trial_id from {{ this }} where source_format = 'eee_instance'
    )
),

stored_partitions as (
    -- what the table holds of each metric of the groups that receive fresh records
    select
        evaluation_name,
        model_id,
        sample_id,
        trial_metric,
        count(*) as n_trials,
        max(evaluated_at) as last_evaluated_at
    from {{ this }} as stored
    where exists (select 1 from fresh_instances where {{ keys_equal('fresh_instances', 'stored', group_keys) }})
    group by evaluation_name, model_id, sample_id, trial_metric
),

renumbered_groups as (
    -- fresh records evaluated no later than some stored trial of their group: they may sort before it
    select fresh_instances.evaluation_name, fresh_instances.model_id, fresh_instances.sample_id
    from fresh_instances
    inner join stored_partitions on {{ keys_equal('fresh_instances', 'stored_partitions', group_keys) }}
    where not coalesce(fresh_instances.evaluated_at > stored_partitions.last_evaluated_at, false)

    union

    -- instance runs linked otherwise than when their trials were stored
    select stored.evaluation_name, stored.model_id, stored.sample_id
    from {{ this }} as stored
    inner join (
        (select distinct {{ link_columns }} from links
         except
         select distinct {{ link_columns }} from {{ this }} where source_format = 'eee_instance')
        union
        (select distinct {{ link_columns }} from {{ this }} where source_format = 'eee_instance'
         except
         select distinct {{ link_columns }} from links)
    ) as relinked
        on stored.source_path = relinked.source_path
        and stored.evaluation_id is not distinct from relinked.evaluation_id
        and stored.model_id is not distinct from relinked.model_id
    where stored.source_format = 'eee_instance'

    union

    -- trials of the other sources that are new, gone or changed
    select evaluation_name, model_id, sample_id
    from (
        (select {{ compared | join(', ') }} from other_trials
         except
         select {{ compared | join(', ') }} from {{ this }} where source_format <> 'eee_instance')
        union all
        (select {{ compared | join(', ') }} from {{ this }} where source_format <> 'eee_instance'
         except
         select {{ compared | join(', ') }} from other_trials)
    ) as differing
),

appended_partitions as (
    -- each metric of the groups whose fresh records all come after every stored trial: numbered on from the
    -- metric's stored count (a metric new to the group starts at 1)
    select
        stored_partitions.evaluation_name,
        stored_partitions.model_id,
        stored_partitions.sample_id,
        stored_partitions.trial_metric,
        stored_partitions.n_trials
    from stored_partitions
    where not exists (
        select 1 from renumbered_groups where {{ keys_equal('renumbered_groups', 'stored_partitions', group_keys) }}
    )
),

{% endif %}
instances as (
    select * from {{ ref('stg_every_eval_ever__instances') }}
    {% if is_incremental() %}
    -- the fresh records, and every record of a renumbered group, found on the key columns before any text is read
    where record_id in (
        select record_id from fresh_instances
        union
        select keyed.record_id
        from {{ ref('stg_every_eval_ever__instances') }} as keyed
        left join aliases on keyed.evaluation_name = aliases.alias
        inner join renumbered_groups
            on coalesce(aliases.evaluation_name, keyed.evaluation_name) = renumbered_groups.evaluation_name
            and keyed.model_id = renumbered_groups.model_id
            and keyed.sample_id = renumbered_groups.sample_id
    )
    {% endif %}
),

instance_trials as (
    select
        instances.record_id as trial_id,
        'eee_instance' as source_format,
        links.run_id,
        links.aggregate_record_id,
        instances.evaluation_id,
        -- One name per eval: producers name the same eval differently (the seed evaluation_aliases says how).
        coalesce(aliases.evaluation_name, instances.evaluation_name) as evaluation_name,
        instances.evaluation_name as source_evaluation_name,
        instances.model_id,
        instances.sample_id,
        coalesce(vocabulary.metric_name, lower(trim({{ written_metric }})), 'score') as trial_metric,
        instances.trial_number,
        instances.score,
        instances.is_correct,
        instances.input_tokens,
        instances.output_tokens,
        instances.latency_ms,
        links.evaluated_at,
        links.evaluated_at_source,
        instances.interaction_type,
        instances.input_raw as input_text,
        instances.input_reference as reference_text,
        instances.output_text,
        instances.metadata_suite_id,
        instances.metadata_metric_id,
        instances.metadata_rubric_id,
        instances.source_path,
        instances.source_line
    from instances
    left join links on {{ keys_equal('instances', 'links', run_keys) }}
    left join aliases on instances.evaluation_name = aliases.alias
    left join result_metrics
        on links.aggregate_record_id = result_metrics.aggregate_record_id
        and instances.evaluation_result_id = result_metrics.evaluation_result_id
    left join aggregate_metrics on links.aggregate_record_id = aggregate_metrics.aggregate_record_id
    left join vocabulary on lower(trim({{ written_metric }})) = vocabulary.alias
),

unioned as (
    select * from instance_trials
    union all
    select * from other_trials
    {% if is_incremental() %}
    where exists (
        select 1 from renumbered_groups where {{ keys_equal('renumbered_groups', 'other_trials', group_keys) }}
    )
    {% endif %}
),

final as (
    select
        unioned.*,
        row_number() over (
            partition by unioned.evaluation_name, unioned.model_id, unioned.sample_id, unioned.trial_metric
            -- trial_id last: two loads of one path (a file changed and loaded again) can share every other key
            order by unioned.evaluated_at, unioned.run_id, unioned.trial_number, unioned.source_path,
                unioned.source_line, unioned.trial_id
        ) {% if is_incremental() %}+ coalesce(appended_partitions.n_trials, 0){% endif %} as trial_index,
        {{ week_start('unioned.evaluated_at') }} as week_start,
        {{ next_build_stamp('written_in') }} as written_in
    from unioned
    {% if is_incremental() %}
    left join appended_partitions on {{ keys_equal('unioned', 'appended_partitions', partition_keys) }}
    {% endif %}
)

select * from final
{% if is_incremental() %}
union all
{{ group_tombstones(this, group_keys, 'renumbered_groups') }}
{% endif %}
