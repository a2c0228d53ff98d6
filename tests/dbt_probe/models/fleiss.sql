{{ fleiss_kappa(source('probe', 'fleiss_ratings'), ['group_id'], categories=[1, 2, 3, 4, 5]) }}
