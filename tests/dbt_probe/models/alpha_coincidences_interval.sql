-- alpha in two steps (coincidence matrix, then alpha from it): must equal krippendorff.alpha, as alpha_interval does.
with

matrix as (
    {{ krippendorff_coincidences(source('probe', 'alpha_ratings'), ['group_id']) }}
),

alpha as (
    {{ krippendorff_alpha_from_coincidences('matrix', ['group_id'], level='interval') }}
)

select * from alpha
