{# The declared label set of each rating scale, as the `value` column encodes it: the scores of ordinal scales,
   the label codes (score_label_map.sort_order) of nominal ones. Weighted kappa depends on the declared set, not
   on the labels a week happened to use (STATS.md). tests/dbt/assert_declared_labels_match_seed.sql holds this
   equal to the seeds, so the two cannot drift apart. #}
{% macro declared_labels() %}
    {{ return({
        'likert_1_5': [1, 2, 3, 4, 5],
        'vs_reference': [1, 2, 3, 4, 5],
        'cognibench_label': [0, 0.5, 1],
        'task_success': [0, 0.5, 1],
        'hazard_verdict': [1, 2, 3, 4],
        'refusal_appropriateness': [1, 2, 3, 4],
        'refusal_observed': [1, 2],
    }) }}
{% endmacro %}


{# The label positions of the longest declared scale, 1 .. 5: the tally columns n_1 .. n_5 of int_agreement_units
   (a shorter scale's later tallies are 0). #}
{% macro declared_label_positions() %}
    {{ return(range(1, (declared_labels().values() | map('length') | max) + 1) | list) }}
{% endmacro %}
