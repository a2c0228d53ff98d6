"""A run counts once, whole, in the week it started. The weekly marts that count a week's runs (fct_pass_at_k_weekly,
rpt_weekly_model_changes) put a run whose trials straddle a week's end in the week of its first trial, the week
fct_benchmark_results dates the run's computed result by, while fct_trials keeps each trial's own week.

Built from Every Eval Ever instance files with no aggregate, whose trials take the time their file was ingested
(int_instance_files_linked), with the ingest clock pinned: run a is delivered as two files, on Sunday night and on
Monday morning, the way a run straddles a week's end in this warehouse; run b is Monday's alone. Then run b's
aggregate arrives, dated Sunday: the run moves to the week before. Building after each drop equals building once
over all of them."""

from __future__ import annotations

import datetime as dt
import json
import math
from collections import defaultdict
from fractions import Fraction
from pathlib import Path

import pytest

from evalhouse.checksums import mart_differences
from tests.conftest import CAUTIOUS, FIXTURES, Warehouse, built_warehouse_path, instance_record, write_lines

pytestmark = pytest.mark.slow

MARTS = ("--select", "+fct_pass_at_k_weekly", "+rpt_weekly_model_changes", "+fct_benchmark_results",
         *CAUTIOUS)
MODEL, EVAL = "test/straddler-7b", "straddle_fixture"
SUNDAY_NIGHT = dt.datetime(2026, 11, 8, 23, 30)
MONDAY_MORNING = dt.datetime(2026, 11, 9, 0, 30)
MONDAY_NOON = dt.datetime(2026, 11, 9, 12, 0)
WEEK_1, WEEK_2 = dt.date(2026, 11, 2), dt.date(2026, 11, 9)
TOLERANCE = 1e-9

# (run, file, sample, trial, is_correct): run a's first two attempts at each task on Sunday, its last two on Monday
TRIALS = [
    ("a", 1, "s1", 1, True), ("a", 1, "s1", 2, True), ("a", 1, "s2", 1, False), ("a", 1, "s2", 2, True),
    ("a", 2, "s1", 3, False), ("a", 2, "s1", 4, True), ("a", 2, "s2", 3, False), ("a", 2, "s2", 4, False),
    ("b", 3, "s1", 1, True), ("b", 3, "s1", 2, False), ("b", 3, "s2", 1, True), ("b", 3, "s2", 2, True),
]


def _run_files(root: Path) -> dict[int, Path]:
    files = defaultdict(list)
    for run, file, sample, trial, correct in TRIALS:
        # every record names its metric, so a run's trials keep it when an aggregate links the run
        files[file].append(instance_record(
            evaluation_id=f"{EVAL}/straddler/run-{run}", model_id=MODEL, evaluation_name=EVAL, sample_id=sample,
            evaluation={"score": 1.0 if correct else 0.0, "is_correct": correct},
            metadata={"trial": str(trial), "metric_id": "accuracy"}))
    return {file: write_lines(root / f"run_{file}.jsonl", records) for file, records in files.items()}


def _aggregate_of_run_b(root: Path, evaluated: dt.datetime) -> Path:
    """Run b's aggregate record, after the trials fixture's (tests/fixtures/trials/qa_run-c.json), with one result."""
    record = json.loads((FIXTURES / "trials" / "qa_run-c.json").read_text())
    stamp = str(evaluated.replace(tzinfo=dt.timezone.utc).timestamp())
    record.update(evaluation_id=f"{EVAL}/straddler/run-b", evaluation_timestamp=stamp, retrieved_timestamp=stamp)
    record["model_info"].update(name=MODEL, id=MODEL)
    result = record["evaluation_results"][0]
    result.update(evaluation_result_id=f"{EVAL}/straddler/run-b#acc", evaluation_name=EVAL, evaluation_timestamp=stamp)
    result["source_data"]["dataset_name"] = EVAL
    result["score_details"]["score"] = 0.75
    record["evaluation_results"] = [result]
    path = root / "run_b_aggregate.json"
    path.write_text(json.dumps(record))
    return path


def _ingest_at(warehouse: Warehouse, moment: dt.datetime, monkeypatch, *paths: Path) -> None:
    """Ingest as if at `moment` (UTC): an unlinked run's trials take their file's ingest time."""
    monkeypatch.setattr("ingest.pipeline._now", lambda: moment)
    assert warehouse.ingest(*paths).quarantined == 0


def _expected_pass_at_k(run_weeks: dict[str, dt.date]) -> dict[tuple, tuple]:
    """{(week, k): (n_runs, pass@k, pass^k)}: each run's attempts at a task counted in its run's week, whole; the
    estimates None at a k some run of a task made fewer attempts than."""
    cells: dict[tuple, list[bool]] = defaultdict(list)
    for run, _, sample, _, correct in TRIALS:
        cells[(run_weeks[run], sample, run)].append(correct)
    expected = {}
    for week in sorted(set(run_weeks.values())):
        tasks = defaultdict(list)
        for (cell_week, sample, _), outcomes in cells.items():
            if cell_week == week:
                tasks[sample].append((len(outcomes), sum(outcomes)))
        runs = {run for run, run_week in run_weeks.items() if run_week == week}
        most = max(n for runs_of_task in tasks.values() for n, _ in runs_of_task)
        for k in sorted({2 ** e for e in range(most.bit_length()) if 2 ** e <= most} | {most}):
            if any(n < k for rs in tasks.values() for n, _ in rs):
                expected[(week, k)] = (len(runs), None, None)
                continue
            at = [sum(1 - Fraction(math.comb(n - c, k), math.comb(n, k)) for n, c in rs) / len(rs)
                  for rs in tasks.values()]
            hat = [sum(Fraction(math.comb(c, k), math.comb(n, k)) for n, c in rs) / len(rs) for rs in tasks.values()]
            expected[(week, k)] = (len(runs), float(sum(at) / len(at)), float(sum(hat) / len(hat)))
    return expected


