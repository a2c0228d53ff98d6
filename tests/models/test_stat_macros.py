"""The statistics macros (macros/stats) against their reference implementations, to 1e-9, NULL where undefined.

The test writes seeded random inputs (hundreds of groups per macro, edge cases included) into a temporary DuckDB
file, builds the probe project tests/dbt_probe once (its models call the real macros through macro-paths) and
holds every row against krippendorff, sklearn, exact fractions or the closed-form formulas.
"""

from __future__ import annotations

import math
import os
import warnings
from collections import defaultdict
from fractions import Fraction
from pathlib import Path

import duckdb
import krippendorff
import numpy as np
import pyarrow as pa
import pytest
from sklearn.metrics import cohen_kappa_score

from tests.models.bootstrap_oracle import alpha_or_none, bootstrap_interval, poisson_draw

PROBE_PROJECT = Path(__file__).resolve().parents[1] / "dbt_probe"
TOLERANCE = 1e-9
LEVELS = ("nominal", "ordinal", "interval", "ratio")
KAPPA_WEIGHTS = {"unweighted": None, "linear": "linear", "quadratic": "quadratic"}
LABELS = [1, 2, 3, 4, 5]
LARGE_K_VALUES = [1, 2, 3, 7, 100, 1000, 4096, 5000, 9999, 10000, 10001]

pytestmark = pytest.mark.slow


# ---------------------------------------------------------------------------------------------------- inputs


def _alpha_ratings(rng: np.random.Generator) -> list[tuple]:
    """(group_id, unit_id, rater_id, value) rows: 240 random groups plus the edge cases, value NULL = missing."""
    rows: list[tuple] = []

    def add(group, matrix):  # matrix: raters x units, None for a missing rating
        for r, ratings in enumerate(matrix):
            for u, value in enumerate(ratings):
                rows.append((group, f"u{u}", f"r{r}", value))

    add(1, [[1.0, None, None], [None, 2.0, None], [None, None, 3.0]])  # no pairable unit: no row
    add(2, [[3.0, 3.0, 3.0], [3.0, 3.0, None]])  # one category only: NULL
    add(3, [[3.0, 3.0, 5.0], [3.0, 3.0, None]])  # pairable values constant, an unpairable 5: NULL
    add(4, [[1.0, 4.0], [2.0, None]])  # one pairable unit with two values
    add(5, [[0.0, 0.0, 2.0], [0.0, 1.0, 2.0]])  # zeros (ratio distance with c + k = 0)
    add(None, [[1.0, 2.0, 3.0, 4.0], [1.0, 3.0, 3.0, 5.0], [2.0, 2.0, None, 4.0]])  # a NULL group is a group
    for group in [0, *range(10, 250)]:
        n_raters = int(rng.integers(2, 11))
        n_units = int(rng.integers(3, 31))
        missing = rng.uniform(0.2, 0.4)
        kind = rng.choice(["scale", "scale", "continuous", "wide"]) if group else "scale"
        truth = rng.uniform(1, 5, size=n_units)
        noise = rng.uniform(0.2, 2.0)
        matrix = []
        for _ in range(n_raters):
            if kind == "continuous":
                ratings = np.abs(truth + rng.normal(0, noise, n_units)) + 0.01
            elif kind == "wide":  # a 0-100 scale: many distinct integers
                ratings = np.clip(np.round(truth * 20 + rng.normal(0, noise * 10, n_units)), 0, 100)
            else:
                ratings = np.clip(np.round(truth + rng.normal(0, noise, n_units)), 1, 5)
            mask = rng.uniform(size=n_units) < missing
            matrix.append([None if m else float(v) for v, m in zip(ratings, mask)])
        add(group, matrix)
    return rows


def _kappa_pairs(rng: np.random.Generator) -> list[tuple]:
    """(group_id, rating_a, rating_b) rows: 160 random groups plus the edge cases; 0, 6 and NULL are outside L."""
    rows: list[tuple] = []
    rows += [(1, 4, 4)] * 7  # one category only: NULL
    rows += [(2, 1, 2)] * 5  # two categories, never agreeing: kappa 0
    rows += [(3, 0, 4), (3, 6, 6), (3, None, 2)]  # every pair excluded: n_pairs 0, NULL
    rows += [(4, 2, 2)]  # a single pair
    rows += [(None, 1, 1), (None, 5, 4), (None, 3, 3), (None, 2, 1)]  # a NULL group
    for group in range(10, 170):
        n = int(rng.integers(2, 61))
        present = [label for label in LABELS if rng.uniform() > 0.25] or [3]  # some labels never used
        truth = rng.choice(present, size=n)
        a = np.where(rng.uniform(size=n) < 0.7, truth, rng.choice(present, size=n))
        b = np.where(rng.uniform(size=n) < 0.6, truth, rng.choice(present, size=n))
        for x, y in zip(a, b):
            x, y = int(x), int(y)
            if rng.uniform() < 0.05:
                x = int(rng.choice([0, 6, -1]))
            if rng.uniform() < 0.03:
                y = None
            rows.append((group, x, y))
    return rows


def _fleiss_ratings(rng: np.random.Generator) -> list[tuple]:
    """(group_id, unit_id, value) rows: 160 random groups (some complete) plus the edge cases."""
    rows: list[tuple] = []
    rows += [(1, "u1", 2), (1, "u1", 2), (1, "u2", 2), (1, "u2", 2), (1, "u2", 2)]  # one category: NULL kappa
    rows += [(2, "u1", 1), (2, "u2", 3), (2, "u3", 9)]  # no unit with 2 ratings: no row
    rows += [(None, "u1", 1), (None, "u1", 2), (None, "u2", 1), (None, "u2", 1), (None, "u2", 4)]
    rows += [(None, "u3", 0), (None, "u3", 9)]  # a unit with no value in the categories: no item
    for group in range(10, 170):
        n_units = int(rng.integers(2, 31))
        complete = group % 4 == 0
        fixed_raters = int(rng.integers(2, 9))
        prevalence = rng.dirichlet(np.ones(5) * rng.uniform(0.3, 3))
        for unit in range(n_units):
            n_ratings = fixed_raters if complete else int(rng.integers(1, 9))
            values = rng.choice(LABELS, size=n_ratings, p=prevalence)
            for value in values:
                value = int(value)
                if not complete and rng.uniform() < 0.04:
                    value = int(rng.choice([0, 9]))
                rows.append((group, f"u{unit}", value))
    return rows


