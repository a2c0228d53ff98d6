-- One row per draft-standard result trial scored by an exact_match or regex_match rubric: the score the record
-- reported beside the score the warehouse computes from the record's output and the dataset example's expected
-- output, with the rubric's params:
--   exact_match  1 when the output equals one of the accepted expected outputs, else 0; trim_whitespace strips
--                both sides first, case_sensitive false compares them lower-cased (defaults: true, false)
--   regex_match  1 when the output contains a match of params.pattern (without a pattern: of any accepted expected
--                output, read as a pattern), else 0; same trim_whitespace, case_sensitive false adds (?i)
-- computed_score is NULL when it cannot be computed: no output text, no dataset example with that sample_id, a
-- target_scores example, or a pattern the engine cannot compile. disagrees is true when both scores exist and
-- differ.
with

trials as (
    select * from {{ ref('int_spec_trials_joined') }}
    where is_matched and component_kind = 'rubric' and scored_by in ('exact_match', 'regex_match')
),

components as (
    select * from {{ ref('int_spec_components_unioned') }}
),

examples as (
    select * from {{ ref('int_spec_examples_unnested') }}
),

prepared as (
    select
        trials.trial_id,
        trials.spec_id,
        trials.component_id,
        trials.scored_by,
        trials.model_id,
        trials.sample_id,
        trials.week_start,
        trials.evaluated_at,
        trials.score as reported_score,
        trials.output_text,
        components.case_sensitive,
        components.trim_whitespace,
        components.pattern,
        examples.example_index is not null as has_example,
        examples.expected_outputs_json,
        case when components.trim_whitespace then {{ strip_whitespace('trials.output_text') }}
            else trials.output_text end as trimmed_output,
        trials.source_path,
        trials.source_line
    from trials
    inner join components
        on trials.spec_id = components.spec_id
        and trials.component_id = components.component_id
    left join examples
        on trials.spec_id = examples.spec_id
        and trials.sample_id = examples.sample_id
),

normalized as (
    select
        *,
        case when case_sensitive then trimmed_output else lower(trimmed_output) end as compared_output,
        case when case_sensitive then pattern else '(?i)' || pattern end as rubric_pattern
    from prepared
),

expected_texts as (
    select
        examples.spec_id,
        examples.sample_id,
        expected_text
    from examples
    {{ json_string_elements('examples.expected_outputs_json', 'expected') }}
),

-- One row per trial and accepted expected output (a regex rubric with its own pattern is scored below).
candidates as (
    select
        normalized.trial_id,
        normalized.scored_by,
        normalized.trimmed_output,
        normalized.compared_output,
        case
            when normalized.case_sensitive and normalized.trim_whitespace
                then {{ strip_whitespace('expected_texts.expected_text') }}
            when normalized.case_sensitive then expected_texts.expected_text
            when normalized.trim_whitespace then lower({{ strip_whitespace('expected_texts.expected_text') }})
            else lower(expected_texts.expected_text)
        end as compared_expected,
        case when normalized.case_sensitive then expected_texts.expected_text
            else '(?i)' || expected_texts.expected_text end as expected_pattern
    from normalized
    inner join expected_texts
        on normalized.spec_id = expected_texts.spec_id
        and normalized.sample_id = expected_texts.sample_id
    where normalized.output_text is not null
        and not (normalized.scored_by = 'regex_match' and normalized.pattern is not null)
),

candidate_matches as (
    select
        trial_id,
        case
            when scored_by = 'exact_match' then case when compared_output = compared_expected then 1.0 else 0.0 end
            -- NULL when the engine cannot compile the pattern.
            else case {{ regex_search('trimmed_output', 'expected_pattern') }}
                when true then 1.0
                when false then 0.0
            end
        end as is_match
    from candidates
),

expected_scores as (
    select
        trial_id,
        max(is_match) as computed_score
    from candidate_matches
    group by trial_id
),

pattern_scores as (
    select
        trial_id,
        case {{ regex_search('trimmed_output', 'rubric_pattern') }} when true then 1.0 when false then 0.0 end
            as computed_score
    from normalized
    where scored_by = 'regex_match' and pattern is not null and output_text is not null
),

computed as (
    select * from expected_scores
    union all
    select * from pattern_scores
),

final as (
    select
        normalized.trial_id,
        normalized.spec_id,
        normalized.component_id as rubric_id,
        normalized.scored_by,
        normalized.model_id,
        normalized.sample_id,
        normalized.week_start,
        normalized.evaluated_at,
        normalized.output_text,
        normalized.expected_outputs_json,
        normalized.case_sensitive,
        normalized.trim_whitespace,
        normalized.pattern,
        normalized.has_example,
        normalized.reported_score,
        cast(computed.computed_score as double) as computed_score,
        computed.computed_score is not null
        and normalized.reported_score is not null
        and computed.computed_score <> normalized.reported_score as disagrees,
        normalized.source_path,
        normalized.source_line
    from normalized
    left join computed on normalized.trial_id = computed.trial_id
)

select * from final
