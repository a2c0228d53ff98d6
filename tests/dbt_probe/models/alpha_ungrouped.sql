-- The lead's usage: the macro as a CTE body, no grouping columns, over a CTE. Groups 0 and 1 of the test data.
with ratings as (

    select * from {{ source('probe', 'alpha_ratings') }}
    where group_id = 0

),

no_pairable_unit as (

    select * from {{ source('probe', 'alpha_ratings') }}
    where group_id = 1

),

alpha as (
    {{ krippendorff_alpha('ratings', [], level='ordinal') }}
),

alpha_without_pairable_unit as (
    {{ krippendorff_alpha('no_pairable_unit', [], level='nominal') }}
),

final as (

    select 'ratings' as input_name, n_units, n_pairable_values, n_raters, alpha from alpha
    union all
    select 'no_pairable_unit' as input_name, n_units, n_pairable_values, n_raters, alpha
    from alpha_without_pairable_unit

)

select * from final