def _pass_tasks(rng: np.random.Generator) -> list[tuple]:
    """(group_id, task_id, n_trials, n_correct) rows."""
    rows: list[tuple] = []

    def add(group, tasks):
        for i, (n, c) in enumerate(tasks):
            rows.append((group, f"t{i}", n, c))

    add(0, [(10, 0), (10, 10), (10, 3), (10, 7), (10, 9)])  # c = 0 and c = n
    add(1, [(3, 1), (5, 5), (8, 2), (8, 0)])  # n < k for k > 3: NULL, with n_tasks_with_enough_trials
    add(2, [(6, 4)])  # a single task: SE NULL
    add(3, [(10000, 0), (10000, 1), (10000, 37), (10000, 5000), (10000, 9999), (10000, 10000)])
    add(4, [(1, 0), (1, 1), (1, 1)])
    add(5, [(0, 0), (5, 2)])  # a task without trials: every k NULL
    add(None, [(4, 2), (4, 3)])
    for group in range(10, 70):
        n_tasks = int(rng.integers(1, 25))
        same_n = rng.uniform() < 0.5
        n0 = int(rng.integers(1, 21))
        for i in range(n_tasks):
            n = n0 if same_n else int(rng.integers(1, 21))
            rows.append((group, f"t{i}", n, int(rng.integers(0, n + 1))))
    return rows


