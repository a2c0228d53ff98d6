-- One row per (judge rating, human rating) of the same item on the same dimension: what judge-vs-human
-- calibration and drift (same_item) and the judge's override rate (derived_from) are measured on. Two rules:
--   same_item     an independent person: an eval form by a person (rater type human or sme, derived from no
--                 record) and an LLM judge's form on the same item (task, model, version, response): every such
--                 person pairs with every such judge;
--   derived_from  a review of the judge's verdict, made with that verdict in front of the reviewer, pairs with
--                 that judge record only: a hybrid eval form with derived_from = the judge form's eval_id, and a
--                 CogniBench record's completed human review with the judge's own scores in the same record.
-- The two never pool: a review agrees with the judge far more often than an independent person does (in the
-- demo, 0.90 against 0.51 exact agreement for one judge), and reviews arrive after the judge's week, so pooling
-- them made a week's agreement depend on how many reviews were in yet. fct_judge_drift reads same_item pairs only;
-- fct_judge_overrides reads derived_from pairs.
-- The pair's week is the judge's: drift asks how the judge behaved when it rated.
-- Every version of a CogniBench record pairs (int_ratings_unioned, not int_ratings_counted, whose rows a later
-- version takes out: an appended table cannot follow); fct_judge_overrides keeps the reviews that count. Only
-- derived_from pairs hold CogniBench ratings: its person's ratings are all reviews.
-- Ratings never change once loaded, so neither does a pair: the table is appended to, a build adding the pairs
-- with at least one rating from a batch no pair has come from yet (pairs whose ratings both come from seen batches
-- were added when the later of the two arrived).
{{ config(materialized='incremental', incremental_strategy='append', on_schema_change='fail') }}
{#- Each side of a join is a subquery on int_ratings_unioned, not a CTE: DuckDB materialises a CTE read more than
    once, and copying the 3.9 million ratings took 1.5 s of the benchmark's incremental build before any join. #}
{%- set judge %}select * from {{ ref('int_ratings_unioned') }} where rater_type = 'llm_judge'{% endset %}
{%- set people %}select * from {{ ref('int_ratings_unioned') }} where rater_type in ('human', 'sme', 'hybrid'){% endset %}
{%- if is_incremental() %}
{%- set unseen = " and batch_id in (select batch_id from unseen_batches)" %}
{%- set sides = [(judge ~ unseen, people), (judge, people ~ unseen)] %}
{%- else %}
{%- set sides = [(judge, people)] %}
{%- endif %}
with

{% if is_incremental() %}
unseen_batches as (
    -- Batches no pair has come from yet (a semi-join on them lets DuckDB skip the other ratings' rows), each side
    -- distinct first, as in unread_batches.
    select distinct batch_id from {{ ref('int_ratings_unioned') }}
    except
    select distinct judge_batch_id from {{ this }}
    except
    select distinct human_batch_id from {{ this }}
),
{% endif %}

{#- The pair's columns, taken from the two ratings as they are joined (not joined back onto the pairs later, which
    read every rating again). #}
{%- set pair_columns %}
        judge.source_format,
        judge.item_id,
        judge.model_id,
        judge.dimension,
        judge.dimension_group,
        judge.scale,
        judge.agreement_level,
        judge.rater_id as judge_id,
        judge.judge_model,
        judge.rater_version as judge_version,
        judge.rating_id as judge_rating_id,
        judge.record_id as judge_record_id,
        judge.label as judge_label,
        judge.score as judge_score,
        judge.value as judge_value,
        people.rating_id as human_rating_id,
        people.record_id as human_record_id,
        people.rater_id as human_rater_id,
        people.rater_type as human_rater_type,
        people.label as human_label,
        people.score as human_score,
        people.value as human_value,
        judge.score - people.score as score_difference,
        judge.rated_at as judge_rated_at,
        people.rated_at as human_rated_at,
        judge.week_start,
        judge.batch_id as judge_batch_id,
        people.batch_id as human_batch_id
{%- endset %}

same_item as (
    {%- for judge_side, people_side in sides %}
    select
        judge.rating_id || '~' || people.rating_id as pair_id,
        'same_item' as pairing,
        {{- pair_columns }}
    from ({{ judge_side }}) as judge
    inner join ({{ people_side }}) as people
        on judge.item_id = people.item_id
        and judge.dimension = people.dimension
        and judge.source_format = people.source_format
    where people.rater_type in ('human', 'sme')
        and people.derived_from is null
    {% if not loop.last %}union{% endif %}
    {%- endfor %}
),

derived as (
    {%- for judge_side, people_side in sides %}
    select
        judge.rating_id || '~' || people.rating_id as pair_id,
        'derived_from' as pairing,
        {{- pair_columns }}
    from ({{ judge_side }}) as judge
    inner join ({{ people_side }}) as people
        on people.derived_from = judge.record_id
        and judge.dimension = people.dimension
        and judge.source_format = people.source_format
    {% if not loop.last %}union{% endif %}
    {%- endfor %}
),

pairs as (
    select * from same_item
    union all
    select * from derived
)

select * from pairs
