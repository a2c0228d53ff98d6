-- alpha from per-unit tallies (tally_coincidences, positions 1-5 standing for the values 1-5), at each level: must
-- equal krippendorff.alpha on the same groups, as alpha_coincidences_* do from the ratings.
with

matrix as (
    select group_id, cast(position_a as double) as value_a, cast(position_b as double) as value_b, coincidences,
        pairable_ratings
    from ({{ tally_coincidences(ref('tally_alpha_sums'), ['group_id'], 5) }}) as cells
),

{%- for level in ['nominal', 'ordinal', 'interval', 'ratio'] %}

alpha_{{ level }} as (
    {{ krippendorff_alpha_from_coincidences('matrix', ['group_id'], level=level) }}
){% if not loop.last %},{% endif %}
{%- endfor %}

{% for level in ['nominal', 'ordinal', 'interval', 'ratio'] %}
select '{{ level }}' as level, * from alpha_{{ level }}
{% if not loop.last %}union all{% endif %}
{%- endfor %}