def _task_trials() -> list[tuple]:
    """(task_id, n_trials, n_correct): every (n, c) with n <= 16, then large n."""
    rows = [(f"s{n}_{c}", n, c) for n in range(0, 17) for c in range(0, n + 1)]
    for n in (1000, 10000):
        for c in sorted({0, 1, 2, 37, n // 2, n - 2, n - 1, n}):
            rows.append((f"l{n}_{c}", n, c))
    rows.append(("missing", None, 3))
    return rows


def _proportions(rng: np.random.Generator) -> list[tuple]:
    """(case_id, successes, n, z)."""
    rows = [(0, 0, 0, 1.96), (1, 0, 10, 1.96), (2, 10, 10, 2.576), (3, 3, 10, 1.0), (4, 1, 1, 1.96),
            (5, 500, 1000, 3.0), (6, None, 10, 1.96), (7, 4, None, 1.96), (8, 1, 100000, 1.645)]
    for case in range(10, 210):
        n = int(rng.integers(1, 2000))
        rows.append((case, int(rng.integers(0, n + 1)), n, float(rng.uniform(0.5, 3.5))))
    return rows


def _bounded_means(rng: np.random.Generator) -> list[tuple]:
    """(case_id, mean, se, n, min_value, max_value, z): the edge cases, then bounded means with any SE, then
    proportions s/n with the standard error of their 0/1 values (where the interval is the plain Wilson interval on
    n)."""
    rows = [
        (0, 0.5, 0.5, 2, 0.0, 1.0, 1.96),  # 0.5 +- 1.96 * 0.5 would be [-0.48, 1.48]
        (1, 0.9, 0.1, 10, 0.0, 1.0, 1.96),  # would end at 1.096
        (2, 1.0, 0.0, 12, 0.0, 1.0, 1.96),  # at a bound, SE 0: Wilson on n
        (3, 0.0, None, 5, 0.0, 1.0, 2.576),  # SE undefined: Wilson on n
        (4, 0.5, 0.0, 8, 0.0, 1.0, 1.96),  # every value equal inside the bounds: Wilson on n
        (5, 3.1, 0.26, 12, 1.0, 5.0, 1.96),  # a 1 to 5 judge score
        (6, 1.2, 0.1, 10, 0.0, 1.0, 1.96),  # outside its bounds: NULL
        (7, 0.5, 0.1, None, 0.0, 1.0, 1.96),  # n not needed
        (8, 0.5, None, None, 0.0, 1.0, 1.96),  # neither: NULL
        (9, 0.5, 0.1, 10, 1.0, 1.0, 1.96),  # no range: NULL
        (10, None, 0.1, 10, 0.0, 1.0, 1.96),  # no mean: NULL
        (11, 0.999999, 1e-4, 40, 0.0, 1.0, 1.96),  # near a bound
        (12, -2.0, 3.0, 7, -10.0, 10.0, 1.645),
        (13, 1.0, 0.05, 10, 0.0, 1.0, 1.96),  # at a bound with an SE (a rounding one): Wilson on n, not on n_eff 0
    ]
    for case in range(20, 220):
        low, high = [(0.0, 1.0), (1.0, 5.0), (-10.0, 10.0), (0.0, 100.0)][case % 4]
        mean = float(rng.uniform(low, high))
        spread = float(rng.choice([rng.uniform(0.001, 0.01), rng.uniform(0.01, 0.5)]))  # some with many observations
        rows.append((case, mean, spread * (high - low), int(rng.integers(1, 500)), low, high,
                     float(rng.uniform(0.5, 3.5))))
    for case in range(300, 350):
        n = int(rng.integers(2, 2000))
        successes = int(rng.integers(1, n))
        p = successes / n
        # The standard error of n values scored 0 or 1, sqrt(var_samp / n): sqrt(p (1 - p) / (n - 1)).
        rows.append((case, p, math.sqrt(p * (1 - p) / (n - 1)), n, 0.0, 1.0, float(rng.uniform(0.5, 3.5))))
    return rows


def _measurements(rng: np.random.Generator) -> list[tuple]:
    """(group_id, measurement_id, x, numerator, denominator)."""
    rows = [(0, 0, None, 7, 2), (1, 1, 0.5, 1, 0), (2, 2, 0.25, 3, None), (2, 3, 0.75, None, 4), (2, 4, None, 0, 5)]
    identifier = 10
    for group in range(3, 60):
        for _ in range(int(rng.integers(1, 30))):
            x = float(rng.normal(100, 3)) if rng.uniform() > 0.1 else None
            rows.append((group, identifier, x, int(rng.integers(-50, 50)), int(rng.integers(-3, 4))))
            identifier += 1
    return rows


def _unit_outcomes(rng: np.random.Generator) -> list[tuple]:
    """(group_id, unit_id, a, b) ratings: 120 random groups plus the edge cases; a in {0, 1}, b in {0, 0.5, 1}."""
    rows = [(1, "u1", 1.0, None)]  # one unit, one rating: Wilson of 1 in 1; b has no unit at all: NULL
    rows += [(2, f"u{u}", float(u % 2), 1.0) for u in range(6)]  # one rating per unit: Wilson over units
    rows += [(3, f"u{u}", 0.0, 0.0) for u in range(4) for _ in range(5)]  # every share 0: the interval stays open
    rows += [(4, "u1", 1.0, 0.5), (4, "u1", 1.0, 0.5), (4, "u1", 0.0, 1.0), (4, "u2", 0.0, None)]  # fractions
    rows += [(None, "u1", 1.0, 1.0), (None, "u2", 0.0, 0.5), (None, "u2", 1.0, None)]  # a NULL group is a group
    for group in range(10, 130):
        for unit in range(int(rng.integers(1, 25))):
            p = rng.uniform()
            for _ in range(int(rng.integers(1, 7))):
                a = float(rng.uniform() < p) if rng.uniform() > 0.1 else None
                b = float(rng.choice([0.0, 0.5, 1.0])) if rng.uniform() > 0.2 else None
                rows.append((group, f"u{unit}", a, b))
    return rows


BOOT_SEED = 20260512  # the bootstrap macros' default seed, the first part of every draw's md5 key
BOOT_RATES = [1, 2, 3, 5, 10, 37, 100, 1000, 6000]


def _boot_classes() -> list[tuple]:
    """(group_id, class_id, class_size): one group per rate, two classes each (their draws must differ)."""
    return [(group, f"c{k}", rate) for group, rate in enumerate(BOOT_RATES) for k in (1, 2)]


def _coverage_population(rng: np.random.Generator, n_units: int) -> list[list[float]]:
    """Three raters x n_units on a 1-5 scale: a unit's true score, each rater off by one a quarter of the time."""
    truth = rng.integers(1, 6, n_units)
    return [list(np.clip(truth + rng.choice([-1, 0, 0, 0, 0, 0, 1, 1], n_units), 1, 5).astype(float))
            for _ in range(3)]


def _coverage_ratings(rng: np.random.Generator) -> list[tuple]:
    """150 samples of 30 units from the population above: (group_id, unit_id, rater_id, value)."""
    rows = []
    for group in range(150):
        for r, ratings in enumerate(_coverage_population(rng, 30)):
            rows.extend((group, f"u{u:02d}", f"r{r}", v) for u, v in enumerate(ratings))
    return rows


# --------------------------------------------------------------------------------------------- the build


def _write_table(con, name: str, columns: list[str], types: list[pa.DataType], rows: list[tuple]) -> None:
    arrays = [pa.array([row[i] for row in rows], type=types[i]) for i in range(len(columns))]
    con.register("input_rows", pa.Table.from_arrays(arrays, names=columns))
    con.execute(f"create table main.{name} as select * from input_rows")
    con.unregister("input_rows")


class Probe:
    """The inputs, and the probe project's models read back after one dbt build."""

    def __init__(self, db_path: Path, inputs: dict[str, list[tuple]]) -> None:
        self.db_path = db_path
        self.inputs = inputs

    def rows(self, sql: str) -> list[tuple]:
        with duckdb.connect(str(self.db_path), read_only=True) as con:
            return con.execute(sql).fetchall()

    def dicts(self, model: str) -> list[dict]:
        with duckdb.connect(str(self.db_path), read_only=True) as con:
            cursor = con.execute(f"select * from main.{model}")
            names = [d[0] for d in cursor.description]
            return [dict(zip(names, row)) for row in cursor.fetchall()]


@pytest.fixture(scope="module")
def probe(tmp_path_factory) -> Probe:
    from dbt.cli.main import dbtRunner

    rng = np.random.default_rng(20260512)
    work = tmp_path_factory.mktemp("stat_macros")
    db_path = work / "probe.duckdb"
    inputs = {
        "alpha_ratings": _alpha_ratings(rng),
        "kappa_pairs": _kappa_pairs(rng),
        "fleiss_ratings": _fleiss_ratings(rng),
        "pass_tasks": _pass_tasks(rng),
        "task_trials": _task_trials(),
        "proportions": _proportions(rng),
        "bounded_means": _bounded_means(rng),
        "measurements": _measurements(rng),
        "unit_outcomes": _unit_outcomes(rng),
        "boot_classes": _boot_classes(),
        "coverage_ratings": _coverage_ratings(np.random.default_rng(BOOT_SEED)),
    }
    i64, f64, text = pa.int64(), pa.float64(), pa.string()
    with duckdb.connect(str(db_path)) as con:
        _write_table(con, "alpha_ratings", ["group_id", "unit_id", "rater_id", "value"], [i64, text, text, f64],
                     inputs["alpha_ratings"])
        _write_table(con, "kappa_pairs", ["group_id", "rating_a", "rating_b"], [i64, i64, i64], inputs["kappa_pairs"])
        _write_table(con, "fleiss_ratings", ["group_id", "unit_id", "value"], [i64, text, i64],
                     inputs["fleiss_ratings"])
        _write_table(con, "pass_tasks", ["group_id", "task_id", "n_trials", "n_correct"], [i64, text, i64, i64],
                     inputs["pass_tasks"])
        _write_table(con, "task_trials", ["task_id", "n_trials", "n_correct"], [text, i64, i64], inputs["task_trials"])
        _write_table(con, "proportions", ["case_id", "successes", "n", "z"], [i64, i64, i64, f64],
                     inputs["proportions"])
        _write_table(con, "bounded_means", ["case_id", "mean", "se", "n", "min_value", "max_value", "z"],
                     [i64, f64, f64, i64, f64, f64, f64], inputs["bounded_means"])
        _write_table(con, "measurements", ["group_id", "measurement_id", "x", "numerator", "denominator"],
                     [i64, i64, f64, i64, i64], inputs["measurements"])
        _write_table(con, "unit_outcomes", ["group_id", "unit_id", "a", "b"], [i64, text, f64, f64],
                     inputs["unit_outcomes"])
        _write_table(con, "boot_classes", ["group_id", "class_id", "class_size"], [i64, text, i64],
                     inputs["boot_classes"])
        _write_table(con, "coverage_ratings", ["group_id", "unit_id", "rater_id", "value"], [i64, text, text, f64],
                     inputs["coverage_ratings"])

    (work / "profiles.yml").write_text(
        "evalhouse_probe:\n  target: duckdb\n  outputs:\n    duckdb:\n      type: duckdb\n"
        f"      path: '{db_path}'\n      keep_open: false\n      threads: 4\n"
    )
    saved = os.environ.get("DBT_LOG_PATH")
    os.environ["DBT_LOG_PATH"] = str(work / "logs")
    try:
        result = dbtRunner().invoke([
            "build", "--project-dir", str(PROBE_PROJECT), "--profiles-dir", str(work),
            "--target-path", str(work / "target"), "--quiet", "--warn-error",
        ])
    finally:
        if saved is None:
            os.environ.pop("DBT_LOG_PATH", None)
        else:
            os.environ["DBT_LOG_PATH"] = saved
    failures = [f"{r.node.unique_id}: {r.message}" for r in (result.result or [])
                if str(r.status) in ("error", "fail", "runtime error")]
    assert result.success and not failures, (result.exception, failures)
    return Probe(db_path, inputs)


# ------------------------------------------------------------------------------------------------ oracles


def _close(got, expected, tolerance: float = TOLERANCE) -> bool:
    """Equal within tolerance, or both NULL (None and NaN both mean undefined on the oracle's side)."""
    expected_null = expected is None or (isinstance(expected, float) and math.isnan(expected))
    if got is None or expected_null:
        return got is None and expected_null
    return abs(got - expected) <= tolerance


def _max_difference(pairs) -> float:
    return max((abs(g - e) for g, e in pairs if g is not None and e is not None), default=0.0)


def _alpha_groups(rows):
    groups: dict = defaultdict(list)
    for group, unit, rater, value in rows:
        groups[group].append((unit, rater, value))
    return groups


def _alpha_oracle(ratings, level: str):
    units = sorted({u for u, _, _ in ratings})
    raters = sorted({r for _, r, _ in ratings})
    matrix = np.full((len(raters), len(units)), np.nan)
    for unit, rater, value in ratings:
        if value is not None:
            matrix[raters.index(rater), units.index(unit)] = value
    return alpha_or_none(matrix, level)


def _alpha_sizes(ratings):
    by_unit: dict = defaultdict(list)
    for unit, rater, value in ratings:
        if value is not None:
            by_unit[unit].append(rater)
    pairable = {u: rs for u, rs in by_unit.items() if len(rs) >= 2}
    return len(pairable), sum(map(len, pairable.values())), len({r for rs in pairable.values() for r in rs})


def _kappa_oracle(pairs, weights):
    kept = [(a, b) for a, b in pairs if a in LABELS and b in LABELS]
    if not kept:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = cohen_kappa_score([a for a, _ in kept], [b for _, b in kept], labels=LABELS, weights=weights)
    return None if math.isnan(value) else float(value)


def _fleiss_oracle(ratings, categories=LABELS):
    """p_a, pi_k, Fleiss' kappa and AC1 by the STATS.md formulas, in numpy, over units with >= 2 ratings."""
    by_unit: dict = defaultdict(list)
    for unit, value in ratings:
        if value in categories:
            by_unit[unit].append(value)
    counts = np.array([[vs.count(k) for k in categories] for vs in by_unit.values() if len(vs) >= 2], dtype=float)
    if len(counts) == 0:
        return None
    r = counts.sum(axis=1)
    p_a = np.mean((counts * (counts - 1)).sum(axis=1) / (r * (r - 1)))
    pi = (counts / r[:, None]).mean(axis=0)
    p_e_fleiss = float((pi**2).sum())
    p_e_ac1 = float((pi * (1 - pi)).sum() / (len(categories) - 1))
    fleiss = None if p_e_fleiss == 1 else (p_a - p_e_fleiss) / (1 - p_e_fleiss)
    return len(counts), fleiss, (p_a - p_e_ac1) / (1 - p_e_ac1), counts


def _textbook_fleiss(counts: np.ndarray) -> float:
    """Fleiss (1971) on a complete units x categories count table, as statsmodels' fleiss_kappa computes it."""
    n_units, _ = counts.shape
    n_raters = counts.sum(axis=1)[0]
    p_j = counts.sum(axis=0) / (n_units * n_raters)
    p_i = ((counts * counts).sum(axis=1) - n_raters) / (n_raters * (n_raters - 1))
    p_bar, p_bar_e = p_i.mean(), (p_j * p_j).sum()
    return (p_bar - p_bar_e) / (1 - p_bar_e)


def _exact_pass(n: int, c: int, k: int) -> tuple[Fraction | None, Fraction | None]:
    if n < k:
        return None, None
    total = math.comb(n, k)
    return 1 - Fraction(math.comb(n - c, k), total), Fraction(math.comb(c, k), total)


def _mean_and_se(values: list[Fraction]):
    mean = sum(values, Fraction(0)) / len(values)
    if len(values) < 2:
        return float(mean), None
    variance = sum(((v - mean) ** 2 for v in values), Fraction(0)) / (len(values) - 1)
    return float(mean), math.sqrt(variance / len(values))


def _wilson(successes, n, z):
    if successes is None or not n:
        return None, None
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def _wilson_from_se(mean, se, n, low, high, z):
    """The Wilson interval on the effective sample size (mean - low)(high - mean) / se^2 * n / (n - 1), on [low,
    high] (se is var_samp's: the factor puts back the binomial variance's n)."""
    if mean is None or low is None or high is None or high <= low or not low <= mean <= high:
        return None, None
    bessel = n / (n - 1) if n is not None and n > 1 else 1
    effective_n = (mean - low) * (high - mean) / se ** 2 * bessel if se and low < mean < high else n
    if not effective_n:
        return None, None
    p = (mean - low) / (high - low)
    lower, upper = _wilson(p * effective_n, effective_n, z)
    return low + (high - low) * lower, low + (high - low) * upper


# -------------------------------------------------------------------------------------------------- tests


@pytest.mark.parametrize("level", LEVELS)
def test_krippendorff_alpha_equals_the_krippendorff_package(probe, level):
    groups = _alpha_groups(probe.inputs["alpha_ratings"])
    got = {row["group_id"]: row for row in probe.dicts(f"alpha_{level}")}
    expected_groups = {g for g, ratings in groups.items() if _alpha_sizes(ratings)[0] > 0}
    assert set(got) == expected_groups  # a group without a pairable unit has no row
    assert 1 not in got and None in got
    compared = []
    for group, ratings in groups.items():
        if group not in got:
            continue
        row, expected = got[group], _alpha_oracle(ratings, level)
        assert (row["n_units"], row["n_pairable_values"], row["n_raters"]) == _alpha_sizes(ratings), group
        assert _close(row["alpha"], expected), (level, group, row["alpha"], expected)
        compared.append((row["alpha"], expected))
    assert got[2]["alpha"] is None and got[3]["alpha"] is None  # no expected disagreement
    assert sum(e is not None for _, e in compared) > 200
    print(f"alpha {level}: max |diff| {_max_difference(compared):.2e} over {len(compared)} groups")


def _assert_alpha_equals_the_package(got: dict, groups: dict, level: str, at_least: int) -> float:
    """Rows of a two-step alpha probe model (one per group with a pairable unit) against krippendorff.alpha:
    the same groups, the same pairable values, alpha within TOLERANCE. Returns the largest difference."""
    assert set(got) == {g for g, ratings in groups.items() if _alpha_sizes(ratings)[0] > 0}
    compared = []
    for group, row in got.items():
        expected = _alpha_oracle(groups[group], level)
        assert row["n_pairable_values"] == _alpha_sizes(groups[group])[1], group
        assert _close(row["alpha"], expected), (level, group, row["alpha"], expected)
        compared.append((row["alpha"], expected))
    assert got[2]["alpha"] is None and got[3]["alpha"] is None  # no expected disagreement
    assert sum(e is not None for _, e in compared) > at_least
    return _max_difference(compared)


@pytest.mark.parametrize("level", LEVELS)
def test_alpha_from_coincidences_equals_the_krippendorff_package(probe, level):
    """The two-step alpha (coincidence matrix, then alpha) from the ratings, against the package."""
    groups = _alpha_groups(probe.inputs["alpha_ratings"])
    got = {row["group_id"]: row for row in probe.dicts(f"alpha_coincidences_{level}")}
    difference = _assert_alpha_equals_the_package(got, groups, level, at_least=200)
    print(f"alpha from coincidences {level}: max |diff| {difference:.2e} over {len(got)} groups")


def _on_the_five_point_scale(ratings) -> bool:
    values = [v for _, _, v in ratings if v is not None]
    return bool(values) and all(v in LABELS for v in values)


@pytest.mark.parametrize("level", LEVELS)
def test_alpha_from_tallies_equals_the_krippendorff_package(probe, level):
    """alpha from per-unit tallies (agreement_tally_sums, tally_coincidences), the agreement mart's path, against
    the package on every group rated on the 1-5 scale."""
    groups = {g: rs for g, rs in _alpha_groups(probe.inputs["alpha_ratings"]).items() if _on_the_five_point_scale(rs)}
    got = {row["group_id"]: row for row in probe.dicts("tally_alpha") if row["level"] == level}
    assert {2, 3, 4, None} <= set(got)  # the edge cases: one category, an unpairable value, one unit, a NULL group
    difference = _assert_alpha_equals_the_package(got, groups, level, at_least=60)
    print(f"alpha from tallies {level}: max |diff| {difference:.2e} over {len(got)} groups")


def test_fleiss_and_pair_counts_from_tallies_equal_the_formulas(probe):
    """Fleiss' kappa and AC1 from per-unit tallies (tally_fleiss_sums) against the formulas, and the tallies'
    pair counts (percent agreement's terms) against counting the pairs; n_items counts the units with a value in
    the categories (a unit with none has m = 0)."""
    ratings: dict = defaultdict(list)
    for group, unit, value in probe.inputs["fleiss_ratings"]:
        ratings[group].append((unit, value))
    got = {row["group_id"]: row for row in probe.dicts("tally_fleiss")}
    assert set(got) == {g for g, rs in ratings.items() if _fleiss_oracle(rs) is not None}
    for group, row in got.items():
        n_units, fleiss, ac1, counts = _fleiss_oracle(ratings[group])
        assert row["n_units"] == row["tallied_units"] == n_units, group
        assert _close(row["fleiss_kappa"], fleiss) and _close(row["gwet_ac1"], ac1), (group, row, fleiss, ac1)
        per_unit = counts.sum(axis=1)
        assert row["n_pairable_ratings"] == per_unit.sum(), group
        assert row["agreeing_pairs"] == (counts * (counts - 1)).sum(), group
        assert row["all_pairs"] == (per_unit * (per_unit - 1)).sum(), group
        assert row["n_items"] == len({unit for unit, value in ratings[group] if value in LABELS}), group
    assert got[None]["n_items"] == 2  # u3 has no value in the categories
    assert got[1]["fleiss_kappa"] is None and len(got) > 150


def _pairs_of_groups(rows, key):
    """Groups 10 and 11, 12 and 13, ... merged into pair group // 2, each unit kept apart by its group's name."""
    merged: dict = defaultdict(list)
    for row in rows:
        group = row[0]
        if group is not None and group >= 10:
            merged[group // 2].append(key(row))
    return merged


def test_summed_coincidences_give_the_alpha_of_the_union_of_groups(probe):
    """Weekly matrices summed give the all-time alpha: the union of groups that share no unit."""
    merged = _pairs_of_groups(probe.inputs["alpha_ratings"], lambda r: (f"{r[0]}/{r[1]}", r[2], r[3]))
    got = {row["pair_id"]: row["alpha"] for row in probe.dicts("alpha_coincidences_summed")}
    assert set(got) == {p for p, ratings in merged.items() if _alpha_sizes(ratings)[0] > 0}
    for pair, alpha in got.items():
        expected = _alpha_oracle(merged[pair], "ordinal")
        assert _close(alpha, expected), (pair, alpha, expected)
    assert sum(alpha is not None for alpha in got.values()) > 100


def test_summed_fleiss_category_sums_give_the_statistics_of_the_union_of_groups(probe):
    merged = _pairs_of_groups(probe.inputs["fleiss_ratings"], lambda r: (f"{r[0]}/{r[1]}", r[2]))
    got = {row["pair_id"]: row for row in probe.dicts("fleiss_summed")}
    assert set(got) == {p for p, ratings in merged.items() if _fleiss_oracle(ratings) is not None}
    for pair, row in got.items():
        n_units, fleiss, ac1, _ = _fleiss_oracle(merged[pair])
        assert row["n_units"] == n_units, pair
        assert _close(row["fleiss_kappa"], fleiss) and _close(row["gwet_ac1"], ac1), (pair, row, fleiss, ac1)
    assert len(got) > 50


def test_krippendorff_alpha_works_as_a_cte_without_grouping_columns(probe):
    got = {row["input_name"]: row for row in probe.dicts("alpha_ungrouped")}
    assert set(got) == {"ratings"}  # the input without a pairable unit gives no row, not a row of NULLs
    ratings = _alpha_groups(probe.inputs["alpha_ratings"])[0]
    assert _close(got["ratings"]["alpha"], _alpha_oracle(ratings, "ordinal"))
    assert got["ratings"]["n_units"] == _alpha_sizes(ratings)[0]


def test_ordinal_alpha_differs_from_interval_alpha(probe):
    ordinal = {row["group_id"]: row["alpha"] for row in probe.dicts("alpha_ordinal")}
    interval = {row["group_id"]: row["alpha"] for row in probe.dicts("alpha_interval")}
    assert sum(1 for g in ordinal if ordinal[g] is not None and abs(ordinal[g] - interval[g]) > 1e-3) > 100


@pytest.mark.parametrize("weights", KAPPA_WEIGHTS)
def test_cohen_kappa_equals_sklearn_with_the_declared_labels(probe, weights):
    pairs: dict = defaultdict(list)
    for group, a, b in probe.inputs["kappa_pairs"]:
        pairs[group].append((a, b))
    got = {row["group_id"]: row for row in probe.dicts(f"kappa_{weights}")}
    assert set(got) == set(pairs)
    compared = []
    for group, group_pairs in pairs.items():
        row = got[group]
        kept = [(a, b) for a, b in group_pairs if a in LABELS and b in LABELS]
        assert (row["n_pairs"], row["n_excluded"]) == (len(kept), len(group_pairs) - len(kept)), group
        agreement = sum(a == b for a, b in kept) / len(kept) if kept else None
        assert _close(row["observed_agreement"], agreement), group
        expected = _kappa_oracle(group_pairs, KAPPA_WEIGHTS[weights])
        assert _close(row["kappa"], expected), (weights, group, row["kappa"], expected)
        compared.append((row["kappa"], expected))
    assert got[1]["kappa"] is None and got[3]["kappa"] is None and got[3]["n_pairs"] == 0
    assert got[2]["kappa"] == 0
    print(f"kappa {weights}: max |diff| {_max_difference(compared):.2e} over {len(compared)} groups")


def test_weighted_kappa_uses_the_declared_labels_not_the_labels_seen(probe):
    """With label 3 never used, positions from the data would shift 4 and 5: the declared list keeps them."""
    pairs: dict = defaultdict(list)
    for group, a, b in probe.inputs["kappa_pairs"]:
        pairs[group].append((a, b))
    got = {row["group_id"]: row["kappa"] for row in probe.dicts("kappa_linear")}
    differing = 0
    for group, group_pairs in pairs.items():
        kept = [(a, b) for a, b in group_pairs if a in LABELS and b in LABELS]
        seen = sorted({v for pair in kept for v in pair})
        if len(seen) < 2 or seen == list(range(seen[0], seen[-1] + 1)):
            continue
        inferred = cohen_kappa_score([a for a, _ in kept], [b for _, b in kept], weights="linear")
        differing += abs(inferred - got[group]) > 1e-6
    assert differing > 10


def test_fleiss_kappa_and_gwet_ac1_equal_the_formulas(probe):
    ratings: dict = defaultdict(list)
    for group, unit, value in probe.inputs["fleiss_ratings"]:
        ratings[group].append((unit, value))
    got = {row["group_id"]: row for row in probe.dicts("fleiss")}
    expected_groups = {g for g, rs in ratings.items() if _fleiss_oracle(rs) is not None}
    assert set(got) == expected_groups and 2 not in got
    compared, textbook = [], []
    for group in expected_groups:
        n_units, fleiss, ac1, counts = _fleiss_oracle(ratings[group])
        row = got[group]
        assert row["n_units"] == n_units
        assert _close(row["fleiss_kappa"], fleiss), (group, row, fleiss)
        assert _close(row["gwet_ac1"], ac1), (group, row, ac1)
        compared += [(row["fleiss_kappa"], fleiss), (row["gwet_ac1"], ac1)]
        if group is not None and group % 4 == 0 and fleiss is not None:  # complete data
            assert _close(row["fleiss_kappa"], _textbook_fleiss(counts))
            textbook.append((row["fleiss_kappa"], _textbook_fleiss(counts)))
    assert got[1]["fleiss_kappa"] is None and got[1]["gwet_ac1"] == 1
    assert len(textbook) > 30
    print(f"fleiss/ac1: max |diff| {_max_difference(compared):.2e}; textbook {_max_difference(textbook):.2e}")


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_krippendorff_alpha_on_counted_values_equals_alpha_on_single_ratings(probe, level):
    """weight= lets a mart count (unit, value) once and pass the counts: the statistic must not move."""
    single = {row["group_id"]: row for row in probe.dicts(f"alpha_{level}")}
    counted = {row["group_id"]: row for row in probe.dicts(f"alpha_weighted_{level}")}
    assert set(counted) == set(single)
    for group, row in single.items():
        other = counted[group]
        assert (other["n_units"], other["n_pairable_values"]) == (row["n_units"], row["n_pairable_values"]), group
        assert other["n_raters"] is None  # counts carry no rater identity
        assert _close(other["alpha"], row["alpha"], 1e-12), (level, group, other["alpha"], row["alpha"])


def test_fleiss_kappa_on_counted_values_equals_fleiss_on_single_ratings(probe):
    single = {row["group_id"]: row for row in probe.dicts("fleiss")}
    counted = {row["group_id"]: row for row in probe.dicts("fleiss_weighted")}
    assert set(counted) == set(single)
    for group, row in single.items():
        other = counted[group]
        assert other["n_units"] == row["n_units"], group
        assert _close(other["fleiss_kappa"], row["fleiss_kappa"], 1e-12), (group, other, row)
        assert _close(other["gwet_ac1"], row["gwet_ac1"], 1e-12), (group, other, row)


def _expected_k_values(max_n: int, cap: int | None = None) -> list[int]:
    limit = min(max_n, cap) if cap is not None else max_n
    ks = [2**j for j in range(64) if 2**j <= limit]
    return sorted(set(ks + ([limit] if limit >= 1 else [])))


@pytest.mark.parametrize("model, cap", [("pass_at_k", None), ("pass_at_k_capped", 5)])
def test_pass_at_k_per_group_equals_exact_fractions(probe, model, cap):
    tasks: dict = defaultdict(list)
    for group, _, n, c in probe.inputs["pass_tasks"]:
        tasks[group].append((n, c))
    got = {(row["group_id"], row["k"]): row for row in probe.dicts(model)}
    expected_keys = {(g, k) for g, ts in tasks.items() for k in _expected_k_values(max(n for n, _ in ts), cap)}
    assert set(got) == expected_keys
    compared = []
    for (group, k), row in got.items():
        group_tasks = tasks[group]
        assert row["n_tasks"] == len(group_tasks)
        assert row["n_tasks_with_enough_trials"] == sum(n >= k for n, _ in group_tasks)
        if any(n < k for n, _ in group_tasks):
            assert all(row[c] is None for c in ("pass_at_k", "pass_at_k_se", "pass_hat_k", "pass_hat_k_se")), row
            continue
        exact = [_exact_pass(n, c, k) for n, c in group_tasks]
        for column, values in (("pass_at_k", [e[0] for e in exact]), ("pass_hat_k", [e[1] for e in exact])):
            mean, se = _mean_and_se(values)
            assert _close(row[column], mean), (group, k, column, row[column], mean)
            assert _close(row[f"{column}_se"], se), (group, k, column, row[f"{column}_se"], se)
            compared += [(row[column], mean), (row[f"{column}_se"], se)]
    assert got[(2, 1)]["pass_at_k_se"] is None  # one task
    largest_k = 8 if cap is None else 5
    assert got[(1, largest_k)]["n_tasks_with_enough_trials"] == (2 if cap is None else 3)
    assert got[(1, largest_k)]["pass_at_k"] is None
    assert all(row["pass_at_k"] is None for (g, _), row in got.items() if g == 5)
    assert ((3, 10000) in got and (3, 8192) in got) == (cap is None)
    print(f"{model}: max |diff| {_max_difference(compared):.2e} over {len(compared)} values")


@pytest.mark.parametrize("model", ["task_pass_at_k_small", "task_pass_at_k_large"])
def test_task_pass_at_k_equals_exact_fractions(probe, model):
    rows = probe.dicts(model)
    compared = []
    for row in rows:
        n, c, k = row["n_trials"], row["n_correct"], row["k"]
        if n is None:
            assert row["pass_at_k"] is None and row["pass_hat_k"] is None
            continue
        pass_at, pass_hat = _exact_pass(n, c, k)
        if pass_at is None:
            assert row["pass_at_k"] is None and row["pass_hat_k"] is None, row
            continue
        assert _close(row["pass_at_k"], float(pass_at)), (row, float(pass_at))
        assert _close(row["pass_hat_k"], float(pass_hat)), (row, float(pass_hat))
        compared += [(row["pass_at_k"], float(pass_at)), (row["pass_hat_k"], float(pass_hat))]
    small = model.endswith("small")
    expected_rows = sum(1 for _, n, _ in probe.inputs["task_trials"] if (n is None or n <= 16) == small)
    assert len(rows) == expected_rows * (18 if small else len(LARGE_K_VALUES))
    print(f"{model}: max |diff| {_max_difference(compared):.2e} over {len(compared)} values")


def test_wilson_interval_equals_the_closed_form(probe):
    cases = {case: (s, n, z) for case, s, n, z in probe.inputs["proportions"]}
    compared = []
    for row in probe.dicts("wilson"):
        s, n, z = cases[row["case_id"]]
        for suffix, zz in (("95", 1.96), ("z", z)):
            low, high = _wilson(s, n, zz)
            assert _close(row[f"wilson_low_{suffix}"], low, 1e-12), (row, low)
            assert _close(row[f"wilson_high_{suffix}"], high, 1e-12), (row, high)
            compared += [(row[f"wilson_low_{suffix}"], low), (row[f"wilson_high_{suffix}"], high)]
            if low is not None:
                assert 0 <= row[f"wilson_low_{suffix}"] + 1e-15 and row[f"wilson_high_{suffix}"] <= 1 + 1e-15
    assert len(compared) == 4 * len(cases)
    print(f"wilson: max |diff| {_max_difference(compared):.2e}")


def _unit_wilson_oracle(ratings: list[tuple], z: float):
    """Per unit the mean of its non-NULL values, then their mean, and Wilson over units on the sum of the shares."""
    by_unit: dict = defaultdict(list)
    for unit, value in ratings:
        if value is not None:
            by_unit[unit].append(Fraction(value))
    shares = [sum(vs, Fraction(0)) / len(vs) for vs in by_unit.values()]
    n_ratings = sum(map(len, by_unit.values()))
    if not shares:
        return n_ratings, 0, None, None, None
    low, high = _wilson(float(sum(shares)), len(shares), z)
    return n_ratings, len(shares), float(sum(shares) / len(shares)), low, high


def test_unit_wilson_interval_averages_each_unit_first_and_takes_wilson_over_units(probe):
    groups: dict = defaultdict(list)
    for row in probe.inputs["unit_outcomes"]:
        groups[row[0]].append(row)
    rows = probe.dicts("unit_wilson")
    assert len(rows) == len(groups)
    compared = []
    for row in rows:
        for outcome, column, z in (("a", 2, 1.96), ("b", 3, 2.576)):
            expected = _unit_wilson_oracle([(r[1], r[column]) for r in groups[row["group_id"]]], z)
            got = tuple(row[f"{outcome}_{name}"] for name in ("n_ratings", "n_units", "rate", "ci_low", "ci_high"))
            assert (got[0] or 0, got[1]) == expected[:2], (row, expected)
            for g, e in zip(got[2:], expected[2:]):
                assert _close(g, e), (row, outcome, expected)
            compared += list(zip(got[2:], expected[2:]))
            if got[2] is not None:
                assert 0 <= got[3] <= got[2] <= got[4] <= 1 + 1e-15, row
    by_group = {row["group_id"]: row for row in rows}
    assert by_group[1]["b_n_units"] == 0 and by_group[1]["b_rate"] is None and by_group[1]["b_ci_low"] is None
    assert by_group[3]["a_rate"] == 0 and by_group[3]["a_n_units"] == 4 and by_group[3]["a_ci_high"] > 0.4
    assert by_group[4]["a_rate"] == pytest.approx((2 / 3 + 0) / 2) and by_group[4]["b_n_units"] == 1
    print(f"unit wilson: max |diff| {_max_difference(compared):.2e} over {len(compared)} values")


def test_wilson_from_se_stays_within_the_bounds_and_agrees_with_the_standard_error(probe):
    cases = {row[0]: row[1:] for row in probe.inputs["bounded_means"]}
    compared = near_normal = 0
    for row in probe.dicts("wilson_from_se"):
        mean, se, n, low, high, z = cases[row["case_id"]]
        for suffix, zz, bounds in (("95", 1.96, (low, high)), ("z", z, (low, high)), ("unit", 1.96, (0.0, 1.0))):
            expected = _wilson_from_se(mean, se, n, *bounds, zz)
            got = (row[f"low_{suffix}"], row[f"high_{suffix}"])
            assert _close(got[0], expected[0], 1e-9) and _close(got[1], expected[1], 1e-9), (row, expected)
            if expected[0] is None:
                continue
            compared += 1
            assert bounds[0] - 1e-12 <= got[0] <= mean + 1e-12 and mean - 1e-12 <= got[1] <= bounds[1] + 1e-12, row
        if row["case_id"] >= 300:  # n answers scored 0 or 1 and their SE: the plain Wilson interval on n
            low_n, high_n = _wilson(mean * n, n, z)
            assert _close(row["low_z"], low_n, 1e-9) and _close(row["high_z"], high_n, 1e-9), row
        elif row["case_id"] >= 20 and se and (mean - low) * (high - mean) / se ** 2 > 2000 and \
                0.2 < (mean - low) / (high - low) < 0.8:  # many effective observations: about mean +- 1.96 SE,
            # the SE taken back to the binomial variance's n as Wilson's is: n 0/1 values give sqrt(p (1 - p) / n)
            half_width = 1.96 * se * (math.sqrt((n - 1) / n) if n > 1 else 1)
            assert abs((row["high_95"] - row["low_95"]) / 2 - half_width) <= 0.01 * half_width, row
            near_normal += 1
    got = {row["case_id"]: row for row in probe.dicts("wilson_from_se")}
    for case in (6, 8, 9, 10):
        assert got[case]["low_95"] is None and got[case]["high_95"] is None
    assert got[0]["low_95"] > 0 and got[0]["high_95"] < 1 and got[1]["high_95"] < 1
    assert got[2]["high_95"] == 1 and got[2]["low_95"] == pytest.approx(_wilson(12, 12, 1.96)[0])
    assert got[13]["high_95"] == 1 and got[13]["low_95"] == pytest.approx(_wilson(10, 10, 1.96)[0])
    assert 1 < got[5]["low_95"] < 3.1 < got[5]["high_95"] < 5
    assert compared > 600 and near_normal >= 3


def test_mean_se_is_null_below_two_values(probe):
    values: dict = defaultdict(list)
    for group, _, x, _, _ in probe.inputs["measurements"]:
        values[group].append(x)
    for row in probe.dicts("mean_se"):
        xs = [x for x in values[row["group_id"]] if x is not None]
        expected = float(np.std(xs, ddof=1) / math.sqrt(len(xs))) if len(xs) >= 2 else None
        assert row["n_values"] == len(xs)
        assert _close(row["x_se"], expected), (row, expected)


def test_safe_divide_is_a_double_and_null_for_a_zero_denominator(probe):
    inputs = {m: (num, den) for _, m, _, num, den in probe.inputs["measurements"]}
    for row in probe.dicts("safe_divide"):
        num, den = inputs[row["measurement_id"]]
        expected = None if num is None or not den else num / den
        assert _close(row["ratio"], expected), (row, expected)
    assert probe.rows("select ratio from main.safe_divide where measurement_id = 0") == [(3.5,)]


def test_t_critical_value_is_scipys_quantile_and_null_below_one_degree_of_freedom(probe):
    from scipy.stats import t

    got = {row["df"]: row["critical_value"] for row in probe.dicts("t_critical")}
    assert got.pop(None) is None and got.pop(0) is None
    assert sorted(got) == list(range(1, 2001))
    for df, value in got.items():
        assert _close(value, float(t.ppf(0.975, df))), (df, value)
    assert got[9] > 2.26 and got[2000] < 1.962  # a paired test on 10 samples needs |t| > 2.262, not 1.96


def test_t_critical_at_z_is_scipys_quantile_at_the_normals_tail_and_null_below_two_degrees_of_freedom(probe):
    # Hill's algorithm 396 is an approximation: within 5e-4 relative of the quantile from df 2 up (2e-4 from 2.25),
    # whole or not.
    from scipy.stats import norm, t

    rows = probe.dicts("t_critical_at_z")
    assert len(rows) == 1198
    for row in rows:
        df = row["df"]
        for z in (3, 4, 5):
            got = row[f"critical_at_{z}"]
            if df is None or df < 2:
                assert got is None, (df, z, got)
            else:
                expected = float(t.isf(norm.sf(z), df))
                assert abs(got / expected - 1) < (5e-4 if df < 2.25 else 2e-4), (df, z, got, expected)
    at_4 = {row["df"]: row["critical_at_4"] for row in rows}
    # A drift test on 10 items in each window (Welch df 9 at least) needs |t| > 7.0, not the normal's 4.
    assert 6.99 < at_4[9.0] < 7.01 and 4.0 < at_4[1000000.0] < 4.0001


def test_the_drift_cutoff_the_app_and_report_state_is_the_macros_at_df_9_and_20(probe):
    """evalhouse.dbt_vars.t_critical_at_z (scipy) says the cutoff the mart's macro computes (Hill's approximation)."""
    from evalhouse.dbt_vars import t_critical_at_z

    macro = {row["df"]: row for row in probe.dicts("t_critical_at_z")}
    for df in (9.0, 20.0):
        for z in (3, 4, 5):
            assert abs(t_critical_at_z(df, z) / macro[df][f"critical_at_{z}"] - 1) < 2e-4, (df, z)
    assert f"{t_critical_at_z(9, 4.0):.1f}" == f"{macro[9.0]['critical_at_4']:.1f}" == "7.0"
    assert f"{t_critical_at_z(20, 4.0):.1f}" == f"{macro[20.0]['critical_at_4']:.1f}" == "5.0"


# ------------------------------------------------------------------------------------------------- bootstrap


def test_bootstrap_draws_are_scipys_poisson_quantile_at_the_md5_uniform(probe):
    """Every (class, replicate) draw of bootstrap_poisson_counts, rates 1 to 6,000, equals poisson.ppf at the
    uniform hashlib gives for its key (a draw of 0 has no row); and the draws look like Poisson(rate)."""
    got = {(g, c, r): k for g, c, r, k in probe.rows(
        "select group_id, class_id, replicate, resampled from main.boot_counts")}
    assert all(k >= 1 for k in got.values())
    for group, class_id, rate in probe.inputs["boot_classes"]:
        draws = [poisson_draw(BOOT_SEED, r, [group, class_id], rate) for r in range(1, 301)]
        assert [got.get((group, class_id, r), 0) for r in range(1, 301)] == draws, (group, class_id, rate)
        # 300 draws: the mean within 4 standard errors of the rate, the variance within a third of it
        assert abs(np.mean(draws) - rate) < 4 * math.sqrt(rate / 300), (rate, np.mean(draws))
        assert abs(np.var(draws, ddof=1) / rate - 1) < 1 / 3, (rate, np.var(draws, ddof=1))
    # two classes of the same rate draw differently
    first = [got.get((6, "c1", r), 0) for r in range(1, 301)]
    assert first != [got.get((6, "c2", r), 0) for r in range(1, 301)]


def _unit_columns(ratings) -> dict[str, list[float]]:
    """Each pairable unit's column of values (rater order; NaN for none), from (unit, rater, value) rows."""
    raters = sorted({r for _, r, _ in ratings})
    columns: dict[str, list[float]] = defaultdict(lambda: [np.nan] * len(raters))
    for unit, rater, value in ratings:
        if value is not None:
            columns[unit][raters.index(rater)] = value
    return {u: c for u, c in columns.items() if sum(not math.isnan(v) for v in c) >= 2}


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_bootstrap_interval_ends_are_numpys_quantiles_of_krippendorff_alpha_on_the_resampled_ratings(probe, level):
    """Per-unit Poisson bootstrap, 200 replicates: each replicate's alpha is krippendorff.alpha on the ratings
    with each unit's column repeated as often as it was drawn; the ends are numpy's 2.5% and 97.5% quantiles of
    the defined ones, to 1e-9. Group 2 (one category) and group 4 (one pairable unit) have NULL ends."""
    groups = _alpha_groups(probe.inputs["alpha_ratings"])
    got = {row["group_id"]: row for row in probe.dicts("boot_alpha") if row["level"] == level}
    assert set(got) == {2, 3, 4, *range(10, 40)} - {g for g in got if not _unit_columns(groups[g])}
    compared = []
    for group, row in got.items():
        columns = _unit_columns(groups[group])
        classes = {(unit,): [column] for unit, column in columns.items()}
        low, high, defined = bootstrap_interval(classes, [group], level, 200)
        assert row["n_units"] == len(columns), group
        assert row["n_replicates_defined"] == defined, (group, row["n_replicates_defined"], defined)
        assert _close(row["alpha_ci_low"], low) and _close(row["alpha_ci_high"], high), (group, row, low, high)
        compared += [(row["alpha_ci_low"], low), (row["alpha_ci_high"], high)]
    assert got[2]["alpha_ci_low"] is None and got[4]["alpha_ci_low"] is None
    assert sum(e is not None for _, e in compared) >= 50
    print(f"bootstrap {level}: max |diff| {_max_difference(compared):.2e} over {len(got)} groups")


def test_bootstrap_interval_covers_the_population_alpha_about_95_times_in_100(probe):
    """150 seeded samples of 30 units from one population (coverage_ratings): the population's ordinal alpha is
    the package's on 200,000 units of it. The percentile interval should cover it in roughly 95% of samples (a
    binomial 95% band on 150 is 90 to 98%; the percentile bootstrap runs a little short at n = 30); and every
    sample's own alpha lies within its interval."""
    population = _coverage_population(np.random.default_rng(7), 200_000)
    truth = float(krippendorff.alpha(reliability_data=np.array(population), level_of_measurement="ordinal"))
    rows = probe.dicts("boot_coverage")
    assert len(rows) == 150 and all(r["n_replicates_defined"] == 500 and r["n_units"] == 30 for r in rows)
    covered = sum(r["alpha_ci_low"] <= truth <= r["alpha_ci_high"] for r in rows)
    assert all(r["alpha_ci_low"] <= r["alpha"] <= r["alpha_ci_high"] for r in rows)
    widths = [r["alpha_ci_high"] - r["alpha_ci_low"] for r in rows]
    print(f"population alpha {truth:.3f}: covered {covered} of 150, mean width {np.mean(widths):.3f}")
    assert 0.88 <= covered / 150 <= 0.99, covered
