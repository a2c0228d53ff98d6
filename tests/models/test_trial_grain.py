"""The trial grain: a trial is one attempt at a sample scored on one metric. A response scored on three rubrics is
three trials sharing a trial_index, never three attempts; repeated attempts are repeats of one metric. Held on a
small fixture (tests/fixtures/trials: scores on several rubrics per response, metrics told apart only by
evaluation_result_id, and true repeats) against what the fixture files say, computed here in Python, through
fct_trials, fct_task_stability, fct_pass_at_k(_weekly), fct_benchmark_results and dim_samples; and building after
each drop of files equals building once over all of them."""

from __future__ import annotations

import datetime as dt
import json
import math
from collections import defaultdict
from fractions import Fraction

import pandas as pd
import pytest

from evalhouse.checksums import mart_differences
from tests.conftest import CAUTIOUS, FIXTURES, Warehouse, built_warehouse_path

pytestmark = pytest.mark.slow

TRIALS = FIXTURES / "trials"
TRIAL_MARTS = ("--select", "+fct_trials", "+fct_task_stability", "+fct_pass_at_k", "+fct_pass_at_k_weekly",
               "+fct_benchmark_results", "+dim_samples", *CAUTIOUS)
RUBRICS = {"label_accuracy", "label_format", "triage_rationale"}
# The fixture's aggregate results, by the end of their evaluation_result_id: acc is the vocabulary's accuracy.
RESULT_METRICS = {"acc": "accuracy", "f1": "f1"}
TOLERANCE = 1e-9


def _expected_trials() -> list[dict]:
    """Every instance record of the fixture with the metric it scores, its run's day and its trial number."""
    days = {}
    for path in TRIALS.glob("*.json"):
        aggregate = json.loads(path.read_text())
        days[aggregate["evaluation_id"]] = dt.datetime.fromtimestamp(
            float(aggregate["evaluation_timestamp"]), dt.timezone.utc).date()
    trials = []
    for path in sorted(TRIALS.glob("*.jsonl")):
        for line in path.read_text().splitlines():
            record = json.loads(line)
            metric = record["metadata"].get("rubric_id") or RESULT_METRICS[record["evaluation_result_id"].split("#")[1]]
            trials.append({
                "evaluation_name": record["evaluation_name"], "sample_id": record["sample_id"], "metric": metric,
                "day": days[record["evaluation_id"]], "run": record["evaluation_id"],
                "trial": int(record["metadata"]["trial"]), "score": record["evaluation"]["score"],
                "is_correct": record["evaluation"]["is_correct"],
            })
    return sorted(trials, key=lambda t: (t["day"], t["trial"]))


def _by(trials: list[dict], *keys: str) -> dict[tuple, list[dict]]:
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for trial in trials:
        groups[tuple(trial[k] for k in keys)].append(trial)
    return groups


def _pass_at_k(n: int, c: int, k: int) -> Fraction:
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


def _pass_hat_k(n: int, c: int, k: int) -> Fraction:
    return Fraction(math.comb(c, k), math.comb(n, k))


@pytest.fixture(scope="module")
def grain_warehouse(tmp_path_factory) -> Warehouse:
    root = tmp_path_factory.mktemp("trial_grain")
    warehouse = Warehouse(built_warehouse_path(root))
    assert warehouse.ingest(TRIALS).quarantined == 0
    warehouse.build(*TRIAL_MARTS)
    return warehouse


@pytest.fixture(scope="module")
def expected() -> list[dict]:
    trials = _expected_trials()
    assert len(trials) == 3 * 8 + 2 * 4  # triage: 8 responses on 3 rubrics; qa: 4 responses on 2 results
    return trials


def test_a_response_scored_on_three_rubrics_is_one_attempt_on_each(grain_warehouse):
    # Four attempts at each ticket (one a run, two in run a), each scored on the three rubrics: trial_index 1 to 4,
    # three rows apiece, not 1 to 12.
    rows = grain_warehouse.rows(
        "select sample_id, trial_index, count(*), count(distinct rubric_id) from marts.fct_trials "
        "where evaluation_name = 'triage_fixture' group by sample_id, trial_index order by sample_id, trial_index")
    assert rows == [(sample, index, 3, 3) for sample in ("t1", "t2") for index in (1, 2, 3, 4)]


def test_each_metrics_repeats_are_numbered_in_time_order(grain_warehouse, expected):
    got = {(e, s, m): scores for e, s, m, scores in grain_warehouse.rows(
        "select evaluation_name, sample_id, trial_metric, list(score order by trial_index) from marts.fct_trials "
        "group by all")}
    assert got == {key: [t["score"] for t in trials] for key, trials in
                   _by(expected, "evaluation_name", "sample_id", "metric").items()}
    assert {m for _, _, m in got} == RUBRICS | {"accuracy", "f1"}


