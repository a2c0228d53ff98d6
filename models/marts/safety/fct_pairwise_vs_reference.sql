-- One row per model and week: how the model's responses compared with the reference answers (vs_reference),
-- as counts per verdict and a win rate where a tie counts half, with a Wilson interval on the win share.
-- Every non-hybrid rater's comparison counts; the human and LLM-judge win rates are given apart beside the
-- pooled one, each with its own interval, so a judge that favours the model shows.
-- The sampling unit is the response (item), not the comparison: several raters of one response are one
-- observation of the model (docs/STATS.md, error bars). Each win rate is the mean over responses of the
-- response's win share (its comparisons' wins over their number), and the interval is over the n_items responses
-- (unit_wilson_low/high); where each response has one comparison, win_rate is wins / n_compared.
{%- set win %}case when label in ('better', 'much_better') then 1.0 when label = 'equivalent' then 0.5 else 0.0 end
{%- endset %}
with

ratings as (
    select * from {{ ref('fct_ratings') }}
    where dimension = 'vs_reference'
        and rater_group <> 'hybrid'
),

per_item as (
    select
        model_id,
        week_start,
        item_id,
        count(*) as n_compared,
        count(case when label = 'much_worse' then 1 end) as n_much_worse,
        count(case when label = 'worse' then 1 end) as n_worse,
        count(case when label = 'equivalent' then 1 end) as n_equivalent,
        count(case when label = 'better' then 1 end) as n_better,
        count(case when label = 'much_better' then 1 end) as n_much_better,
        avg({{ win }}) as win_share,
        count(case when rater_group = 'human' then 1 end) as n_compared_by_humans,
        avg(case when rater_group = 'human' then {{ win }} end) as human_win_share,
        count(case when rater_group = 'llm_judge' then 1 end) as n_compared_by_judges,
        avg(case when rater_group = 'llm_judge' then {{ win }} end) as judge_win_share
    from ratings
    group by model_id, week_start, item_id
),

final as (
    select
        model_id,
        week_start,
        cast(sum(n_compared) as bigint) as n_compared,
        count(win_share) as n_items,
        cast(sum(n_much_worse) as bigint) as n_much_worse,
        cast(sum(n_worse) as bigint) as n_worse,
        cast(sum(n_equivalent) as bigint) as n_equivalent,
        cast(sum(n_better) as bigint) as n_better,
        cast(sum(n_much_better) as bigint) as n_much_better,
        avg(win_share) as win_rate,
        {{ unit_wilson_low('win_share') }} as ci_low,
        {{ unit_wilson_high('win_share') }} as ci_high,
        cast(sum(n_compared_by_humans) as bigint) as n_compared_by_humans,
        count(human_win_share) as n_items_compared_by_humans,
        avg(human_win_share) as human_win_rate,
        {{ unit_wilson_low('human_win_share') }} as human_win_rate_ci_low,
        {{ unit_wilson_high('human_win_share') }} as human_win_rate_ci_high,
        cast(sum(n_compared_by_judges) as bigint) as n_compared_by_judges,
        count(judge_win_share) as n_items_compared_by_judges,
        avg(judge_win_share) as judge_win_rate,
        {{ unit_wilson_low('judge_win_share') }} as judge_win_rate_ci_low,
        {{ unit_wilson_high('judge_win_share') }} as judge_win_rate_ci_high
    from per_item
    group by model_id, week_start
)

select * from final
