-- The same ratings counted per (group, unit, value) first, then weighted: must equal alpha_interval.
with

counted as (
    select group_id, unit_id, value, count(*) as n_uc
    from {{ source('probe', 'alpha_ratings') }}
    where value is not null
    group by group_id, unit_id, value
),

alpha as (
    {{ krippendorff_alpha('counted', ['group_id'], rater=none, weight='n_uc', level='interval') }}
)

select * from alpha
