{# The metric an Every Eval Ever instance record names itself, before the seed metric_vocabulary: metadata.metric_id
   (an ADP suite metric), else metadata.rubric_id (a draft-standard rubric); NULL when it names none. One place,
   because a trial's metric (int_trials_unioned) and the metric its reported result says its trials carry
   (int_benchmark_results_unnested) must be read the same way to line up. #}
{% macro instance_named_metric(instances='instances') -%}
coalesce(nullif(trim({{ instances }}.metadata_metric_id), ''), nullif(trim({{ instances }}.metadata_rubric_id), ''))
{%- endmacro %}
