"""pass@k's and pass^k's 95% intervals in the marts (fct_pass_at_k, fct_pass_at_k_weekly, and the copy
rpt_weekly_model_changes carries) are Wilson's on the effective sample size of the standard error over tasks, held
against the formula of macros/stats/wilson_interval.sql written out here with numpy (not the macro): on the demo
warehouse, and on a hand-made eval of three tasks that every trial passed, where the mean +- 1.96 SE the app drew was
a point at 1 (SE 0), and Wilson's on three tasks is [0.44, 1]. Beside it, an eval whose tasks were attempted unevenly:
at a k that some task did not reach, every estimate and interval is NULL, not a mean over the tasks that reached it."""

from __future__ import annotations

import datetime as dt
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.conftest import CAUTIOUS, Warehouse, built_warehouse_path, instance_record, write_lines

pytestmark = pytest.mark.slow

TOLERANCE = 1e-9
Z = 1.96  # the macros' default: the marts' intervals are 95% at z = 1.96, not at the exact quantile 1.95996...
EVAL = "interval_fixture"
ALL_PASSED, MIXED, ONE_TASK = "test/always-7b", "test/mixed-7b", "test/lonely-7b"
# Each model's tasks: (task, successes out of 4 attempts in its one run).
TASKS = {
    ALL_PASSED: [("t1", 4), ("t2", 4), ("t3", 4)],
    MIXED: [("t1", 4), ("t2", 3), ("t3", 1)],
    ONE_TASK: [("t1", 2)],
}
ATTEMPTS = 4
# Another eval, attempted unevenly in one run: (task, attempts, successes). k: 1, 2, 4 and the most attempts, 6.
UNEVEN_EVAL, UNEVEN = "uneven_fixture", "test/uneven-7b"
UNEVEN_TASKS = [("u1", 6, 1), ("u2", 2, 2), ("u3", 4, 4)]
INGESTED_AT = dt.datetime(2026, 11, 11, 12, 0)  # a Wednesday: every run is the week of Monday 9 November's
WEEK = dt.date(2026, 11, 9)
MARTS = ("--select", "+fct_pass_at_k", "+fct_pass_at_k_weekly", "+rpt_weekly_model_changes",
         *CAUTIOUS)


# -- the oracle: docs of wilson_low_from_se, written out ---------------------------------------------------------

def _wilson(p: float, n: float) -> tuple[float, float]:
    """Wilson's score interval for a proportion p of n: (p + z^2/2n -/+ z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)."""
    centre = (p + Z**2 / (2 * n)) / (1 + Z**2 / n)
    half = Z * np.sqrt(p * (1 - p) / n + Z**2 / (4 * n**2)) / (1 + Z**2 / n)
    return float(centre - half), float(centre + half)


def _interval(mean: float | None, se: float | None, n_tasks: int) -> tuple[float | None, float | None]:
    """Wilson's on n_eff = p (1 - p) / se^2 * n / (n - 1) (Korn and Graubard 1998); on n where n_eff is undefined
    (se 0 or NULL, the mean at 0 or 1); NULL where the mean is."""
    if mean is None or (isinstance(mean, float) and math.isnan(mean)):
        return None, None
    defined = se is not None and not math.isnan(se) and se > 0 and 0 < mean < 1
    n_eff = mean * (1 - mean) / se**2 * (n_tasks / (n_tasks - 1) if n_tasks > 1 else 1) if defined else n_tasks
    return _wilson(mean, n_eff)


def _mean_and_se(values: list[float]) -> tuple[float, float | None]:
    array = np.array(values, dtype=float)
    return float(array.mean()), (float(array.std(ddof=1) / np.sqrt(len(array))) if len(array) > 1 else None)


def _expected(model: str, k: int) -> dict[str, float | None]:
    """The hand-made model's pass@k and pass^k (exact per task, math.comb) with their intervals."""
    out: dict[str, float | None] = {}
    tasks = TASKS[model]
    at = [1 - math.comb(ATTEMPTS - c, k) / math.comb(ATTEMPTS, k) for _, c in tasks]
    hat = [math.comb(c, k) / math.comb(ATTEMPTS, k) for _, c in tasks]
    for name, values in (("pass_at_k", at), ("pass_hat_k", hat)):
        mean, se = _mean_and_se(values)
        out[name], (out[f"{name}_ci_low"], out[f"{name}_ci_high"]) = mean, _interval(mean, se, len(tasks))
    return out


def _assert_close(got: dict, expected: dict, where) -> None:
    for column, value in expected.items():
        if value is None:
            assert got[column] is None, (where, column, got[column])
        else:
            assert got[column] is not None and abs(got[column] - value) <= TOLERANCE, (where, column, got, value)


