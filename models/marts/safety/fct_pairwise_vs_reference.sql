-- One row per model and week: how the model's responses compared with the reference answers (vs_reference),
-- as counts per verdict and a win rate where a tie counts half, with a Wilson interval on the win share.
-- Every non-hybrid rater's comparison counts; the human and LLM-judge win rates are given apart beside the
-- pooled one, so a judge that favours the model shows.
with

ratings as (
    select * from {{ ref('fct_ratings') }}
    where dimension = 'vs_reference'
        and rater_group <> 'hybrid'
),

counts as (
    select
        model_id,
        week_start,
        count(*) as n_compared,
        count(case when label = 'much_worse' then 1 end) as n_much_worse,
        count(case when label = 'worse' then 1 end) as n_worse,
        count(case when label = 'equivalent' then 1 end) as n_equivalent,
        count(case when label = 'better' then 1 end) as n_better,
        count(case when label = 'much_better' then 1 end) as n_much_better,
        sum(case when label in ('better', 'much_better') then 1.0 when label = 'equivalent' then 0.5 else 0.0 end)
            as wins,
        count(case when rater_group = 'human' then 1 end) as n_compared_by_humans,
        sum(case
            when rater_group <> 'human' then null
            when label in ('better', 'much_better') then 1.0 when label = 'equivalent' then 0.5 else 0.0
        end) as human_wins,
        count(case when rater_group = 'llm_judge' then 1 end) as n_compared_by_judges,
        sum(case
            when rater_group <> 'llm_judge' then null
            when label in ('better', 'much_better') then 1.0 when label = 'equivalent' then 0.5 else 0.0
        end) as judge_wins
    from ratings
    group by model_id, week_start
),

final as (
    select
        model_id,
        week_start,
        n_compared,
        n_much_worse,
        n_worse,
        n_equivalent,
        n_better,
        n_much_better,
        {{ safe_divide('wins', 'n_compared') }} as win_rate,
        {{ wilson_low('wins', 'n_compared') }} as ci_low,
        {{ wilson_high('wins', 'n_compared') }} as ci_high,
        n_compared_by_humans,
        {{ safe_divide('human_wins', 'n_compared_by_humans') }} as human_win_rate,
        n_compared_by_judges,
        {{ safe_divide('judge_wins', 'n_compared_by_judges') }} as judge_win_rate
    from counts
)

select * from final
