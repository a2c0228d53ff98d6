-- Fleiss' kappa and AC1 from per-unit tallies over the categories 1-5 (other values left out, as fleiss_kappa
-- does): agreement_tally_sums, tally_fleiss_sums, then fleiss_from_category_sums. Must equal fleiss_kappa.
-- A unit whose every value lies outside keeps its row with no rating (m = 0), as int_agreement_units keeps an item
-- whose every rating is no value: it must count in nothing, n_items included.
with

units as (
    select
        group_id,
        unit_id,
        sum(case when value between 1 and 5 then 1 else 0 end) as n_ratings,
        {%- for a in range(1, 6) %}
        sum(case when value = {{ a }} then 1 else 0 end) as n_{{ a }}{% if not loop.last %},{% endif %}
        {%- endfor %}
    from {{ source('probe', 'fleiss_ratings') }}
    group by group_id, unit_id
),

sums as (
    select
        group_id,
        {{- agreement_tally_sums(5) }}
    from units
    group by group_id
),

categories as (
    {{ tally_fleiss_sums('sums', ['group_id'], 5) }}
),

fleiss as (
    {{ fleiss_from_category_sums('categories', ['group_id'], 5) }}
)

select fleiss.*, sums.n_units as tallied_units, sums.n_items, sums.n_pairable_ratings, sums.agreeing_pairs,
    sums.all_pairs
from fleiss
inner join sums on fleiss.group_id is not distinct from sums.group_id
