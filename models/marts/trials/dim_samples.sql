-- One row per eval sample (question): its input and reference as the instance records give them, and how
-- often it was attempted. Trials point here by (evaluation_name, sample_id).
-- int_trials_unioned is read where used, not through an import CTE: DuckDB copies a CTE read more than once whole
-- (docs/performance.md, "Import CTEs read more than once").
with

ranked as (
    select
        evaluation_name,
        sample_id,
        input_text,
        reference_text,
        row_number() over (
            partition by evaluation_name, sample_id order by evaluated_at desc, source_path, source_line
        ) as recency
    from {{ ref('int_trials_unioned') }} as trials
),

counts as (
    select
        evaluation_name,
        sample_id,
        count(*) as n_trials,
        count(distinct model_id) as n_models,
        min(evaluated_at) as first_evaluated_at,
        max(evaluated_at) as last_evaluated_at
    from {{ ref('int_trials_unioned') }} as trials
    group by evaluation_name, sample_id
),

final as (
    select
        counts.evaluation_name,
        counts.sample_id,
        ranked.input_text,
        ranked.reference_text,
        counts.n_trials,
        counts.n_models,
        counts.first_evaluated_at,
        counts.last_evaluated_at
    from counts
    inner join ranked
        on counts.evaluation_name = ranked.evaluation_name
        and counts.sample_id = ranked.sample_id
        and ranked.recency = 1
)

select * from final