# -- the hand-made eval ------------------------------------------------------------------------------------------

def _attempts(evaluation: str, model: str, task: str, attempts: int, successes: int) -> list[dict]:
    """One run's attempts at a task, the first `successes` of them passed."""
    return [
        instance_record(
            evaluation_id=f"{evaluation}/{model}/run-1", model_id=model, evaluation_name=evaluation, sample_id=task,
            evaluation={"score": 1.0 if trial <= successes else 0.0, "is_correct": trial <= successes},
            metadata={"trial": str(trial), "metric_id": "accuracy"})
        for trial in range(1, attempts + 1)
    ]


@pytest.fixture(scope="module")
def few_tasks(tmp_path_factory) -> Warehouse:
    root: Path = tmp_path_factory.mktemp("pass_at_k_intervals")
    records = [record for model, tasks in TASKS.items() for task, successes in tasks
               for record in _attempts(EVAL, model, task, ATTEMPTS, successes)]
    records += [record for task, attempts, successes in UNEVEN_TASKS
                for record in _attempts(UNEVEN_EVAL, UNEVEN, task, attempts, successes)]
    warehouse = Warehouse(built_warehouse_path(root))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("ingest.pipeline._now", lambda: INGESTED_AT)  # the runs' week: their file's ingest time
        assert warehouse.ingest(write_lines(root / "trials.jsonl", records)).quarantined == 0
    warehouse.build(*MARTS, target_path=root / "target")
    return warehouse


COLUMNS = ("pass_at_k", "pass_at_k_ci_low", "pass_at_k_ci_high", "pass_hat_k", "pass_hat_k_ci_low",
           "pass_hat_k_ci_high")


def _rows(warehouse: Warehouse, sql: str) -> dict[tuple, dict]:
    frame = warehouse.frame(sql)
    return {(row["model_id"], int(row["k"])): {c: (None if row[c] != row[c] else float(row[c])) for c in COLUMNS}
            for row in frame.to_dict("records")}


def test_every_task_passed_on_three_tasks_is_wilsons_interval_on_three_not_a_point(few_tasks):
    for mart in ("fct_pass_at_k", "fct_pass_at_k_weekly"):
        got = _rows(few_tasks, f"select * from marts.{mart} where evaluation_name = '{EVAL}'")
        assert set(got) == {(m, k) for m in TASKS for k in (1, 2, 4)}, mart
        for k in (1, 2, 4):
            row = got[(ALL_PASSED, k)]
            # 3 of 3: (3 + z^2/2 - z sqrt(z^2/4)) / (3 + z^2) = 3 / (3 + z^2), 0.438; the old interval was [1, 1]
            assert row["pass_at_k"] == 1 and row["pass_hat_k"] == 1, (mart, k, row)
            for name in ("pass_at_k", "pass_hat_k"):
                assert abs(row[f"{name}_ci_low"] - 3 / (3 + Z**2)) <= TOLERANCE, (mart, k, name, row)
                assert abs(row[f"{name}_ci_high"] - 1) <= TOLERANCE, (mart, k, name, row)


def test_few_tasks_intervals_are_wilsons_on_the_effective_number_of_tasks(few_tasks):
    """The mixed model's tasks spread (n_eff from the SE, not n_tasks); the lone task has no SE (Wilson's on 1);
    the all-passed model has SE 0 (Wilson's on 3). Every k, both marts."""
    for mart in ("fct_pass_at_k", "fct_pass_at_k_weekly"):
        got = _rows(few_tasks, f"select * from marts.{mart} where evaluation_name = '{EVAL}'")
        for (model, k), row in got.items():
            _assert_close(row, _expected(model, k), (mart, model, k))
    # the mixed model's pass@2 leaves 0 and 1 and has an SE: the effective n is not the 3 tasks
    mixed = _expected(MIXED, 2)
    assert 0 < mixed["pass_at_k"] < 1
    on_three = _wilson(mixed["pass_at_k"], 3)
    assert abs(mixed["pass_at_k_ci_low"] - on_three[0]) > 1e-3


def test_the_weekly_changes_carry_the_weekly_marts_interval_at_pass_k(few_tasks):
    got = _rows(few_tasks, "select *, pass_k as k from marts.rpt_weekly_model_changes "
                           f"where evaluation_name = '{EVAL}' and week_start = date '{WEEK}'")
    assert set(got) == {(m, ATTEMPTS) for m in TASKS}  # the largest k every task reached: 4
    for (model, k), row in got.items():
        _assert_close(row, _expected(model, k), ("rpt_weekly_model_changes", model))
    sql = "select model_id, pass_hat_k_se from marts.{} where evaluation_name = ? and {} = ?"
    assert (dict(few_tasks.rows(sql.format("rpt_weekly_model_changes", "pass_k"), [EVAL, ATTEMPTS]))
            == dict(few_tasks.rows(sql.format("fct_pass_at_k_weekly", "k"), [EVAL, ATTEMPTS])))


