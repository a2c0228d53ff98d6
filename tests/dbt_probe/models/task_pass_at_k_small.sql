-- Every k from 0 to 17 for the tasks with n <= 16 (k > n must be NULL) and the task whose n is NULL.
with small_tasks as (

    select * from {{ source('probe', 'task_trials') }}
    where n_trials <= 16
        or n_trials is null

),

estimates as (
    {{ task_pass_at_k('small_tasks', k_values=range(0, 18) | list) }}
)

select * from estimates
