-- alpha in two steps (coincidence matrix, then alpha from it), here from ratings counted per (group, unit, value)
-- and passed through weight=: must equal krippendorff.alpha, as alpha_ordinal does.
with

counted as (
    select group_id, unit_id, value, count(*) as n_uc
    from {{ source('probe', 'alpha_ratings') }}
    where value is not null
    group by group_id, unit_id, value
),

matrix as (
    {{ krippendorff_coincidences('counted', ['group_id'], weight='n_uc') }}
),

alpha as (
    {{ krippendorff_alpha_from_coincidences('matrix', ['group_id'], level='ordinal') }}
)

select * from alpha
