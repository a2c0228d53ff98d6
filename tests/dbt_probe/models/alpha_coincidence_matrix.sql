-- Each group's coincidence matrix (krippendorff_coincidences) from the single ratings: the first step of the
-- two-step alpha, read by alpha_coincidences_<level> and alpha_coincidences_summed.
{{ krippendorff_coincidences(source('probe', 'alpha_ratings'), ['group_id']) }}
