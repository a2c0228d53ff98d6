{{ cohen_kappa(source('probe', 'kappa_pairs'), ['group_id'], labels=[1, 2, 3, 4, 5], weights='unweighted') }}
