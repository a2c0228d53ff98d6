-- The same ratings counted per (group, unit, value) first, then weighted: must equal fleiss.
with

counted as (
    select group_id, unit_id, value, count(*) as n_uc
    from {{ source('probe', 'fleiss_ratings') }}
    group by group_id, unit_id, value
),

fleiss as (
    {{ fleiss_kappa('counted', ['group_id'], categories=[1, 2, 3, 4, 5], weight='n_uc') }}
)

select * from fleiss