def test_metrics_told_apart_only_by_evaluation_result_id_are_not_repeats(grain_warehouse):
    rows = grain_warehouse.rows(
        "select trial_metric, sample_id, max(trial_index), count(*) from marts.fct_trials "
        "where evaluation_name = 'qa_fixture' group by all order by all")
    assert rows == [(m, s, 2, 2) for m in ("accuracy", "f1") for s in ("q1", "q2")]


def test_task_stability_counts_one_metrics_attempts(grain_warehouse, expected):
    rows = grain_warehouse.rows(
        "select evaluation_name, trial_metric, sample_id, n_trials, n_correct from marts.fct_task_stability")
    assert sorted(rows) == sorted(
        (e, m, s, len(ts), sum(t["is_correct"] for t in ts))
        for (e, m, s), ts in _by(expected, "evaluation_name", "metric", "sample_id").items())


def test_pass_at_k_counts_attempts_of_one_metric_in_one_run(grain_warehouse, expected):
    rows = grain_warehouse.frame("select * from marts.fct_pass_at_k")
    ks = rows[rows.evaluation_name == "triage_fixture"].groupby("trial_metric")["k"].apply(sorted).to_dict()
    assert ks == {rubric: [1, 2] for rubric in RUBRICS}  # two attempts a ticket in run a, not six (nor four pooled)
    groups = _by(expected, "evaluation_name", "metric")
    # qa: each question answered once in each of its runs: k = 1 alone.
    assert len(rows) == sum(2 if e == "triage_fixture" else 1 for e, _ in groups)
    for row in rows.itertuples():
        tasks = [[(len(ts), sum(t["is_correct"] for t in ts)) for ts in _by(task, "run").values()]
                 for task in _by(groups[(row.evaluation_name, row.trial_metric)], "sample_id").values()]
        assert row.n_tasks == len(tasks)
        assert row.n_tasks_with_enough_trials == sum(all(n >= row.k for n, _ in runs) for runs in tasks)
        if row.n_tasks_with_enough_trials < row.n_tasks:  # triage at k = 2: the other runs made one attempt
            assert (row.evaluation_name, row.k) == ("triage_fixture", 2) and pd.isna(row.pass_at_k)
            continue
        at = [sum(_pass_at_k(n, c, row.k) for n, c in runs) / len(runs) for runs in tasks]
        hat = [sum(_pass_hat_k(n, c, row.k) for n, c in runs) / len(runs) for runs in tasks]
        assert abs(row.pass_at_k - float(sum(at) / len(at))) <= TOLERANCE
        assert abs(row.pass_hat_k - float(sum(hat) / len(hat))) <= TOLERANCE


def test_weekly_pass_at_k_counts_a_weeks_attempts_of_one_metric(grain_warehouse):
    # Run a's week holds two attempts at each ticket: k = 1 and 2 (not up to 6); the other weeks one.
    rows = grain_warehouse.rows(
        "select week_start, trial_metric, list(k order by k) from marts.fct_pass_at_k_weekly "
        "where evaluation_name = 'triage_fixture' group by all")
    weeks = {(week, metric): ks for week, metric, ks in rows}
    assert {ks_key[1] for ks_key in weeks} == RUBRICS
    assert {week: ks for (week, _), ks in weeks.items()} == {
        dt.date(2026, 10, 26): [1], dt.date(2026, 11, 2): [1, 2], dt.date(2026, 11, 9): [1]}


def test_computed_results_never_average_two_metrics(grain_warehouse, expected):
    rows = grain_warehouse.frame(
        "select * from marts.fct_benchmark_results where result_origin = 'computed' order by run_id, trial_metric")
    groups = _by(expected, "run", "evaluation_name", "metric")
    assert len(rows) == 2 * len(groups)  # accuracy and mean_score for each run and metric
    for row in rows.itertuples():
        samples = _by(groups[(row.run_id, row.evaluation_name, row.trial_metric)], "sample_id").values()
        values = [sum(t["score"] if row.metric_name == "mean_score" else t["is_correct"] for t in ts) / len(ts)
                  for ts in samples]
        assert abs(row.score - sum(values) / len(values)) <= TOLERANCE, row
        assert row.n_samples == len(values)
    rationale = rows[(rows.trial_metric == "triage_rationale") & (rows.metric_name == "mean_score")]
    assert (rationale.score >= 1).all() and (rationale.score > 1.5).any()  # the 1 to 5 judge's own mean


def test_dim_samples_counts_attempts_not_scores(grain_warehouse):
    rows = grain_warehouse.rows("select sample_id, n_attempts, n_metrics from marts.dim_samples order by sample_id")
    assert rows == [("q1", 2, 2), ("q2", 2, 2), ("t1", 4, 3), ("t2", 4, 3)]


