-- One row per scored attempt, from every source that has them: Every Eval Ever instance records, CogniBench
-- judge records (whose outcomes are final_answer_verified and aggregated_score), Inspect AI samples (one trial per
-- epoch) and lm-evaluation-harness samples lines (one trial per doc and filter). trial_index numbers the
-- attempts of one model on one sample of one eval (1, 2, ... in time order): the trials pass@k counts.
-- Eval names are made canonical through the seed evaluation_aliases (source_evaluation_name keeps the original).
--
-- Incremental by trial group (evaluation_name, model_id, sample_id), since one new trial can renumber its group's
-- trial_index. New instance records (record ids that are not trials yet) evaluated after their group's last
-- stored trial are added, numbered on from the group's count: the common case, new runs being newer. A group is
-- recomputed whole, from all of its sources' rows, and replaced (strategy replace_groups,
-- macros/incremental_groups.sql: a tombstone row marks each replaced group, so one left with no rows is emptied) when
--   a new instance record is evaluated no later than the group's last stored trial (an old run arriving late),
--   an instance run's link changed (a new aggregate record names it: its run_id and evaluated_at move), or
--   a trial of the other sources differs from the one stored (they are small: compared column by column; a
--   rewritten Inspect log replaces its samples' records).
-- A changed project makes `evalhouse build` rebuild it in full (the alias and label seeds are part of the project).
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
{%- if is_incremental() %}
{#- what a stored trial of the other sources is compared on: every column but the three derived in `final` #}
{%- set compared = adapter.get_columns_in_relation(this) | map(attribute='name')
    | reject('in', ['trial_index', 'week_start', 'written_in']) | list %}
{%- endif %}
{%- set link_columns = 'source_path, evaluation_id, model_id, run_id, evaluated_at, evaluated_at_source' %}
{%- set run_keys = ['source_path', 'file_sha256', 'evaluation_id', 'model_id'] %}
with

links as (
    select * from {{ ref('int_instance_files_linked') }}
),

judge_records as (
    select * from {{ ref('stg_cognibench__judge_records') }}
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

aggregate_labels as (
    select label, score_value from {{ ref('score_label_map') }} where scale = 'cognibench_aggregate'
),

judge_trials as (
    select
        judge_records.record_id as trial_id,
        'cognibench' as source_format,
        -- CogniBench writes no run id: a week of one judge prompt is treated as one run.
        'cognibench/'
        || regexp_extract(judge_records.judge_prompt_template_path, '([^/]+?)(\.[a-z]+)?$', 1)
        || '@' || cast({{ week_start('judge_records.created_at') }} as varchar) as run_id,
        cast(null as varchar) as evaluation_id,
        'cognibench/'
        || regexp_extract(judge_records.judge_prompt_template_path, '([^/]+?)(\.[a-z]+)?$', 1) as evaluation_name,
        'cognibench/'
        || regexp_extract(judge_records.judge_prompt_template_path, '([^/]+?)(\.[a-z]+)?$', 1)
            as source_evaluation_name,
        judge_records.model_id,
        judge_records.task_id as sample_id,
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
        inspect_samples.eval_id as evaluation_id,
        coalesce(aliases.evaluation_name, inspect_samples.task_name) as evaluation_name,
        inspect_samples.task_name as source_evaluation_name,
        inspect_samples.model_id,
        inspect_samples.sample_id,
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
),

lm_eval_trials as (
    select
        lm_eval_samples.trial_id,
        'lm_eval_sample' as source_format,
        lm_eval_samples.run_id,
        cast(null as varchar) as evaluation_id,
        coalesce(aliases.evaluation_name, lm_eval_samples.evaluation_name) as evaluation_name,
        lm_eval_samples.evaluation_name as source_evaluation_name,
        lm_eval_samples.model_id,
        lm_eval_samples.sample_id,
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

stored_groups as (
    -- what the table holds of the groups that receive fresh records
    select evaluation_name, model_id, sample_id, count(*) as n_trials, max(evaluated_at) as last_evaluated_at
    from {{ this }} as stored
    where exists (select 1 from fresh_instances where {{ keys_equal('fresh_instances', 'stored', group_keys) }})
    group by evaluation_name, model_id, sample_id
),

renumbered_groups as (
    -- fresh records evaluated no later than the group's last stored trial: they may sort before it
    select fresh_instances.evaluation_name, fresh_instances.model_id, fresh_instances.sample_id
    from fresh_instances
    inner join stored_groups on {{ keys_equal('fresh_instances', 'stored_groups', group_keys) }}
    where not coalesce(fresh_instances.evaluated_at > stored_groups.last_evaluated_at, false)

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

appended_groups as (
    -- groups whose fresh records all come after every stored trial: numbered on from the stored count
    select stored_groups.evaluation_name, stored_groups.model_id, stored_groups.sample_id, stored_groups.n_trials
    from stored_groups
    where not exists (
        select 1 from renumbered_groups where {{ keys_equal('renumbered_groups', 'stored_groups', group_keys) }}
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
        instances.evaluation_id,
        -- One name per eval: producers name the same eval differently (the seed evaluation_aliases says how).
        coalesce(aliases.evaluation_name, instances.evaluation_name) as evaluation_name,
        instances.evaluation_name as source_evaluation_name,
        instances.model_id,
        instances.sample_id,
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
            partition by unioned.evaluation_name, unioned.model_id, unioned.sample_id
            -- trial_id last: two loads of one path (a file changed and loaded again) can share every other key
            order by unioned.evaluated_at, unioned.run_id, unioned.trial_number, unioned.source_path,
                unioned.source_line, unioned.trial_id
        ) {% if is_incremental() %}+ coalesce(appended_groups.n_trials, 0){% endif %} as trial_index,
        {{ week_start('unioned.evaluated_at') }} as week_start,
        {{ next_build_stamp('written_in') }} as written_in
    from unioned
    {% if is_incremental() %}
    left join appended_groups on {{ keys_equal('unioned', 'appended_groups', group_keys) }}
    {% endif %}
)

select * from final
{% if is_incremental() %}
union all
{{ group_tombstones(this, group_keys, 'renumbered_groups') }}
{% endif %}
