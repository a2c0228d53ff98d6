{#
    unit_wilson_low(share, z=1.96) / unit_wilson_high(share, z=1.96): the interval of a rate whose sampling unit is
    the rated item, not the rating. Aggregate expressions over one row per unit:

        item_verdicts as (  -- the unit's share first: several raters of one response are one observation
            select model_id, week_start, item_id, avg(violating) as violating_share from verdicts group by all
        ),
        ... select avg(violating_share) as violation_rate,
                   {{ unit_wilson_low('violating_share') }} as ci_low,
                   {{ unit_wilson_high('violating_share') }} as ci_high
            from item_verdicts group by model_id, week_start

    docs/STATS.md, error bars: average a question's K scores first, never treat n*K trials as independent. With
    share_u the unit's mean outcome in [0, 1] (NULL: the unit does not count), the rate is the mean of the shares
    and the interval is Wilson's score interval with successes = sum_u share_u and n = the number of units:
      - where each unit has one rating, the shares are 0 or 1 and this is exactly the Wilson interval over units;
      - where a unit has several, its share is a fraction, and Wilson's variance rate (1 - rate) / n is the largest
        a mean of n values in [0, 1] can have: never narrower than the units allow, inside [0, 1], and, unlike
        rate +- 1.96 SE, not a point when every share is 0 (or 1).
    It contains the rate. NULL when no unit counts.
#}
{% macro unit_wilson_low(share, z=1.96) -%}
    {{ wilson_low('sum(' ~ share ~ ')', 'count(' ~ share ~ ')', z) }}
{%- endmacro %}

{% macro unit_wilson_high(share, z=1.96) -%}
    {{ wilson_high('sum(' ~ share ~ ')', 'count(' ~ share ~ ')', z) }}
{%- endmacro %}
