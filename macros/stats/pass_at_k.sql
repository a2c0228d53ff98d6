{#
    pass@k and pass^k from repeated trials: per task, and per group as a mean over tasks with its standard error.

    Per task with n scored trials and c successes (docs/STATS.md):
        pass@k = 1 - C(n - c, k) / C(n, k)   (Chen et al. 2021): at least one of k trials drawn without
                 replacement succeeds. Computed as 1 - prod_{i = n-c+1..n} (1 - k / i), and 1 when n - c < k.
        pass^k = C(c, k) / C(n, k)            (Yao et al. 2024): all k drawn trials succeed. Computed as
                 prod_{i = 0..k-1} (c - i) / (n - i), and 0 when c < k.
    Both are NULL when n < k (the reference code returns 1 for pass@k there: wrong).

    Why the product forms: binom() overflows near n = 130 and the lgamma form loses about 1e-11 at n = 10,000,
    while each product factor lies in (0, 1], so the product of up to n factors is exact to about n * 1e-16.
    Every factor is > 0 once the zero cases (n - c < k for pass@k, c < k for pass^k) are answered first, which is
    what makes Spark's exp(sum(ln(x))) spelling of product_aggregate safe. An empty product (c = 0 for pass@k,
    k = 0 for pass^k) is 1: product() over no rows is NULL, hence the coalesce.

    The estimates depend on (n, c, k) only, so they are computed once per distinct triple and joined back to the
    tasks: a group of a thousand tasks with a handful of distinct (n, c) costs a handful of products.
    Assumes 0 <= c <= n; tasks whose n or c is NULL are left out.
#}

