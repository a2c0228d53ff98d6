{#
    pass_at_k (per group) and task_pass_at_k (per task), by hand. Returns a row per mismatch.
    pass@k = 1 - C(n-c, k)/C(n, k); pass^k = C(c, k)/C(n, k); SE = sqrt(var_samp/n_tasks).

    Group 'p': tasks (n, c) = (4, 2), (4, 0), (4, 4); k = 1, 2, 4.
        pass@k per task: (4,2) 1/2, 1 - 1/6 = 5/6, 1 (n - c < 4); (4,0) 0; (4,4) 1.
          k = 1: mean 1/2, var (0 + 1/4 + 1/4)/2 = 1/4, SE sqrt(1/12).
          k = 2: mean 11/18, deviations 4/18, -11/18, 7/18, var (186/324)/2, SE sqrt(31)/18.
          k = 4: mean 2/3, var (1/9 + 4/9 + 1/9)/2 = 1/3, SE 1/3.
        pass^k per task: (4,2) 1/2, 1/6, 0; (4,0) 0; (4,4) 1.
          k = 1: 1/2, SE sqrt(1/12).  k = 2: 7/18, deviations -4/18, -7/18, 11/18, SE sqrt(31)/18.  k = 4: 1/3, SE 1/3.
    Group 'q': tasks (3, 1), (1, 1); the largest n is 3, not a power of two, so k = 1, 2, 3.
          k = 1: both 2/3 (tasks 1/3 and 1), var 2/9, SE 1/3; k = 2 and 3: the task with n = 1 has too few
          trials -> NULL, with n_tasks_with_enough_trials 1.
    Group 'r': one task (2, 1): k = 1: 1/2 and 1/2, SE NULL; k = 2: pass@2 = 1 (n - c = 1 < 2), pass^2 = 0.
    Per task, k = 1, 2, 4, with n = 10,000 (binom() would overflow):
          (10000, 1):    C(n-1, k)/C(n, k) = (n - k)/n, so pass@k = k/10000; pass^1 = 1/10000, pass^k = 0 for k > 1.
          (10000, 5000): k = 1: 1/2 and 1/2; k = 2: pass@2 = 1 - (5000 * 4999)/(10000 * 9999) = 14999/19998,
                         pass^2 = 4999/19998; k = 4: pass^4 = (5000 * 4999 * 4998 * 4997)/(10000 * 9999 * 9998 * 9997)
                         and pass@4 = 1 - pass^4 (n - c = c).
          (3, 2):        k = 1: 2/3 and 2/3; k = 2: pass@2 = 1 (n - c = 1 < 2), pass^2 = 1/3; k = 4: n < k -> NULL.
#}
with tasks as (

    select * from (
        values
            ('p', 't1', 4, 2), ('p', 't2', 4, 0), ('p', 't3', 4, 4),
            ('q', 't1', 3, 1), ('q', 't2', 1, 1),
            ('r', 't1', 2, 1)
    ) as tasks (eval_name, task_id, n_trials, n_correct)

),

large_tasks as (

    select * from (
        values
            ('big1', 10000, 1),
            ('big5000', 10000, 5000),
            ('small', 3, 2)
    ) as large_tasks (task_id, n_trials, n_correct)

),

by_group as ({{ pass_at_k('tasks', ['eval_name']) }}),

by_task as ({{ task_pass_at_k('large_tasks', k_values=[1, 2, 4]) }}),

expected_by_group as (

    select * from (
        values
            ('p', 1, 3, 3, cast(1 as double) / 2, sqrt(cast(1 as double) / 12),
                cast(1 as double) / 2, sqrt(cast(1 as double) / 12)),
            ('p', 2, 3, 3, cast(11 as double) / 18, sqrt(31.0) / 18, cast(7 as double) / 18, sqrt(31.0) / 18),
            ('p', 4, 3, 3, cast(2 as double) / 3, cast(1 as double) / 3, cast(1 as double) / 3, cast(1 as double) / 3),
            ('q', 1, 2, 2, cast(2 as double) / 3, cast(1 as double) / 3, cast(2 as double) / 3, cast(1 as double) / 3),
            ('q', 2, 2, 1, null, null, null, null),
            ('q', 3, 2, 1, null, null, null, null),
            ('r', 1, 1, 1, cast(1 as double) / 2, null, cast(1 as double) / 2, null),
            ('r', 2, 1, 1, 1.0, null, 0.0, null)
    ) as expected (
        eval_name, k, n_tasks, n_tasks_with_enough_trials, pass_at_k, pass_at_k_se, pass_hat_k, pass_hat_k_se
    )

),

expected_by_task as (

    select * from (
        values
            ('big1', 1, cast(1 as double) / 10000, cast(1 as double) / 10000),
            ('big1', 2, cast(2 as double) / 10000, 0.0),
            ('big1', 4, cast(4 as double) / 10000, 0.0),
            ('big5000', 1, 0.5, 0.5),
            ('big5000', 2, cast(14999 as double) / 19998, cast(4999 as double) / 19998),
            ('big5000', 4,
                1 - (cast(5000 as double) * 4999 * 4998 * 4997) / (cast(10000 as double) * 9999 * 9998 * 9997),
                (cast(5000 as double) * 4999 * 4998 * 4997) / (cast(10000 as double) * 9999 * 9998 * 9997)),
            ('small', 1, cast(2 as double) / 3, cast(2 as double) / 3),
            ('small', 2, 1.0, cast(1 as double) / 3),
            ('small', 4, null, null)
    ) as expected (task_id, k, pass_at_k, pass_hat_k)

),

group_mismatches as (

    select
        'by_group' as check_name,
        coalesce(got.eval_name, expected.eval_name) as subject,
        coalesce(got.k, expected.k) as k
    from by_group as got
    full outer join expected_by_group as expected
        on got.eval_name = expected.eval_name
        and got.k = expected.k
    where got.k is null
        or expected.k is null
        or got.n_tasks <> expected.n_tasks
        or got.n_tasks_with_enough_trials <> expected.n_tasks_with_enough_trials
        or (got.pass_at_k is null) <> (expected.pass_at_k is null)
        or abs(got.pass_at_k - expected.pass_at_k) > 1e-9
        or (got.pass_at_k_se is null) <> (expected.pass_at_k_se is null)
        or abs(got.pass_at_k_se - expected.pass_at_k_se) > 1e-9
        or (got.pass_hat_k is null) <> (expected.pass_hat_k is null)
        or abs(got.pass_hat_k - expected.pass_hat_k) > 1e-9
        or (got.pass_hat_k_se is null) <> (expected.pass_hat_k_se is null)
        or abs(got.pass_hat_k_se - expected.pass_hat_k_se) > 1e-9

),

task_mismatches as (

    select
        'by_task' as check_name,
        coalesce(got.task_id, expected.task_id) as subject,
        coalesce(got.k, expected.k) as k
    from by_task as got
    full outer join expected_by_task as expected
        on got.task_id = expected.task_id
        and got.k = expected.k
    where got.k is null
        or expected.k is null
        or (got.pass_at_k is null) <> (expected.pass_at_k is null)
        or abs(got.pass_at_k - expected.pass_at_k) > 1e-9
        or (got.pass_hat_k is null) <> (expected.pass_hat_k is null)
        or abs(got.pass_hat_k - expected.pass_hat_k) > 1e-9

)

select * from group_mismatches
union all
select * from task_mismatches
