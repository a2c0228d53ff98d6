-- One row per (dimension, item, rater) as agreement counts it: each rater once per item (the latest rating),
-- reviews left out, and every rating of an item in the week of the item's first rating (item_week: the
-- earliest of all its ratings, superseded ones included, so that a re-rating never moves the item to a later week).
-- The rules of fct_rater_agreement, fct_item_disagreement and fct_flagged_item_ratings, kept in one place; the
-- agreement marts count these rows into their groups (a rater group and 'all', a week and all time) themselves, on
-- counts rather than on copies of rows.
-- value is the rating as agreement compares it (macros/declared_labels.sql: agreement_value, with each scale's
-- reasons): a hazard verdict is violating or not (not_applicable counts as non_violating), and 'unsure', a rater
-- saying they cannot judge, is no value (NULL). Such a rating keeps its row, after it has superseded the rater's
-- earlier one: the row is what replaces the item's rows here and in int_agreement_units when every rater of the
-- item answered unsure; the counts downstream skip it.
-- Incremental by item: a build recomputes, from all of their ratings, the (item, dimension) pairs that received a
-- rating from a batch the table has not seen, and replaces their rows (a later rating may supersede a rater's
-- earlier one, or move nothing but add a rater). batch_id is the batch of the row's own rating; a batch whose
-- ratings were all superseded is simply looked at again by the next build, which changes nothing. counted_in
-- numbers the builds that (re)counted the item: one more than the table's highest, in incremental builds and in
-- full refreshes alike (1 when there is no table yet), so int_agreement_units, finding rows stamped higher than
-- any it has read, recounts those items: all of them after a full refresh of this table on its own.
{{ config(
    materialized='incremental',
    incremental_strategy='delete+insert',
    unique_key=['unit_id', 'dimension'],
    on_schema_change='fail',
) }}
{#- The ratings agreement counts, as a subquery where it is read rather than a CTE: DuckDB materialises a CTE read
    more than once, which copied all 3.9 million of the benchmark's ratings in every incremental build.
    int_ratings_unioned rather than int_ratings_counted: a CogniBench verdict exported again is one rating here
    anyway (the rater's latest per item: the version ranked first, or an export of the same verdict at the same
    created_at) and reviews are left out, so the view's anti-join would change nothing in this incremental select. #}
{%- set countable %}
    select * from {{ ref('int_ratings_unioned') }}
    where value is not null
        and rater_id is not null
        -- Reviews are not independent ratings: a hybrid form, or a CogniBench completed review (the judge's score
        -- unless the reviewer changed it), is made with the judge's verdict in view and derived from its record.
        -- fct_judge_overrides counts them.
        and rater_type <> 'hybrid'
        and derived_from is null
{%- endset %}
with

{% if is_incremental() %}
changed_items as (
    select distinct item_id, dimension
    from ({{ countable }}) as countable
    inner join {{ unread_batch_ids(ref('int_ratings_unioned')) }} as unread
        on countable.batch_id = unread.batch_id
),

ratings as (
    select countable.*
    from ({{ countable }}) as countable
    inner join changed_items
        on countable.item_id = changed_items.item_id
        and countable.dimension = changed_items.dimension
),
{% else %}
ratings as (
    {{ countable }}
),
{% endif %}

latest as (
    select
        *,
        row_number() over (
            partition by item_id, dimension, rater_id order by rated_at desc, rating_id desc
        ) as recency
    from ratings
),

item_weeks as (
    -- From every rating read, superseded ones included: an incremental build reads every rating of the items it
    -- recomputes, so this stays the first week when a re-rating arrives. (An aggregate joined back, as fast as
    -- the old one over the latest rows on 1.3 million ratings; a window over (item, dimension) beside the
    -- recency's took 18% longer.)
    select item_id, dimension, min(week_start) as item_week
    from ratings
    group by item_id, dimension
),

final as (
    select
        latest.dimension,
        latest.dimension_group,
        latest.scale,
        latest.agreement_level,
        latest.rater_group,
        latest.item_id as unit_id,
        latest.rater_id,
        {{ agreement_value('latest.scale', 'latest.label', 'latest.value') }} as value,
        latest.label,
        latest.score,
        latest.model_id,
        latest.task_id,
        item_weeks.item_week,
        latest.batch_id,
        {{ next_build_stamp('counted_in') }} as counted_in
    from latest
    inner join item_weeks
        on latest.item_id = item_weeks.item_id
        and latest.dimension = item_weeks.dimension
    where latest.recency = 1
)

select * from final
