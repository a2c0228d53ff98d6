{# A row-level invariant: returns the rows where the expression is false (NULL counts as true: an invariant
   about an undefined statistic holds vacuously). #}
{% test expression_is_true(model, expression) %}

select *
from {{ model }}
where not coalesce({{ expression }}, true)

{% endtest %}
