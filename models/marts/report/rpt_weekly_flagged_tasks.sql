-- One row per task and week with items newly flagged for rubric clarification (fct_item_disagreement: an item's
-- agreement among people below the seed's flag_below, in the week of the item's first rating), with the task's prompt
-- and the response of its least-agreed item as examples. Rubric clarification is a question about the task and the
-- dimension, so the report lists tasks rather than every flagged (item, dimension).
with

item_disagreement as (
    select * from {{ ref('fct_item_disagreement') }}
),

eval_forms as (
    select * from {{ ref('stg_aif__eval_forms') }}
),

flagged as (
    -- Every eval form and CogniBench record names its task: an item without one cannot be listed by task.
    select * from item_disagreement
    where is_flagged
        and task_id is not null
),

task_items as (
    select
        task_id,
        week_start,
        count(distinct item_id) as n_items_compared
    from item_disagreement
    group by task_id, week_start
),

flagged_dimensions as (
    select distinct task_id, week_start, dimension from flagged
),

flagged_models as (
    select distinct task_id, week_start, model_id from flagged
),

dimension_lists as (
    select
        task_id,
        week_start,
        count(*) as n_dimensions_flagged,
        {{ sorted_string_agg('dimension', "', '") }} as dimensions_flagged
    from flagged_dimensions
    group by task_id, week_start
),

model_lists as (
    select
        task_id,
        week_start,
        {{ sorted_string_agg('model_id', "', '") }} as models_flagged
    from flagged_models
    where model_id is not null
    group by task_id, week_start
),

flag_counts as (
    select
        task_id,
        week_start,
        count(distinct item_id) as n_items_flagged,
        count(*) as n_flags,
        min(item_agreement) as min_item_agreement
    from flagged
    group by task_id, week_start
),

least_agreed as (
    select
        *,
        row_number() over (
            partition by task_id, week_start order by item_agreement, item_id, dimension
        ) as agreement_rank
    from flagged
),

-- The rated response, as the eval forms wrote it: every form on an item carries the same task and response.
form_items as (
    select
        {{ eval_form_item_id() }} as item_id,
        min(response) as response
    from eval_forms
    group by task_id, subject_model, subject_version, response_id
),

task_prompts as (
    select
        task_id,
        min(prompt) as prompt
    from eval_forms
    group by task_id
),

final as (
    select
        flag_counts.task_id,
        flag_counts.week_start,
        task_items.n_items_compared,
        flag_counts.n_items_flagged,
        flag_counts.n_flags,
        dimension_lists.n_dimensions_flagged,
        dimension_lists.dimensions_flagged,
        model_lists.models_flagged,
        flag_counts.min_item_agreement,
        task_prompts.prompt,
        least_agreed.item_id as example_item_id,
        least_agreed.model_id as example_model_id,
        least_agreed.dimension as example_dimension,
        least_agreed.lowest_score as example_lowest_score,
        least_agreed.highest_score as example_highest_score,
        form_items.response as example_response
    from flag_counts
    inner join task_items
        on flag_counts.task_id = task_items.task_id
        and flag_counts.week_start = task_items.week_start
    inner join dimension_lists
        on flag_counts.task_id = dimension_lists.task_id
        and flag_counts.week_start = dimension_lists.week_start
    left join model_lists
        on flag_counts.task_id = model_lists.task_id
        and flag_counts.week_start = model_lists.week_start
    inner join least_agreed
        on flag_counts.task_id = least_agreed.task_id
        and flag_counts.week_start = least_agreed.week_start
        and least_agreed.agreement_rank = 1
    left join form_items
        on least_agreed.item_id = form_items.item_id
    left join task_prompts
        on flag_counts.task_id = task_prompts.task_id
)

select * from final
