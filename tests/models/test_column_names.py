"""Mart column names: a name analysts meet in two marts means the same thing in both, so SQL over the marts joins and
compares columns by name. Each name below once meant two or three things (README, Changelog)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

# The marts that carry each name, and what it means there. A mart that adds one of these names must mean the same.
ONE_MEANING = {
    # a format's name, as raw.quarantine keeps it: every mart says source_format
    "format": set(),
    # the scorer of a spec component (a judge model, a function) is scored_by; a trial's metric is trial_metric
    "metric": set(),
    # a metric's bounds; the lowest and highest rating an item got are lowest_score and highest_score
    "min_score": {"fct_benchmark_results"},
    "max_score": {"fct_benchmark_results"},
    # rows of fct_trials (one attempt scored on one metric); attempts are n_attempts, spec result records n_results
    "n_trials": {"dim_models", "fct_task_stability", "fct_task_stability_weekly", "rpt_warehouse_summary",
                 "rpt_weekly_model_changes", "rpt_weekly_summary"},
}


def test_each_name_is_carried_only_by_the_marts_where_it_means_one_thing(demo_warehouse):
    found = demo_warehouse.rows(
        "select column_name, table_name from duckdb_columns() where schema_name = 'marts' and column_name in "
        f"({', '.join('?' for _ in ONE_MEANING)})", list(ONE_MEANING))
    carried = {name: {table for column, table in found if column == name} for name in ONE_MEANING}
    assert carried == ONE_MEANING


def test_a_refused_lines_source_format_names_formats_as_the_loaded_rows_do(demo_warehouse):
    """An analyst joins what was refused to what was loaded by source_format: the names are the same."""
    loaded = {row[0] for row in demo_warehouse.rows(
        "select source_format from marts.fct_trials union select source_format from marts.fct_ratings "
        "union select source_format from marts.fct_review_queue")}
    refused = {row[0] for row in demo_warehouse.rows(
        "select source_format from marts.fct_quarantined_lines union "
        "select loaded_later_source_format from marts.fct_quarantined_lines "
        "where loaded_later_source_format is not null union "
        "select source_format from marts.fct_compatibility_repairs union "
        "select source_format from marts.rpt_weekly_quarantine")}
    assert {"eval_form", "cognibench", "eee_instance"} <= refused
    assert refused - {"unknown"} <= loaded


def test_dim_models_counts_trials_as_fct_trials_rows_and_attempts_as_dim_samples_does(demo_warehouse):
    models = demo_warehouse.frame(
        "select model_id, n_trials, n_attempts from marts.dim_models where n_trials > 0").set_index("model_id")
    trials = demo_warehouse.frame(
        "select model_id, count(*) as n from marts.fct_trials group by model_id").set_index("model_id")
    assert models.n_trials.sort_index().tolist() == trials.n.sort_index().tolist()
    # Responses scored on several rubrics (support_triage_v1) are one attempt each and several trials.
    assert (models.n_attempts < models.n_trials).all()
    assert models.n_attempts.sum() == demo_warehouse.scalar("select sum(n_attempts) from marts.dim_samples")


def test_the_spec_marts_n_results_count_the_result_records_dim_eval_specs_counts(demo_warehouse):
    specs = demo_warehouse.rows(
        "select specs.spec_id, specs.n_results, scores.n_results from marts.dim_eval_specs as specs "
        "inner join (select spec_id, sum(n_results) as n_results from marts.fct_spec_scores group by spec_id) "
        "as scores on specs.spec_id = scores.spec_id")
    assert len(specs) >= 2 and all(row[1] == row[2] > 0 for row in specs)
    assert demo_warehouse.scalar(
        "select count(*) from marts.fct_promotion_decisions as decisions inner join ("
        "select spec_id, model_id, week_start, sum(n_results) as n_results from marts.fct_spec_scores_weekly "
        "group by spec_id, model_id, week_start) as weekly on decisions.spec_id = weekly.spec_id "
        "and decisions.model_id = weekly.model_id and decisions.week_start = weekly.week_start "
        "where decisions.n_results = weekly.n_results") == demo_warehouse.scalar(
        "select count(*) from marts.fct_promotion_decisions") > 0
