-- Ordinal alpha's bootstrap interval on 150 seeded samples of one population, units collapsed to classes by their
-- ratings (the sorted values: units rated alike share one Poisson(class size) draw, as rpt_weekly_agreement's
-- tally patterns do). The test counts how often the interval covers the population's alpha.
with

units as (
    select group_id, unit_id, {{ sorted_string_agg("cast(cast(value as integer) as varchar)", "','") }} as pattern
    from {{ source('probe', 'coverage_ratings') }}
    group by group_id, unit_id
),

classes as (
    select group_id, pattern, min(unit_id) as unit_id, count(*) as class_size
    from units
    group by group_id, pattern
),

unit_matrix as (
    {{ krippendorff_coincidences(source('probe', 'coverage_ratings'), ['group_id', 'unit_id']) }}
),

class_matrix as (
    select classes.group_id, classes.pattern, classes.class_size, matrix.value_a, matrix.value_b,
        matrix.coincidences, matrix.pairable_ratings
    from classes
    inner join unit_matrix as matrix
        on classes.group_id = matrix.group_id and classes.unit_id = matrix.unit_id
),

intervals as (
    {{ krippendorff_alpha_bootstrap('class_matrix', ['group_id'], ['pattern'], level='ordinal', n_replicates=500) }}
),

alpha as (
    {{ krippendorff_alpha(source('probe', 'coverage_ratings'), ['group_id'], level='ordinal') }}
)

select intervals.*, alpha.alpha
from intervals
inner join alpha on intervals.group_id = alpha.group_id
