"""What issue 9 is done on, asserted on the marts of a real build of the harness fixtures: Inspect AI samples'
epochs are trials (pass@k works on Inspect logs), a log's own reported results sit beside the computed ones, both
log forms give the same trials, lm-eval lines give one trial per doc and filter with the scores they hold, and
results files give the reported values with their standard errors."""

from __future__ import annotations

import json

import pytest

from evalhouse.checksums import mart_differences
from tests.conftest import CAUTIOUS, Warehouse, built_warehouse_path
from tests.harness.conftest import INSPECT, LM_EVAL, NAN_MODEL, REWRITTEN_MODEL, rewritten_log

STREAMING_MODEL = "azureai/Meta-Llama-3-1-405B-Instruct-jqf"
MATH_MODEL = "RylanSchaeffer/mem_Qwen3-93M_minerva_math_rep_0_sbst_1.0000_epch_1_ot_1"
TOY_MODEL = "18fkbj3g"  # lm-eval's dummy model names itself at random


def _records(warehouse, sql: str, params=()) -> list[dict]:
    return warehouse.frame(sql, params).to_dict("records")


# --- Inspect AI ------------------------------------------------------------------------------------------------


def test_log_streaming_gives_two_samples_with_two_trials_each(harness_warehouse):
    rows = harness_warehouse.rows(
        "select sample_id, trial_number, source_format, evaluation_name from marts.fct_trials "
        "where model_id = ? order by sample_id, trial_number", [STREAMING_MODEL])
    assert rows == [("1", 1, "inspect_sample", "popularity"), ("1", 2, "inspect_sample", "popularity"),
                    ("2", 1, "inspect_sample", "popularity"), ("2", 2, "inspect_sample", "popularity")]


def test_log_streaming_scores_map_c_and_i_to_1_and_0(harness_warehouse):
    # The log's samples: sample 1 scored I then C, sample 2 C and C.
    rows = harness_warehouse.rows(
        "select sample_id, trial_number, score, is_correct from marts.fct_trials where model_id = ? "
        "order by sample_id, trial_number", [STREAMING_MODEL])
    assert rows == [("1", 1, 0.0, False), ("1", 2, 1.0, True), ("2", 1, 1.0, True), ("2", 2, 1.0, True)]


def test_log_streaming_per_sample_pass_at_1_is_half_and_one(harness_warehouse):
    rows = harness_warehouse.rows(
        "select sample_id, n_trials, n_correct, pass_rate, stability from marts.fct_task_stability "
        "where model_id = ? order by sample_id", [STREAMING_MODEL])
    assert rows == [("1", 2, 1, 0.5, "flaky"), ("2", 2, 2, 1.0, "stable_pass")]
    pass_at_k = dict(harness_warehouse.rows(
        "select k, pass_at_k from marts.fct_pass_at_k where model_id = ? and evaluation_name = 'popularity'",
        [STREAMING_MODEL]))
    assert pass_at_k == pytest.approx({1: 0.75, 2: 1.0}, abs=1e-12)


def test_log_streaming_reports_its_own_accuracy_of_0_75_beside_the_computed_one(harness_warehouse):
    rows = _records(harness_warehouse,
        "select result_origin, score, standard_error, n_samples, dataset_n_samples, run_id "
        "from marts.fct_benchmark_results where model_id = ? and metric_name = 'accuracy' order by result_origin",
        [STREAMING_MODEL])
    computed, reported = rows
    assert reported["result_origin"] == "reported"
    assert reported["score"] == pytest.approx(0.75, abs=1e-12)
    assert reported["standard_error"] == pytest.approx(0.25, abs=1e-12)  # the log's stderr metric
    assert reported["n_samples"] == 2  # 4 sample-epochs over 2 epochs
    assert reported["dataset_n_samples"] == 100  # eval.dataset.samples: the log ran sample_ids [1, 2] of them
    assert computed["score"] == pytest.approx(0.75, abs=1e-12)
    assert computed["run_id"] == reported["run_id"]  # trials and the header name the same run


