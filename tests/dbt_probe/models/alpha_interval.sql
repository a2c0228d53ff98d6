{{ krippendorff_alpha(source('probe', 'alpha_ratings'), ['group_id'], level='interval') }}
