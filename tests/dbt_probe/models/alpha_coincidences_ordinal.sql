-- alpha in two steps (coincidence matrix, then alpha from it), here from ratings counted per (group, unit, value)
-- and passed through weight=: must equal krippendorff.alpha, as alpha_ordinal does.
with

matrix as (
    {{ krippendorff_coincidences(ref('alpha_ratings_counted'), ['group_id'], weight='n_uc') }}
),

alpha as (
    {{ krippendorff_alpha_from_coincidences('matrix', ['group_id'], level='ordinal') }}
)

select * from alpha
