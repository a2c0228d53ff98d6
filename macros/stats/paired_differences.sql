{#
    paired_difference_aggregates(first, second, n_up, n_down, mean, se): the aggregate columns of a paired comparison
    of two scores per sample (docs/STATS.md: "paired differences d_i = s_A,i - s_B,i; SE = sqrt(var(d)/n). Report the
    correlation too"), for the caller's select ... group by over one row per shared sample. rpt_weekly_model_changes
    compares a model's two weeks with it, fct_model_comparisons two models in one week.
    Columns: n_shared_samples; `n_up` and `n_down`, the samples where first is above and below second (the sign
    test's counts, sign_test_p_values); is_binary, every score 0 or 1 on both sides (then the sign test, McNemar's
    exact test, is the test, not t); `mean` and `se`, the mean difference first - second and mean_se of it (NULL
    below two samples); paired_correlation, Pearson's r of the two scores, NULL below three samples (two points always
    give +-1) or where either side does not vary (DuckDB's corr() of a constant is NaN).
#}
{% macro paired_difference_aggregates(first, second, n_up, n_down, mean, se) -%}
    {%- set difference = '(' ~ first ~ ' - ' ~ second ~ ')' -%}
        count(*) as n_shared_samples,
        count(case when {{ difference }} > 0 then 1 end) as {{ n_up }},
        count(case when {{ difference }} < 0 then 1 end) as {{ n_down }},
        min(case when {{ first }} in (0, 1) and {{ second }} in (0, 1) then 1 else 0 end) = 1 as is_binary,
        avg({{ difference }}) as {{ mean }},
        {{ mean_se(difference) }} as {{ se }},
        case
            when count(*) >= 3 and var_samp({{ first }}) > 0 and var_samp({{ second }}) > 0
                then corr({{ first }}, {{ second }})
        end as paired_correlation
{%- endmacro %}

{#
    change_is_significant(n_compared, n_changed, test, sign_test_p, statistic, critical_value): the verdict of a
    comparison at 5%, the one rule of rpt_weekly_model_changes and fct_model_comparisons. NULL (untested, never a false
    that reads "held") on fewer than var model_change_min_samples samples compared, or fewer than var
    model_change_min_changed_samples samples that changed (n_changed NULL: not a paired comparison, no such minimum);
    else the exact sign test's p < 0.05 where `test` is 'sign test', and |statistic| > critical_value otherwise.
#}
{% macro change_is_significant(n_compared, n_changed, test, sign_test_p, statistic, critical_value) -%}
    case
        when {{ n_compared }} < {{ var('model_change_min_samples') }} then null
        when {{ n_changed }} < {{ var('model_change_min_changed_samples') }} then null
        when {{ test }} = 'sign test' then {{ sign_test_p }} < 0.05
        else abs({{ statistic }}) > {{ critical_value }}
    end
{%- endmacro %}
