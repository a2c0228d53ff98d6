-- alpha in two steps (coincidence matrix, then alpha from it): must equal krippendorff.alpha, as alpha_ratio does.
{{ krippendorff_alpha_from_coincidences(ref('alpha_coincidence_matrix'), ['group_id'], level='ratio') }}
