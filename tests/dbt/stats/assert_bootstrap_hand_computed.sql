{#
    The bootstrap macros (macros/stats/bootstrap.sql) by hand. Returns a row per mismatch (tolerance 1e-12).
    percentile_bootstrap_interval, 100 replicates drawn, quantiles linear between order statistics (numpy's
    default): position (m - 1) p among the m defined values, sorted.
        group 1: the values 1 .. 100: 2.5% at position 2.475, 3 + 0.475 = 3.475; 97.5% at 96.525: 97.525
        group 2: 1 .. 95, 5 replicates undefined (NULL, the most allowed): 94 * 0.025 = 2.35: 3.35; 91.65: 92.65
        group 3: 1 .. 94, 6 undefined (no row): more than 5% of 100: NULL ends
    krippendorff_alpha_bootstrap:
        group 4: one pairable unit (fewer than 2): NULL ends
        group 5: three units whose every rating is 1: no replicate has an alpha, NULL ends, 0 defined
#}
with replicates as (

    select 1 as group_id, i as replicate, cast(i as double) as statistic
    from (select {{ integer_series('1', '100') }} as i) as values_1
    union all
    select 2, i, case when i <= 95 then cast(i as double) end
    from (select {{ integer_series('1', '100') }} as i) as values_2
    union all
    select 3, i, cast(i as double)
    from (select {{ integer_series('1', '94') }} as i) as values_3

),

intervals as (
    {{ percentile_bootstrap_interval('replicates', ['group_id'], 'statistic', 100) }}
),

expected_intervals as (

    select * from (
        values
            (1, 100, 3.475, 97.525),
            (2, 95, 3.35, 92.65),
            (3, 94, cast(null as double), cast(null as double))
    ) as expected (group_id, n_replicates_defined, ci_low, ci_high)

),

unit_matrices as (

    -- one unit's coincidences per class: group 4 a unit rated 1 and 2 (o_12 = o_21 = 1, n_1 = n_2 = 1); group 5
    -- units rated 1, 1 (o_11 = 2, n_1 = 2), three of them in one class
    select * from (
        values
            (4, 'u1', 1, 1.0, 2.0, 1.0, 0),
            (4, 'u1', 1, 2.0, 1.0, 1.0, 0),
            (4, 'u1', 1, 1.0, 1.0, 0.0, 1),
            (4, 'u1', 1, 2.0, 2.0, 0.0, 1),
            (5, 'ones', 3, 1.0, 1.0, 2.0, 2)
    ) as cells (group_id, class_id, class_size, value_a, value_b, coincidences, pairable_ratings)

),

alpha_intervals as (
    {{ krippendorff_alpha_bootstrap('unit_matrices', ['group_id'], ['class_id'], n_replicates=200) }}
),

mismatches as (

    select expected.group_id, 'percentile interval' as what
    from expected_intervals as expected
    left join intervals as got on expected.group_id = got.group_id
    where got.n_replicates_defined is distinct from expected.n_replicates_defined
        or (got.ci_low is null) <> (expected.ci_low is null)
        or (got.ci_high is null) <> (expected.ci_high is null)
        or abs(got.ci_low - expected.ci_low) > 1e-12
        or abs(got.ci_high - expected.ci_high) > 1e-12
    union all
    select group_id, 'alpha interval not NULL' as what
    from alpha_intervals
    where alpha_ci_low is not null or alpha_ci_high is not null
        or (group_id = 4 and n_units <> 1)
        or (group_id = 5 and (n_units <> 3 or n_replicates_defined <> 0))
    union all
    select 0, 'alpha interval row missing' as what
    from (select count(*) as n_rows from alpha_intervals) as counted
    where n_rows <> 2

)

select * from mismatches
