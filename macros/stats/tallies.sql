{#
    Agreement from per-unit tallies. When each unit's ratings are kept counted per declared category (one row per
    unit: its ratings m and its tallies n_1 .. n_q, n_a the ratings in the category at position a), every term of
    Krippendorff's coincidence matrix and of Fleiss' category sums is a sum over units of a function of the
    tallies: a group's terms come from one aggregate over its units, with no pairing of values. The agreement marts
    keep the tallies item by item (int_agreement_units) and sum them per week and over all time.

    agreement_tally_sums(n_categories, ratings, tally)
        The aggregate columns, for the caller's select ... group by (any grouping, grouping sets included), over
        rows with columns `ratings` (m) and `tally`1 .. `tally`q. Units with m >= 2 are pairable; the others
        count only in n_items and n_ratings. A unit with m = 0 (every rating of it a missing value, kept so that a
        recount can replace it) counts in nothing.
          n_items (units with m >= 1), n_ratings, n_units (pairable), n_pairable_ratings
          agreeing_pairs     sum_u sum_a n_a (n_a - 1), all_pairs  sum_u m (m - 1)   (percent agreement)
          pairable_a         sum over pairable units of n_a (exact integers: the coincidence matrix's marginals)
          coincidences_a_b   o_ab = sum over pairable units of n_a (n_b - [a = b]) / (m - 1)   (Krippendorff 2011)
          share_sum_a        sum over pairable units of n_a / m                          (Fleiss)
          agreement_sum_a    sum over pairable units of n_a (n_a - 1) / (m (m - 1))       (Fleiss)
          first_seen_a       pairable units whose lowest used category is a (their sum is n_units)
        Every column adds up over groups that share no unit.

    tally_coincidences(relation, group_by, n_categories)
        From rows of agreement_tally_sums (or sums of them over unions of groups): the coincidence matrix as
        krippendorff_coincidences gives it, by category position: one row per (group, position_a, position_b)
        that occurs within a pairable unit (a used category on the diagonal, two co-occurring ones off it), with
        coincidences and pairable_ratings (n_a on the diagonal, 0 off it). Map the positions to the categories'
        values and pass it to krippendorff_alpha_from_coincidences.

    tally_fleiss_sums(relation, group_by, n_categories)
        From the same rows: fleiss_category_sums' output, one row per (group, category_position) used in a
        pairable unit, for fleiss_from_category_sums.

    Tested against the krippendorff package and the Fleiss oracle, and against the rating-level macros, in
    tests/models/test_stat_macros.py.
#}
{% macro agreement_tally_sums(n_categories, ratings='n_ratings', tally='n_') -%}
{%- set positions = range(1, n_categories + 1) -%}
{%- set m = ratings -%}
        cast(sum(case when {{ m }} >= 1 then 1 else 0 end) as bigint) as n_items,
        cast(sum({{ m }}) as bigint) as n_ratings,
        cast(sum(case when {{ m }} >= 2 then 1 else 0 end) as bigint) as n_units,
        cast(sum(case when {{ m }} >= 2 then {{ m }} else 0 end) as bigint) as n_pairable_ratings,
        cast(sum({% for a in positions %}{{ tally }}{{ a }} * ({{ tally }}{{ a }} - 1){% if not loop.last %} + {% endif %}{% endfor %})
            as bigint) as agreeing_pairs,
        cast(sum({{ m }} * ({{ m }} - 1)) as bigint) as all_pairs,
        {%- for a in positions %}
        cast(sum(case when {{ m }} >= 2 then {{ tally }}{{ a }} else 0 end) as bigint) as pairable_{{ a }},
        sum(case when {{ m }} >= 2 then cast({{ tally }}{{ a }} as double) / cast({{ m }} as double) end) as share_sum_{{ a }},
        sum(case when {{ m }} >= 2 then cast({{ tally }}{{ a }} * ({{ tally }}{{ a }} - 1) as double)
            / cast({{ m }} * ({{ m }} - 1) as double) end) as agreement_sum_{{ a }},
        cast(sum(case when {{ m }} >= 2 and {{ tally }}{{ a }} > 0{% for b in positions if b < a %} and {{ tally }}{{ b }} = 0{% endfor %}
            then 1 else 0 end) as bigint) as first_seen_{{ a }},
        {%- for b in positions %}
        sum(case when {{ m }} >= 2 then cast({{ tally }}{{ a }} * ({{ tally }}{{ b }} - {{ 1 if a == b else 0 }}) as double)
            / cast({{ m }} - 1 as double) end) as coincidences_{{ a }}_{{ b }}{% if not (loop.last and a == n_categories) %},{% endif %}
        {%- endfor %}
        {%- endfor %}
{%- endmacro %}


{% macro tally_coincidences(relation, group_by, n_categories) -%}
{%- set g = stats_group_select(group_by) -%}
{%- set positions = range(1, n_categories + 1) -%}
with tally_matrix_cells as (

    {%- for a in positions %}
    {%- for b in positions %}
    select
        {{ g }}{{ a }} as position_a,
        {{ b }} as position_b,
        coincidences_{{ a }}_{{ b }} as coincidences,
        {% if a == b %}pairable_{{ a }}{% else %}cast(0 as bigint){% endif %} as pairable_ratings,
        {% if a == b %}pairable_{{ a }} > 0{% else %}coincidences_{{ a }}_{{ b }} > 0{% endif %} as occurs
    from {{ relation }}
    {% if not loop.last or a < n_categories %}union all{% endif %}
    {%- endfor %}
    {%- endfor %}

)

select {{ g }}position_a, position_b, coincidences, pairable_ratings
from tally_matrix_cells
where occurs
{%- endmacro %}


{% macro tally_fleiss_sums(relation, group_by, n_categories) -%}
{%- set g = stats_group_select(group_by) -%}
with tally_fleiss_categories as (

    {%- for a in range(1, n_categories + 1) %}
    select
        {{ g }}{{ a }} as category_position,
        first_seen_{{ a }} as units_first_seen,
        share_sum_{{ a }} as share_sum,
        agreement_sum_{{ a }} as agreement_sum
    from {{ relation }}
    where pairable_{{ a }} > 0
    {% if not loop.last %}union all{% endif %}
    {%- endfor %}

)

select * from tally_fleiss_categories
{%- endmacro %}
