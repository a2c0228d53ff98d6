-- One row per draft-standard result trial scored by an exact_match or regex_match rubric: the score the record
-- reported beside the score recomputed in SQL from the record's output and the dataset's expected output with the
-- rubric's params, and whether they disagree. Where they do, the harness and the rubric disagree about the answer.
with

rescored as (
    select * from {{ ref('int_spec_trials_rescored') }}
),

final as (
    select
        trial_id,
        spec_id,
        rubric_id,
        scored_by,
        model_id,
        sample_id,
        week_start,
        evaluated_at,
        output_text,
        expected_outputs_json as expected_outputs,
        case_sensitive,
        trim_whitespace,
        pattern,
        reported_score,
        computed_score,
        disagrees,
        source_path,
        source_line
    from rescored
)

select * from final
