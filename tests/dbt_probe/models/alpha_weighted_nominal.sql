-- The same ratings counted per (group, unit, value) first, then weighted: must equal alpha_nominal.
{{ krippendorff_alpha(ref('alpha_ratings_counted'), ['group_id'], rater=none, weight='n_uc', level='nominal') }}