def _weekly_pass_at_k(warehouse: Warehouse) -> dict[tuple, tuple]:
    rows = warehouse.rows(
        "select week_start, k, n_runs, pass_at_k, pass_hat_k from marts.fct_pass_at_k_weekly "
        "where model_id = ? order by week_start, k", [MODEL])
    return {(week, k): (n_runs, at, hat) for week, k, n_runs, at, hat in rows}


def _assert_close(got: dict[tuple, tuple], expected: dict[tuple, tuple]) -> None:
    assert got.keys() == expected.keys()
    for key, (n_runs, at, hat) in expected.items():
        assert got[key][0] == n_runs, key
        if at is None:
            assert got[key][1:] == (None, None), key
        else:
            assert abs(got[key][1] - at) <= TOLERANCE and abs(got[key][2] - hat) <= TOLERANCE, (key, got[key])


def test_a_run_straddling_a_weeks_end_counts_whole_in_the_week_it_started(tmp_path, monkeypatch):
    files = _run_files(tmp_path)
    warehouse = Warehouse(built_warehouse_path(tmp_path))
    _ingest_at(warehouse, SUNDAY_NIGHT, monkeypatch, files[1])
    _ingest_at(warehouse, MONDAY_MORNING, monkeypatch, files[2])
    _ingest_at(warehouse, MONDAY_NOON, monkeypatch, files[3])
    warehouse.build(*MARTS, target_path=tmp_path / "target")

    # Each trial keeps its own week: run a's Monday attempts are the week of 9 Nov's in fct_trials.
    assert warehouse.rows(
        "select run_id, week_start, count(*) from marts.fct_trials where model_id = ? group by all order by all",
        [MODEL]) == [(f"{EVAL}/straddler/run-a", WEEK_1, 4), (f"{EVAL}/straddler/run-a", WEEK_2, 4),
                     (f"{EVAL}/straddler/run-b", WEEK_2, 4)]
    # pass@k: run a is the week of 2 Nov's, all 4 attempts at each task (k up to 4); run b alone the next week's.
    weekly = _weekly_pass_at_k(warehouse)
    _assert_close(weekly, _expected_pass_at_k({"a": WEEK_1, "b": WEEK_2}))
    assert max(k for week, k in weekly if week == WEEK_1) == 4
    # The accuracy beside it reads the same trials, and the run's computed result is dated the same week.
    assert warehouse.rows(
        "select week_start, n_samples, n_trials, accuracy, pass_at_1 from marts.rpt_weekly_model_changes "
        "where model_id = ? order by week_start", [MODEL]) == [
        (WEEK_1, 2, 8, 0.5, 0.5), (WEEK_2, 2, 4, 0.75, 0.75)]
    assert warehouse.rows(
        "select run_id, week_start from marts.fct_benchmark_results "
        "where model_id = ? and result_origin = 'computed' and metric_name = 'accuracy' order by run_id",
        [MODEL]) == [(f"{EVAL}/straddler/run-a", WEEK_1), (f"{EVAL}/straddler/run-b", WEEK_2)]


def test_building_after_each_drop_equals_one_full_build_when_runs_change_weeks(tmp_path, monkeypatch):
    """Run a's Monday file extends the run it began on Sunday; run b's aggregate, dated Sunday, arrives last and
    moves run b (linked to it, its trials take its time) to the week before."""
    files = _run_files(tmp_path)
    aggregate = _aggregate_of_run_b(tmp_path, SUNDAY_NIGHT - dt.timedelta(hours=1))
    drops = [(SUNDAY_NIGHT, [files[1]]), (MONDAY_MORNING, [files[2], files[3]]), (MONDAY_NOON, [aggregate])]
    incremental = Warehouse(built_warehouse_path(tmp_path / "incremental"))
    for moment, paths in drops:
        _ingest_at(incremental, moment, monkeypatch, *paths)
        incremental.build(*MARTS, target_path=tmp_path / "t1")
    full = Warehouse(built_warehouse_path(tmp_path / "full"))
    for moment, paths in drops:
        _ingest_at(full, moment, monkeypatch, *paths)
    full.build(*MARTS, target_path=tmp_path / "t2")

    assert mart_differences(full.path, incremental.path) == []
    _assert_close(_weekly_pass_at_k(incremental), _expected_pass_at_k({"a": WEEK_1, "b": WEEK_1}))
    assert incremental.rows(
        "select week_start, n_trials from marts.rpt_weekly_model_changes where model_id = ?", [MODEL]) == [
        (WEEK_1, 12)]