def test_json_and_eval_forms_of_a_log_give_identical_trials(harness_warehouse):
    # log_read_sample.{eval,json} are the same eval saved in both forms from two runs of it: the run's id, its
    # time and the sample's latency differ; everything a trial says about the answer must not.
    columns = ("evaluation_name, model_id, sample_id, trial_number, score, is_correct, input_tokens, output_tokens, "
               "interaction_type, input_text, reference_text, output_text, source_format")
    by_form = {
        suffix: harness_warehouse.rows(
            f"select {columns} from intermediate.int_trials_unioned where source_path like ? order by sample_id",
            [f"%log_read_sample{suffix}"])
        for suffix in (".eval", ".json")
    }
    assert len(by_form[".eval"]) == 1
    assert by_form[".eval"] == by_form[".json"]
    assert by_form[".json"][0][:6] == ("popularity", "ollama/gemma3", "1", 1, 1.0, True)


def test_inspect_trials_carry_tokens_latency_time_and_their_place_in_the_file(harness_warehouse):
    rows = harness_warehouse.rows(
        "select input_tokens, output_tokens, latency_ms, cast(evaluated_at as varchar), evaluated_at_source, "
        "source_line from marts.fct_trials where source_path like '%log_read_sample.json'")
    # model_usage 66 in, 3 out; total_time 2.113 s; eval.created 09:59:40-04:00 in UTC; the first of `samples`.
    assert rows == [(66, 3, pytest.approx(2113.0), "2025-07-05 13:59:40", "record", 1)]


def test_a_bare_nan_score_is_an_unscored_trial(harness_warehouse):
    rows = harness_warehouse.rows(
        "select sample_id, trial_number, score, is_correct from marts.fct_trials where model_id = ? "
        "order by sample_id, trial_number", [NAN_MODEL])
    assert rows[-1] == ("2", 2, None, None)
    stability = harness_warehouse.rows(
        "select n_trials, n_unscored, pass_rate from marts.fct_task_stability where model_id = ? and sample_id = '2'",
        [NAN_MODEL])
    assert stability == [(1, 1, 1.0)]


def test_a_log_ingested_while_running_and_again_finished_counts_once(harness_warehouse):
    raw = harness_warehouse.rows(
        "select count(*) from raw.inspect_sample where source_path like '%rewritten.eval'")
    assert raw == [(6,)]  # 2 samples while running; 4 in the finished log, at other places in the archive
    trials = harness_warehouse.rows(
        "select sample_id, trial_number, score from marts.fct_trials where model_id = ? "
        "order by sample_id, trial_number", [REWRITTEN_MODEL])
    assert trials == [("1", 1, 0.0), ("1", 2, 1.0), ("2", 1, 1.0), ("2", 2, 1.0)]
    reported = harness_warehouse.rows(
        "select score from marts.fct_benchmark_results where model_id = ? and result_origin = 'reported'",
        [REWRITTEN_MODEL])
    assert reported == [(0.75,)]


TRIALS_ONLY = ("--select", "+fct_trials", *CAUTIOUS)  # int_trials_unioned: enough


@pytest.mark.slow
def test_trials_built_after_each_ingest_equal_one_full_build_when_a_rewritten_log_renames_its_model(tmp_path):
    """int_trials_unioned is incremental by (eval, model, sample) group: a log rewritten at the same path under
    another model moves its trials to other groups, and the groups they leave must be emptied, not kept."""
    log = tmp_path / "made" / "rewritten.eval"
    log.parent.mkdir()
    incremental, full = (Warehouse(built_warehouse_path(tmp_path / name)) for name in ("incremental", "full"))
    rewritten_log(log, finished=False, model="test/named-otherwise-while-running")
    for warehouse in (incremental, full):
        warehouse.ingest(log)
    incremental.build(*TRIALS_ONLY, target_path=tmp_path / "t1")
    stale = "select count(*) from marts.fct_trials where model_id = 'test/named-otherwise-while-running'"
    assert incremental.scalar(stale) == 2

    rewritten_log(log, finished=True)
    for warehouse in (incremental, full):
        warehouse.ingest(log, INSPECT / "log_streaming.eval")
    incremental.build(*TRIALS_ONLY, target_path=tmp_path / "t1")
    full.build(*TRIALS_ONLY, target_path=tmp_path / "t2")

    assert mart_differences(full.path, incremental.path) == []
    assert incremental.scalar(stale) == 0
    assert incremental.scalar(
        "select count(*) from marts.fct_trials where model_id = ?", [REWRITTEN_MODEL]) == 4


