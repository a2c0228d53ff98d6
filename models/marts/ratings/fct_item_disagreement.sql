-- One row per item and dimension rated by two or more people: how far apart their ratings are, and the item's own
-- agreement among people, flagged for rubric clarification when it is below the seed's threshold.
--
-- People only (rater group 'human': human, sme and end_user raters). A rubric needs clarifying when people read it
-- differently; an LLM judge that disagrees with them is a judge to recalibrate, which fct_judge_drift watches (pooled
-- in, a drifting judge flooded its week's flags with items on which every person agreed).
--
-- item_agreement = 1 - D_o(item) / D_e(dimension): the item's observed disagreement against the disagreement
-- expected by chance over all of the dimension's pairable ratings by people, at the dimension's level (ordinal on
-- midranks, nominal on label codes). It is the per-item term of Krippendorff's alpha: the all-time alpha of the
-- 'human' rater group in fct_rater_agreement equals the average of item_agreement weighted by n_ratings (a singular
-- test holds that identity). Raters and values as in fct_rater_agreement (int_agreement_ratings): each counts once per
-- item (latest rating), reviews (hybrid forms, CogniBench completed reviews) left out; a hazard's agreement is on
-- the verdict its violation rates count (violating or not: not_applicable counts as non_violating), and a hazard
-- verdict 'unsure' (the person cannot judge) is no value, so an item here has two or more people who gave one
-- (non_violating, non_violating, unsure agree perfectly on two values). fct_rater_agreement's header has the reasons.
--
-- lowest_score, highest_score, spread and score_stddev are NULL when any rating with a value has no score (a hazard
-- verdict 'not_applicable'): item_agreement counts it against violating, and a range over the others would show
-- raters who disagree with a spread of 0.
{%- set positions = declared_label_positions() %}
{%- set label_totals_squared %}{% for a in positions %}cast(total_{{ a }} as double) * total_{{ a }}{% if not loop.last %} + {% endif %}{% endfor %}{% endset %}
{%- set label_tallies_squared %}{% for a in positions %}cast(n_{{ a }} as double) * n_{{ a }}{% if not loop.last %} + {% endif %}{% endfor %}{% endset %}
with

items as (
    -- Each item pairable among people (m = n_ratings >= 2), with their ratings tallied per declared label (n_1 ..)
    -- and its own figures, kept up to date item by item (int_agreement_units).
    select * from {{ ref('int_agreement_units') }}
    where rater_group = 'human' and n_ratings >= 2
),

targets as (
    select * from {{ ref('agreement_targets') }}
),

marginals as (
    -- The dimension's pairable ratings by people per label (N_a), and each label's midrank for the ordinal metric:
    -- mid_a = (ratings below label a) + N_a / 2.
    select
        dimension,
        {%- for a in positions %}
        cast(sum(n_{{ a }}) as bigint) as total_{{ a }},
        {%- endfor %}
        cast(sum(n_ratings) as bigint) as total
    from items
    group by dimension
),

midranks as (
    select
        *,
        {%- for a in positions %}
        cast({% for b in positions if b < a %}total_{{ b }} + {% endfor %}0 as double) + total_{{ a }} / 2.0 as mid_{{ a }}
        {%- if not loop.last %},{% endif %}
        {%- endfor %}
    from marginals
),

dimension_means as (
    select
        *,
        ({% for a in positions %}total_{{ a }} * mid_{{ a }}{% if not loop.last %} + {% endif %}{% endfor %})
            / cast(total as double) as mean_all
    from midranks
),

dimension_expected as (
    -- D_e: the variance (var_samp, two-pass) of the midranks over the dimension's pairable ratings for the ordinal
    -- metric; 1 - sum_a N_a^2 / N^2, corrected for sampling without replacement, for the nominal one.
    select
        *,
        ({% for a in positions %}total_{{ a }} * (mid_{{ a }} - mean_all) * (mid_{{ a }} - mean_all){% if not loop.last %}
            + {% endif %}{% endfor %}) / nullif(cast(total - 1 as double), 0) as variance_all,
        {{ safe_divide('cast(total as double) * total - (' ~ label_totals_squared ~ ')',
                       'cast(total as double) * (total - 1)') }} as expected_disagreement
    from dimension_means
),

item_means as (
    select
        items.*,
        {%- for a in positions %}
        dimension_expected.mid_{{ a }},
        {%- endfor %}
        dimension_expected.variance_all,
        dimension_expected.expected_disagreement,
        ({% for a in positions %}items.n_{{ a }} * dimension_expected.mid_{{ a }}{% if not loop.last %} + {% endif %}{% endfor %})
            / cast(items.n_ratings as double) as mean_item
    from items
    inner join dimension_expected on items.dimension = dimension_expected.dimension
),

item_observed as (
    -- Each item's own D_o: the midranks' var_samp (two-pass; an item whose ratings all carry one label gets an
    -- exact 0) and its nominal disagreement (m^2 - sum_a n_a^2) / (m (m - 1)).
    select
        *,
        case
            when {% for a in positions %}(case when n_{{ a }} > 0 then 1 else 0 end){% if not loop.last %} + {% endif %}{% endfor %} = 1
                then cast(0 as double)
            else ({% for a in positions %}n_{{ a }} * (mid_{{ a }} - mean_item) * (mid_{{ a }} - mean_item){% if not loop.last %}
                + {% endif %}{% endfor %}) / cast(n_ratings - 1 as double)
        end as variance_item,
        {{ safe_divide('cast(n_ratings as double) * n_ratings - (' ~ label_tallies_squared ~ ')',
                       'cast(n_ratings as double) * (n_ratings - 1)') }} as observed_disagreement
    from item_means
),

final as (
    select
        item_observed.unit_id as item_id,
        item_observed.dimension,
        item_observed.dimension_group,
        item_observed.scale,
        item_observed.agreement_level,
        item_observed.model_id,
        item_observed.task_id,
        item_observed.item_week as week_start,
        item_observed.n_ratings,
        item_observed.n_ratings as n_raters,  -- one rating per rater and item (int_agreement_ratings' grain)
        item_observed.lowest_score,
        item_observed.highest_score,
        item_observed.highest_score - item_observed.lowest_score as spread,
        item_observed.score_stddev,
        case
            when item_observed.agreement_level = 'ordinal'
                then 1 - {{ safe_divide('item_observed.variance_item', 'item_observed.variance_all') }}
            else 1 - {{ safe_divide('item_observed.observed_disagreement', 'item_observed.expected_disagreement') }}
        end as item_agreement,
        targets.flag_below
    from item_observed
    left join targets on item_observed.dimension_group = targets.dimension_group
)

select
    *,
    -- item_agreement is NULL only when the dimension's ratings all carry one label: the item's agree, not flagged.
    coalesce(item_agreement < flag_below, false) as is_flagged
from final
