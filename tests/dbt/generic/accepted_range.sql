{# Every non-NULL value lies in [min_value, max_value] (either bound may be omitted). NULL is allowed: an
   undefined statistic is NULL, and not_null says when it must not be. #}
{% test accepted_range(model, column_name, min_value=none, max_value=none) %}

select {{ column_name }}
from {{ model }}
where {{ column_name }} is not null
    and (
        false
        {%- if min_value is not none %} or {{ column_name }} < {{ min_value }}{% endif %}
        {%- if max_value is not none %} or {{ column_name }} > {{ max_value }}{% endif %}
    )

{% endtest %}