def test_the_popularity_log_gives_its_ten_samples_and_its_reported_accuracy(harness_warehouse):
    trials = harness_warehouse.rows(
        "select count(*), sum(case when is_correct then 1 else 0 end) from marts.fct_trials "
        "where model_id = 'openai/gpt-4o-mini'")
    assert trials == [(10, 8)]
    reported = harness_warehouse.rows(
        "select score, standard_error, n_samples, dataset_n_samples from marts.fct_benchmark_results "
        "where model_id = 'openai/gpt-4o-mini' and result_origin = 'reported'")
    # the ten samples it ran of the dataset's 100 (eval.dataset.samples)
    assert reported == [(pytest.approx(0.8), pytest.approx(0.13333333333333333), 10, 100)]


# --- lm-evaluation-harness --------------------------------------------------------------------------------------


def test_the_real_samples_file_gives_its_ten_trials_with_the_scores_it_holds(harness_warehouse):
    path = LM_EVAL / "samples_math_perturbed_full_2026-01-21T03-44-18.458309.jsonl"
    held = {str(line["doc_id"]): line["exact_match"]
            for line in map(json.loads, path.read_text(encoding="utf-8").splitlines())}
    rows = harness_warehouse.rows(
        "select sample_id, score, is_correct, evaluation_name, model_id, run_id, trial_number from marts.fct_trials "
        "where source_format = 'lm_eval_sample' and source_path like ?", [f"%{path.name}"])
    assert len(rows) == 10
    assert {r[0]: r[1] for r in rows} == held
    assert {r[2] for r in rows} == {False}  # exact_match 0.0 is a 0/1 verdict: incorrect
    assert {r[3:] for r in rows} == {("math_perturbed_full", MATH_MODEL,
                                      f"{MATH_MODEL}@2026-01-21T03-44-18.458309", None)}


def test_the_real_results_file_gives_its_reported_values_and_standard_errors(harness_warehouse):
    rows = harness_warehouse.rows(
        "select evaluation_name, metric_name, score, standard_error, n_samples, dataset_n_samples, lower_is_better "
        "from marts.fct_benchmark_results where model_id = ? and result_origin = 'reported' "
        "order by evaluation_name", [MATH_MODEL])
    assert rows == [  # n-samples effective and original
        ("math_perturbed_full", "exact_match", 0.0, 0.0, 5000, 5000, False),
        ("math_rephrased_full", "exact_match", pytest.approx(0.0004), pytest.approx(0.0002828144211304471), 5000,
         5000, False),
    ]


def test_filters_are_part_of_the_eval_name_and_repeats_give_one_trial_per_doc(harness_warehouse):
    rows = harness_warehouse.rows(
        "select evaluation_name, count(*), count(distinct sample_id), max(trial_index) from marts.fct_trials "
        "where model_id = ? group by evaluation_name order by evaluation_name", [TOY_MODEL])
    assert rows == [("toy_gen_repeats/majority", 3, 3, 1), ("toy_gen_repeats/take_first", 3, 3, 1),
                    ("toy_mc", 3, 3, 1)]


def test_generated_results_line_up_with_the_trials_they_summarise(harness_warehouse):
    rows = {(r["evaluation_name"], r["metric_name"], r["result_origin"]): r for r in _records(harness_warehouse,
        "select * from marts.fct_benchmark_results where model_id = ?", [TOY_MODEL])}
    # acc is lm-eval's name for accuracy (seed metric_vocabulary): reported and computed line up.
    assert rows[("toy_mc", "accuracy", "reported")]["score"] == pytest.approx(1 / 3)
    assert rows[("toy_mc", "accuracy", "reported")]["standard_error"] == pytest.approx(0.33333333333333337)
    assert rows[("toy_mc", "accuracy", "computed")]["score"] == pytest.approx(1 / 3)
    assert rows[("toy_mc", "acc_norm", "reported")]["score"] == pytest.approx(1 / 3)
    for name in ("toy_gen_repeats/take_first", "toy_gen_repeats/majority"):
        assert rows[(name, "exact_match", "reported")]["score"] == 0.0
        assert rows[(name, "exact_match", "reported")]["n_samples"] == 3


