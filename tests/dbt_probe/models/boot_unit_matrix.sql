-- Each unit's own coincidence matrix (krippendorff_coincidences with the unit in the group), as a class of one:
-- the input of boot_alpha, the per-unit Poisson bootstrap. Groups 2 to 4 (edge cases) and 10 to 39 of alpha_ratings.
select group_id, unit_id, cast(1 as bigint) as class_size, value_a, value_b, coincidences, pairable_ratings
from ({{ krippendorff_coincidences(source('probe', 'alpha_ratings'), ['group_id', 'unit_id']) }}) as matrix
where group_id between 2 and 4 or group_id between 10 and 39
