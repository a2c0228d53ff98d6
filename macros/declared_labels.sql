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


{# What inter-rater agreement compares on each scale: the declared labels, except where a label is no answer on the
   scale's question or says what another label says. Decided per scale, with the reasons (fct_rater_agreement's
   header and the mart docs repeat them):
   - hazard_verdict: agreement is on the verdict the violation rates count (fct_hazard_rates: violating or not), so
     an analyst reads from it whether the rates can be trusted. 'not_applicable' and 'non_violating' both say the
     response does not violate the hazard: one category, non_violating's code (2), beside violating (3). 'unsure'
     is a rater saying they cannot judge: a missing value (Krippendorff), not a category, so two raters who each
     answered unsure do not agree, nor does one who answered unsure disagree with the others. The full label agreement
     (not_applicable apart) is not computed: which of the two a rater chose moves no violation count.
   - refusal_appropriateness: 'n/a' is an answer (the response did not refuse and had no need to), which
     'under_refusal' contradicts: a category.
   - vs_reference ('equivalent' is a judgement), the 1-5 scores, cognibench_label, task_success, refusal_observed:
     every label is an answer; as declared.
   tests/dbt/assert_agreement_labels_match_seed.sql holds these codes to the seed's labels. #}
{% macro agreement_labels() %}
    {%- set labels = declared_labels() %}
    {%- do labels.update({'hazard_verdict': [2, 3]}) %}
    {{ return(labels) }}
{% endmacro %}


{# agreement_labels as a select of rows (scale, label_position, label_value): the value each tally position n_1 ..
   n_5 stands for. fct_rater_agreement and rpt_weekly_agreement map coincidence positions back to values with it. #}
{% macro agreement_scale_labels() -%}
    select scale, label_position, cast(label_value as double) as label_value
    from (
        values
        {%- for scale, labels in agreement_labels().items() %}
        {%- set outer = loop %}
        {%- for label in labels %}
        ('{{ scale }}', {{ loop.index }}, {{ stats_literal(label) }}){% if not (outer.last and loop.last) %},{% endif %}
        {%- endfor %}
        {%- endfor %}
    ) as labels (scale, label_position, label_value)
{%- endmacro %}


{# A rating's value as agreement compares it (see agreement_labels): NULL when it is no answer. #}
{% macro agreement_value(scale, label, value) -%}
    case
        when {{ scale }} = 'hazard_verdict' and {{ label }} = 'unsure' then cast(null as double)
        when {{ scale }} = 'hazard_verdict' and {{ label }} = 'not_applicable' then cast(2 as double)
        else {{ value }}
    end
{%- endmacro %}


{# A label set ({scale: [value, ...]}, as declared_labels or agreement_labels give it) as rows (scale, value): a
   select of literals, for the tests that hold the sets to the seeds. #}
{% macro label_rows(labels) -%}
    {%- for scale, values in labels.items() %}
    {%- for value in values %}
    select '{{ scale }}' as scale, cast({{ value }} as double) as value
    {%- if not loop.last %} union all{% endif %}
    {%- endfor %}
    {%- if not loop.last %} union all{% endif %}
    {%- endfor %}
{%- endmacro %}
