{#
    mean_se(expr): the standard error of the mean of expr over the rows of a group, an aggregate expression:
    `avg(score) as mean_score, {{ mean_se('score') }} as mean_score_se`.

    Formula: sqrt(var_samp(expr) / count(expr)), NULLs ignored (docs/STATS.md, plain SE). var_samp is computed by
    the engine with a one-pass update that does not cancel digits the way sum(x^2) - sum(x)^2 / n would.
    Edge cases: NULL for fewer than 2 non-null values (var_samp of one row is NULL), never 0.
    The sampling unit is the question: average a question's repeated scores before taking mean_se over questions.
#}
{% macro mean_se(expr) -%}
    sqrt(var_samp({{ expr }}) / nullif(cast(count({{ expr }}) as double), 0))
{%- endmacro %}
