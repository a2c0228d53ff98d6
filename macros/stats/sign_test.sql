{#
    sign_test_p_values(relation, n_up, n_down): the exact two-sided sign test (a binomial test with p = 1/2) for
    paired 0/1 outcomes, McNemar's exact test: of the n = n_up + n_down pairs that changed, n_up went up and n_down
    went down; under "no change" each direction has chance 1/2, so
        p = min(1, 2 * sum_{i=0..k} C(n, i) / 2^n), k = min(n_up, n_down).
    A relation macro (a select, to be used as a CTE or subquery): one row per distinct non-null (n_up, n_down) of
    `relation`, with columns n_up, n_down (under those argument names) and sign_test_p. Callers join it back.

    The terms come from integer_series and a running sum of logarithms, ln C(n, i) = sum_{j=1..i} ln((n - j + 1) / j),
    so no binomial coefficient is formed (binom() overflows near n = 130; 2^n overflows a double near n = 1,024);
    exact to about 1e-13 relative. Edge cases: no changed pair (0, 0) gives p = 1; an even split gives 1.
    Below 6 changed pairs no split reaches p < 0.05 (a unanimous 5-0 gives 0.0625), which is why callers need at
    least 6 changed pairs before a sign test can say anything.
#}
{% macro sign_test_p_values(relation, n_up='n_up', n_down='n_down') -%}
with

sign_test_counts as (
    select distinct
        {{ n_up }} as n_up,
        {{ n_down }} as n_down
    from {{ relation }}
    where {{ n_up }} is not null
        and {{ n_down }} is not null
),

sign_test_terms as (
    select
        n_up,
        n_down,
        n_up + n_down as n_changed,
        {{ integer_series('0', 'case when n_up < n_down then n_up else n_down end') }} as i
    from sign_test_counts
),

sign_test_log_terms as (
    select
        n_up,
        n_down,
        sum(
            case when i = 0 then cast(0 as double) else ln(cast(n_changed - i + 1 as double) / cast(i as double)) end
        ) over (partition by n_up, n_down order by i rows between unbounded preceding and current row)
        - n_changed * ln(cast(2 as double)) as log_term
    from sign_test_terms
)

select
    n_up as {{ n_up }},
    n_down as {{ n_down }},
    least(cast(1 as double), 2 * sum(exp(log_term))) as sign_test_p
from sign_test_log_terms
group by n_up, n_down
{%- endmacro %}
