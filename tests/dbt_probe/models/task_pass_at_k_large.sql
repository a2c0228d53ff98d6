-- Large n (up to 10,000), where binom() overflows and lgamma loses precision.
with large_tasks as (

    select * from {{ source('probe', 'task_trials') }}
    where n_trials > 16

),

estimates as (
    {{ task_pass_at_k('large_tasks', k_values=[1, 2, 3, 7, 100, 1000, 4096, 5000, 9999, 10000, 10001]) }}
)

select * from estimates
