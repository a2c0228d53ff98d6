-- bootstrap_poisson_counts over classes of 1 to 6,000 units, 300 replicates: each draw must be scipy's Poisson
-- quantile at the md5 uniform the test computes with hashlib.
{{ bootstrap_poisson_counts(source('probe', 'boot_classes'), ['group_id'], ['class_id'], 'class_size', 300, 20260512) }}