def test_every_interval_stays_within_its_metrics_bounds(grain_warehouse):
    # Each aggregate reports accuracy 0.9 with SE 0.1 on 2 samples: 0.9 +- 1.96 * 0.1 would end at 1.096.
    reported = grain_warehouse.frame(
        "select * from marts.fct_benchmark_results where result_origin = 'reported' and metric_name = 'accuracy' "
        "and evaluation_name = 'triage_fixture'")
    assert len(reported) == 3
    assert (reported.interval_method == "wilson_from_reported_se").all()
    assert ((reported.ci_low < 0.9) & (reported.ci_high > 0.9) & (reported.ci_high < 1)).all()
    outside = grain_warehouse.scalar(
        "select count(*) from marts.fct_benchmark_results where ci_low < min_score or ci_high > max_score "
        "or (metric_name = 'accuracy' and (ci_low < 0 or ci_high > 1))")
    assert outside == 0
    # Every other metric here is a rate; no record here declares the judge's 1 to 5 scale (its spec would).
    unbounded = grain_warehouse.rows(
        "select distinct trial_metric, metric_name, interval_method from marts.fct_benchmark_results "
        "where min_score is null or max_score is null")
    assert unbounded == [("triage_rationale", "mean_score", "normal")]


def test_building_after_each_drop_equals_one_full_build(tmp_path):
    """The trials arrive out of order: qa run c before its aggregate (its metrics known only by result id), then
    the aggregate (the run is linked late: its trials' metrics are renamed in place) with the later runs, then
    the oldest triage run (it takes the first place of every metric of its tickets), then two runs evaluated at the
    same moment as one stored, one build each: a2, run a again under a run id that sorts after it (a run's two
    attempts stay together: run a's, then a2's), and a9, run b again under one that sorts first (the last run
    stored, it takes run b's place, not the next one)."""
    files = {path.name: path for path in TRIALS.glob("*.json*")}
    for run, again in (("b", "a9"), ("a", "a2")):
        for suffix in (".jsonl", ".json"):
            files[f"triage_run-{again}{suffix}"] = tmp_path / f"triage_run-{again}{suffix}"
            files[f"triage_run-{again}{suffix}"].write_text(
                (TRIALS / f"triage_run-{run}{suffix}").read_text().replace(f"/run-{run}", f"/run-{again}"))
    drops = [
        [files["qa_run-c.jsonl"], files["triage_run-a.jsonl"], files["triage_run-a.json"]],
        [files["qa_run-c.json"], files["qa_run-d.jsonl"], files["qa_run-d.json"], files["triage_run-b.jsonl"],
         files["triage_run-b.json"]],
        [files["triage_run-old.jsonl"], files["triage_run-old.json"]],
        [files["triage_run-a2.jsonl"], files["triage_run-a2.json"]],
        [files["triage_run-a9.jsonl"], files["triage_run-a9.json"]],
    ]
    incremental = Warehouse(built_warehouse_path(tmp_path / "incremental"))
    places = ("select evaluation_name, count(distinct trial_metric), max(trial_index) from marts.fct_trials "
              "group by evaluation_name order by evaluation_name")
    for drop, expected_places in zip(drops, (
        # unlinked, run c's two results are kept apart by their ids; run a's two attempts are numbered per rubric
        [("qa_fixture", 2, 1), ("triage_fixture", 3, 2)],
        # run c's metrics renamed from its aggregate, run d added to them; run b numbered on from each rubric's 2
        [("qa_fixture", 2, 2), ("triage_fixture", 3, 3)],
        [("qa_fixture", 2, 2), ("triage_fixture", 3, 4)],
        [("qa_fixture", 2, 2), ("triage_fixture", 3, 6)],
        [("qa_fixture", 2, 2), ("triage_fixture", 3, 7)],
    )):
        incremental.ingest(*drop)
        incremental.build(*TRIAL_MARTS, target_path=tmp_path / "t1")
        assert incremental.rows(places) == expected_places
    full = Warehouse(built_warehouse_path(tmp_path / "full"))
    full.ingest(*[path for drop in drops for path in drop])
    full.build(*TRIAL_MARTS, target_path=tmp_path / "t2")
    assert mart_differences(full.path, incremental.path) == []
    assert incremental.rows(
        "select trial_metric, count(*), max(trial_index) from intermediate.int_trials_unioned "
        "where evaluation_name = 'qa_fixture' group by all order by all") == [("accuracy", 4, 2), ("f1", 4, 2)]
    oldest_first = ("select count(*) from marts.fct_trials where trial_index = 1 and source_path like "
                    "'%triage_run-old.jsonl'")
    assert incremental.scalar(oldest_first) == full.scalar(oldest_first) == 6
    in_order = ("select distinct regexp_extract(run_id, '[^/]+$'), trial_number, trial_index from marts.fct_trials "
                "where evaluation_name = 'triage_fixture' order by 3")
    assert incremental.rows(in_order) == [("run-old", 1, 1), ("run-a", 1, 2), ("run-a", 2, 3), ("run-a2", 1, 4),
                                          ("run-a2", 2, 5), ("run-a9", 1, 6), ("run-b", 1, 7)]