def test_at_a_k_one_task_did_not_reach_every_estimate_is_null_not_a_mean_over_the_others(few_tasks):
    """u2 made 2 attempts: at k = 4 the eval has no pass@k (a mean over u1 and u3 alone would be an easier
    population), nor at 6 (u1's attempts, a k of its own though no power of two), and n_tasks_with_enough_trials
    says why; at k = 1 and 2 every task counts. The weekly change report takes the largest k every task reached, 2."""
    estimates = [*COLUMNS, "pass_at_k_se", "pass_hat_k_se"]
    for mart in ("fct_pass_at_k", "fct_pass_at_k_weekly"):
        frame = few_tasks.frame(f"select * from marts.{mart} where evaluation_name = '{UNEVEN_EVAL}' order by k")
        assert frame.k.tolist() == [1, 2, 4, 6] and (frame.n_tasks == 3).all(), mart
        assert frame.n_tasks_with_enough_trials.tolist() == [3, 3, 2, 1], mart
        for row in frame[frame.k >= 4].itertuples():
            assert all(pd.isna(getattr(row, name)) for name in estimates), (mart, row)
        for k in (1, 2):
            row = frame[frame.k == k].iloc[0]
            at = np.mean([1 - math.comb(n - c, k) / math.comb(n, k) for _, n, c in UNEVEN_TASKS])
            hat = np.mean([math.comb(c, k) / math.comb(n, k) for _, n, c in UNEVEN_TASKS])
            assert abs(row.pass_at_k - at) <= TOLERANCE and abs(row.pass_hat_k - hat) <= TOLERANCE, (mart, k)
    assert few_tasks.rows("select pass_k from marts.rpt_weekly_model_changes where evaluation_name = ?",
                          [UNEVEN_EVAL]) == [(2,)]


# -- the demo warehouse ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("mart", ["fct_pass_at_k", "fct_pass_at_k_weekly"])
def test_demo_intervals_are_wilsons_on_the_effective_number_of_tasks(demo_warehouse, mart):
    """Every row, both estimates, from the row's mean, SE and n_tasks (each held against exact fractions in
    tests/models/test_marts.py); NULL exactly where the estimate is."""
    frame = demo_warehouse.frame(f"select * from marts.{mart}")
    compared = at_one = 0
    for row in frame.to_dict("records"):
        for name in ("pass_at_k", "pass_hat_k"):
            mean = None if row[name] != row[name] else row[name]
            low, high = _interval(mean, row[f"{name}_se"], row["n_tasks"])
            got_low, got_high = row[f"{name}_ci_low"], row[f"{name}_ci_high"]
            if low is None:
                assert got_low != got_low and got_high != got_high, (mart, row)  # NaN: NULL
                continue
            assert abs(got_low - low) <= TOLERANCE and abs(got_high - high) <= TOLERANCE, (mart, name, row, low, high)
            assert got_low <= mean + 1e-12 and mean <= got_high + 1e-12
            compared += 1
            if mean == 1:
                assert got_low < 1 - 1e-3, (mart, row)  # every task passed: an interval, not the point 1
                at_one += 1
    assert compared > 100 and at_one > 0, (compared, at_one)


def test_demo_weekly_changes_carry_the_weekly_marts_intervals(demo_warehouse):
    wrong = demo_warehouse.scalar(
        """
        select count(*)
        from marts.rpt_weekly_model_changes as changes
        left join marts.fct_pass_at_k_weekly as weekly
            on changes.model_id = weekly.model_id
            and changes.evaluation_name = weekly.evaluation_name
            and changes.trial_metric = weekly.trial_metric
            and changes.week_start = weekly.week_start
            and changes.pass_k = weekly.k
        where changes.pass_at_k_ci_low is distinct from weekly.pass_at_k_ci_low
            or changes.pass_at_k_ci_high is distinct from weekly.pass_at_k_ci_high
            or changes.pass_hat_k_se is distinct from weekly.pass_hat_k_se
            or changes.pass_hat_k_ci_low is distinct from weekly.pass_hat_k_ci_low
            or changes.pass_hat_k_ci_high is distinct from weekly.pass_hat_k_ci_high
        """)
    carried = demo_warehouse.scalar(
        "select count(*) from marts.rpt_weekly_model_changes where pass_at_k_ci_low is not null")
    assert wrong == 0 and carried > 0