def test_a_reported_exact_match_sits_beside_the_one_computed_from_its_trials(harness_warehouse):
    """lm-eval reports exact_match, the share of docs matched, and its samples lines score each doc 0 or 1 on it:
    the mean of those trials is computed under the same name, so the two share every key but their origin."""
    rows = harness_warehouse.rows(
        "select evaluation_name, run_id, result_origin, score, n_samples from marts.fct_benchmark_results "
        "where metric_name = 'exact_match' and trial_metric = 'exact_match' and model_id in (?, ?) "
        "order by all", [MATH_MODEL, TOY_MODEL])
    by_eval = {}
    for evaluation, run, origin, score, n in rows:
        by_eval.setdefault((evaluation, run), {})[origin] = (score, n)
    # math_rephrased_full has a results entry and no samples file here: nothing to compute it from
    assert {key[0]: set(origins) for key, origins in by_eval.items()} == {
        "math_perturbed_full": {"reported", "computed"}, "math_rephrased_full": {"reported"},
        "toy_gen_repeats/majority": {"reported", "computed"}, "toy_gen_repeats/take_first": {"reported", "computed"}}
    math = next(origins for key, origins in by_eval.items() if key[0] == "math_perturbed_full")
    assert math["computed"] == (0.0, 10) and math["reported"] == (0.0, 5000)  # the file holds 10 of its 5000 docs
    # a metric whose trials are not 0/1 verdicts is not renamed: its reported value need not be their mean
    assert harness_warehouse.scalar(
        "select count(*) from marts.fct_benchmark_results where result_origin = 'computed' "
        "and metric_name not in ('accuracy', 'mean_score', 'exact_match')") == 0


def test_lm_evals_standard_proportions_are_bounded_so_their_intervals_stay_in_0_1(harness_warehouse):
    # toy_mc reports acc_norm 1/3 with a standard error of 1/3: 1/3 - 1.96 / 3 would be -0.32.
    row = _records(harness_warehouse,
        "select * from marts.fct_benchmark_results where model_id = ? and metric_name = 'acc_norm'", [TOY_MODEL])
    assert len(row) == 1
    assert (row[0]["min_score"], row[0]["max_score"]) == (0, 1)
    assert row[0]["interval_method"] == "wilson_from_reported_se"
    assert 0 <= row[0]["ci_low"] < 1 / 3 < row[0]["ci_high"] <= 1
    assert harness_warehouse.scalar(
        "select count(*) from marts.fct_benchmark_results where ci_low < coalesce(min_score, 0) - 1e-12 "
        "or ci_high > coalesce(max_score, 1) + 1e-12") == 0


def test_multiple_choice_trials_are_scored_by_the_primary_metric(harness_warehouse):
    # toy_mc lists acc then acc_norm: acc is the trial's score; doc 1 is the one the dummy model got right.
    rows = harness_warehouse.rows(
        "select sample_id, score, is_correct, output_text from marts.fct_trials where model_id = ? "
        "and evaluation_name = 'toy_mc' order by sample_id", [TOY_MODEL])
    assert rows == [("0", 0.0, False, None), ("1", 1.0, True, None), ("2", 0.0, False, None)]


def test_every_harness_trial_traces_back_to_its_file_and_place(harness_warehouse):
    rows = harness_warehouse.rows(
        "select source_format, count(*), count(distinct source_path || ':' || source_line) "
        "from marts.fct_trials group by source_format order by source_format")
    assert rows == [("inspect_sample", 24, 24), ("lm_eval_sample", 19, 19)]
