-- One row per lm-evaluation-harness samples line (one doc and filter: a trial), joined to the results file of its
-- run: the file named results_<date>.json with the same date id, preferably in the same folder. The results file
-- names the model and when the run started. Without one, the model is the folder's name as lm-eval writes it
-- (the model name with '/' written '__') and the time is the date id's (model_id_source, evaluated_at_source).
-- The trial's score is the primary metric's value; is_correct follows it when it is 0 or 1. lm-eval collapses
-- `repeats` through the filter, so a line is one trial whatever the repeats: per-attempt verdicts are not in it.
with

samples as (
    select * from {{ ref('stg_lm_eval__samples') }}
),

results as (
    select * from {{ ref('stg_lm_eval__results') }}
),

candidates as (
    select
        samples.record_id,
        results.record_id as results_record_id,
        results.model_id,
        results.evaluated_at,
        case when samples.folder_path = results.folder_path then 1 else 2 end as link_rank
    from samples
    inner join results on samples.run_date_id = results.run_date_id
),

best as (
    select
        *,
        row_number() over (partition by record_id order by link_rank, results_record_id) as preference
    from candidates
),

linked as (
    select
        samples.*,
        best.results_record_id,
        coalesce(best.model_id, replace(samples.output_folder, '__', '/')) as model_id,
        case when best.model_id is not null then 'results_file' else 'output_folder' end as model_id_source,
        coalesce(best.evaluated_at, samples.run_started_at) as evaluated_at,
        case when best.evaluated_at is not null then 'aggregate' else 'record' end as evaluated_at_source
    from samples
    left join best
        on samples.record_id = best.record_id
        and best.preference = 1
),

final as (
    select
        record_id as trial_id,
        model_id || '@' || run_date_id as run_id,
        evaluation_name,
        task_name,
        filter_name,
        model_id,
        model_id_source,
        sample_id,
        primary_metric,
        primary_score as score,
        case when primary_score = 1 then true when primary_score = 0 then false end as is_correct,
        evaluated_at,
        evaluated_at_source,
        request_type,
        input_text,
        reference_text,
        output_text,
        metric_scores_json,
        results_record_id,
        source_path,
        source_line
    from linked
)

select * from final