{#
    pass_at_k: one row per group and k. For each group, k runs over 1, 2, 4, 8, ... up to the largest n in the
    group, plus that largest n itself when it is not a power of two; max_k, when given, caps that largest k.
    Output: group_by columns, k, n_tasks, n_tasks_with_enough_trials (tasks with n >= k), pass_at_k (mean over
    tasks of the per-task pass@k, each with its own n), pass_at_k_se (sqrt(var_samp / n_tasks), NULL with one
    task), pass_hat_k, pass_hat_k_se. When any task of the group has n < k, the four statistics are NULL for that
    k: a mean over only the tasks with enough trials would be a different, easier population.
#}
{% macro pass_at_k(relation, group_by, n='n_trials', c='n_correct', max_k=none) -%}
{%- set g = stats_group_select(group_by) -%}
with pass_tasks as (

    select
        {{ g }}cast({{ n }} as bigint) as n_trials,
        cast({{ c }} as bigint) as n_correct
    from {{ relation }}
    where {{ n }} is not null
        and {{ c }} is not null

),

pass_groups as (

    select
        {% if max_k is none -%}
        {{ g }}max(n_trials) as k_limit
        {%- else -%}
        {{ g }}least(max(n_trials), cast({{ max_k }} as bigint)) as k_limit
        {%- endif %}
    from pass_tasks
    {{ stats_group_by(group_by) }}

),

pass_exponents as (

    select {{ integer_series(0, 62) }} as exponent

),

pass_group_k as (

    select
        {{ stats_group_select(group_by, 'task_groups') }}cast(power(2, exponents.exponent) as bigint) as k
    from pass_groups as task_groups
    cross join pass_exponents as exponents
    where power(2, exponents.exponent) <= task_groups.k_limit

    union

    select
        {{ g }}k_limit as k
    from pass_groups
    where k_limit >= 1

),

pass_task_k as (

    select
        {{ stats_group_select(group_by, 'tasks') }}tasks.n_trials,
        tasks.n_correct,
        group_k.k
    from pass_tasks as tasks
    inner join pass_group_k as group_k
        on {{ stats_join_groups('tasks', 'group_k', group_by) }}

),

pass_triples as (

    select distinct
        n_trials,
        n_correct,
        k
    from pass_task_k

),

{{ stats_pass_at_k_ctes('pass_triples') }},

pass_task_estimates as (

    select
        task_k.*,
        estimates.pass_at_k as task_pass_at_k,
        estimates.pass_hat_k as task_pass_hat_k
    from pass_task_k as task_k
    inner join pass_estimates as estimates
        on task_k.n_trials = estimates.n_trials
        and task_k.n_correct = estimates.n_correct
        and task_k.k = estimates.k

),

pass_final as (

    select
        {{ g }}k,
        count(*) as n_tasks,
        sum(case when n_trials >= k then 1 else 0 end) as n_tasks_with_enough_trials,
        case when min(n_trials) >= k then avg(task_pass_at_k) end as pass_at_k,
        case
            when min(n_trials) >= k then sqrt(var_samp(task_pass_at_k) / cast(count(*) as double))
        end as pass_at_k_se,
        case when min(n_trials) >= k then avg(task_pass_hat_k) end as pass_hat_k,
        case
            when min(n_trials) >= k then sqrt(var_samp(task_pass_hat_k) / cast(count(*) as double))
        end as pass_hat_k_se
    from pass_task_estimates
    {{ stats_group_by(group_by, ['k']) }}

)

select * from pass_final
{%- endmacro %}

{#
    task_pass_at_k: the per-task estimates. One row per input row and k in k_values (a list of integers >= 0):
    every column of the relation, then k, pass_at_k and pass_hat_k (NULL when n < k or n or c is NULL).
    The relation must not already have columns named k, pass_at_k or pass_hat_k.
#}
{% macro task_pass_at_k(relation, n='n_trials', c='n_correct', k_values=[1]) -%}
{%- if k_values | length == 0 -%}
    {{ exceptions.raise_compiler_error("task_pass_at_k: k_values must list at least one k") }}
{%- endif -%}
with pass_k_values as (

    {% for k in k_values -%}
    select cast({{ k }} as bigint) as k
    {% if not loop.last %}union all
    {% endif -%}
    {%- endfor %}

),

pass_task_rows as (

    select
        tasks.*,
        k_values.k
    from {{ relation }} as tasks
    cross join pass_k_values as k_values

),

pass_triples as (

    select distinct
        cast({{ n }} as bigint) as n_trials,
        cast({{ c }} as bigint) as n_correct,
        k
    from pass_task_rows
    where {{ n }} is not null
        and {{ c }} is not null

),

{{ stats_pass_at_k_ctes('pass_triples') }},

pass_final as (

    select
        task_rows.*,
        estimates.pass_at_k,
        estimates.pass_hat_k
    from pass_task_rows as task_rows
    left join pass_estimates as estimates
        on cast(task_rows.{{ n }} as bigint) = estimates.n_trials
        and cast(task_rows.{{ c }} as bigint) = estimates.n_correct
        and task_rows.k = estimates.k

)

select * from pass_final
{%- endmacro %}

{#
    stats_pass_at_k_ctes: the CTEs (to be placed inside a `with`) that compute pass@k and pass^k once per
    distinct (n_trials, n_correct, k) row of `triples`, ending in a CTE named pass_estimates with columns
    n_trials, n_correct, k, pass_at_k, pass_hat_k. Shared by pass_at_k and task_pass_at_k.
#}
{% macro stats_pass_at_k_ctes(triples) -%}
pass_at_factors as (

    select
        n_trials,
        n_correct,
        k,
        {{ integer_series('n_trials - n_correct + 1', 'n_trials') }} as factor_index
    from {{ triples }}
    where n_trials >= k
        and n_trials - n_correct >= k
        and n_correct > 0

),

pass_at_products as (

    select
        n_trials,
        n_correct,
        k,
        {{ product_aggregate('1 - cast(k as double) / cast(factor_index as double)') }} as all_fail_probability
    from pass_at_factors
    group by n_trials, n_correct, k

),

pass_hat_factors as (

    select
        n_trials,
        n_correct,
        k,
        {{ integer_series('0', 'k - 1') }} as factor_index
    from {{ triples }}
    where n_trials >= k
        and n_correct >= k
        and k >= 1

),

pass_hat_products as (

    select
        n_trials,
        n_correct,
        k,
        {{ product_aggregate('cast(n_correct - factor_index as double) / cast(n_trials - factor_index as double)') }}
            as all_pass_probability
    from pass_hat_factors
    group by n_trials, n_correct, k

),

pass_estimates as (

    select
        triples.n_trials,
        triples.n_correct,
        triples.k,
        case
            when triples.n_trials < triples.k then null
            when triples.n_trials - triples.n_correct < triples.k then cast(1 as double)
            else 1 - coalesce(at_products.all_fail_probability, cast(1 as double))
        end as pass_at_k,
        case
            when triples.n_trials < triples.k then null
            when triples.n_correct < triples.k then cast(0 as double)
            else coalesce(hat_products.all_pass_probability, cast(1 as double))
        end as pass_hat_k
    from {{ triples }} as triples
    left join pass_at_products as at_products
        on triples.n_trials = at_products.n_trials
        and triples.n_correct = at_products.n_correct
        and triples.k = at_products.k
    left join pass_hat_products as hat_products
        on triples.n_trials = hat_products.n_trials
        and triples.n_correct = hat_products.n_correct
        and triples.k = hat_products.k

)
{%- endmacro %}
