-- One row per (dimension, item, rater group), plus one per (dimension, item) over all of its raters (rater_group
-- 'all'): the item's counted ratings (int_agreement_ratings) tallied per label agreement compares, n_1 .. n_5 by the
-- label's position in its scale (macros/declared_labels.sql: agreement_labels; a hazard verdict's are non_violating
-- and violating), with the item's own figures. Every agreement statistic is a sum over items of a function of these
-- tallies (coincidences, Fleiss' shares, agreeing pairs), and an item's expected-disagreement terms need only its
-- dimension's marginals, so the agreement marts sum and join this table instead of grouping millions of ratings and
-- pairing their values on every build.
-- A rating with no value (a hazard verdict 'unsure': the rater cannot judge) is in no tally and not in n_ratings; an
-- item whose every rating is such keeps its row, with n_ratings 0, so that a recount replaces what it had before.
-- Incremental by item: recounts the (item, dimension) pairs int_agreement_ratings recounted since this table last
-- read it (its counted_in is higher than any here; a full refresh there numbers on, so it restamps every item) and
-- replaces their rows. A lower highest counted_in there than here (the table dropped and built afresh) also has
-- every item recounted.
{{ config(
    materialized='incremental',
    incremental_strategy='delete+insert',
    unique_key=['unit_id', 'dimension'],
    on_schema_change='fail',
) }}
{%- set positions = declared_label_positions() %}
{#- The ratings to count, each with its label's position: read by both aggregates below as a subquery, not a CTE
    (DuckDB materialises a CTE read twice: 3.9 s instead of 2.2 s on the benchmark's ratings). #}
{%- set positioned_ratings %}
        select
            ratings.*,
            case
                {%- for scale, labels in agreement_labels().items() %}
                when ratings.scale = '{{ scale }}' then {{ stats_label_position('ratings.value', labels) }}
                {%- endfor %}
            end as label_position,
            case when ratings.value is not null then ratings.score end as counted_score
        from {{ ref('int_agreement_ratings') }} as ratings
        {%- if is_incremental() %}
        where ratings.counted_in > (
            select
                case
                    when (select max(counted_in) from {{ ref('int_agreement_ratings') }})
                        < (select max(counted_in) from {{ this }}) then 0
                    else (select coalesce(max(counted_in), 0) from {{ this }})
                end
        )
        {%- endif %}
{%- endset %}
{%- set unit_figures %}
        max(dimension_group) as dimension_group,
        max(scale) as scale,
        max(agreement_level) as agreement_level,
        min(item_week) as item_week,
        max(model_id) as model_id,
        max(task_id) as task_id,
        count(value) as n_ratings,  -- one row per rater and item in int_agreement_ratings: also the raters
        -- The scores' range only when every rating with a value has a score: a label without one (a hazard verdict
        -- 'not_applicable', which agreement counts with non_violating against violating) would otherwise drop out of
        -- a range that shows raters who disagree as agreeing (min = max, spread 0). 'unsure' is no value: not here.
        case when count(counted_score) = count(value) then min(counted_score) end as lowest_score,
        case when count(counted_score) = count(value) then max(counted_score) end as highest_score,
        case when count(counted_score) = count(value) then stddev_samp(counted_score) end as score_stddev,
        {%- for k in positions %}
        cast(sum(case when label_position = {{ k }} then 1 else 0 end) as integer) as n_{{ k }},
        {%- endfor %}
        max(counted_in) as counted_in
{%- endset %}
with

final as (
    -- Two plain aggregates, not one over grouping sets: there, DuckDB took 5 s on the benchmark's 3.9 million
    -- ratings (measured when the 'all' rows also counted their distinct rater groups).
    select
        dimension,
        unit_id,
        rater_group,
        {{- unit_figures }}
    from ({{ positioned_ratings }}
    ) as positioned
    group by dimension, unit_id, rater_group
    union all
    select
        dimension,
        unit_id,
        'all' as rater_group,
        {{- unit_figures }}
    from ({{ positioned_ratings }}
    ) as positioned
    group by dimension, unit_id
)

select * from final
