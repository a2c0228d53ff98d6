{# What an item (the unit ratings agree on, and the thing a review queue lists) is, in one place:
   an eval form's item is its task, the rated model and version, and the response; a CogniBench record's is its
   task, model and response, marked as CogniBench's. Ratings, the review queue and the report join on these. #}
{% macro eval_form_item_id(task_id='task_id', model='subject_model', version='subject_version', response='response_id') -%}
    {{ task_id }}
        || '|' || coalesce({{ model }}, '')
        || '|' || coalesce({{ version }}, '')
        || '|' || coalesce({{ response }}, '')
{%- endmacro %}


{% macro cognibench_item_id(task_id='task_id', model='model_id', response='response_id') -%}
    'cognibench|' || coalesce({{ task_id }}, '') || '|' || coalesce({{ model }}, '') || '|' || coalesce({{ response }}, '')
{%- endmacro %}
