"""The bootstrap macros (macros/stats/bootstrap.sql) redone outside SQL, for the tests that hold the SQL to them:
the draws from hashlib's md5 and scipy's Poisson quantile, each replicate's alpha from krippendorff.alpha on the
resampled ratings (a unit's column repeated as often as it was drawn), the ends from numpy's quantiles."""

from __future__ import annotations

import hashlib
import math
import warnings
from collections.abc import Sequence

import krippendorff
import numpy as np
from scipy.stats import poisson

SEED = 20260512  # the macros' default seed
CONFIDENCE = 0.95
MAX_UNDEFINED_SHARE = 0.05
MIN_UNITS = 2


def md5_uniform(seed: int, replicate: int, keys: Sequence[object]) -> float:
    """The SQL's u: md5 of "seed|p|keys" ('|'-joined, None as ''), p = ceil(replicate / 2); its hex digits 1-13
    for an odd replicate, 14-26 for an even one, + 0.5, over 2^52."""
    text = "|".join("" if p is None else str(p) for p in [seed, (replicate + 1) // 2, *keys])
    start = 0 if replicate % 2 else 13
    return (int(hashlib.md5(text.encode()).hexdigest()[start:start + 13], 16) + 0.5) / 2**52


def poisson_draw(seed: int, replicate: int, keys: Sequence[object], rate: int) -> int:
    """The count bootstrap_poisson_counts draws for a class of `rate` units in a replicate."""
    return int(poisson.ppf(md5_uniform(seed, replicate, keys), rate))


def resampled_alpha(columns: Sequence[Sequence[float]], counts: Sequence[int], level: str) -> float | None:
    """krippendorff.alpha on the units' columns (raters' values, NaN for none), each repeated counts[i] times; None
    where the package says undefined."""
    kept = [np.asarray(c, dtype=float) for c, k in zip(columns, counts) for _ in range(k)]
    if not kept:
        return None
    return alpha_or_none(np.column_stack(kept), level)


def alpha_or_none(matrix: np.ndarray, level: str) -> float | None:
    """krippendorff.alpha on a raters x units matrix (NaN for no rating); None where the package says undefined
    (a ValueError, or NaN: every value the same)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            value = float(krippendorff.alpha(reliability_data=matrix, level_of_measurement=level))
    except ValueError:
        return None
    return None if math.isnan(value) else value


def percentile_interval(alphas: Sequence[float | None], n_replicates: int,
                        n_units: int) -> tuple[float | None, float | None, int]:
    """(low, high, defined): numpy's linear quantiles of the defined replicates; None ends with fewer than MIN_UNITS
    units or more than MAX_UNDEFINED_SHARE of the replicates undefined."""
    defined = [a for a in alphas if a is not None]
    if n_units < MIN_UNITS or len(defined) < (1 - MAX_UNDEFINED_SHARE) * n_replicates:
        return None, None, len(defined)
    tail = (1 - CONFIDENCE) / 2
    low, high = np.quantile(np.array(defined), [tail, 1 - tail])
    return float(low), float(high), len(defined)


def bootstrap_interval(classes: dict[tuple, list[Sequence[float]]], group_keys: Sequence[object], level: str,
                       n_replicates: int, seed: int = SEED) -> tuple[float | None, float | None, int]:
    """The whole bootstrap for one group: classes maps each class's key values to its units' columns. In each
    replicate a class is drawn Poisson(its size) times; the draws are spread over its units in turn (which of
    them carries a draw changes nothing: they tally alike)."""
    order = sorted(classes, key=str)
    alphas = []
    for replicate in range(1, n_replicates + 1):
        columns, counts = [], []
        for key in order:
            units = classes[key]
            drawn = poisson_draw(seed, replicate, [*group_keys, *key], len(units))
            for i, unit in enumerate(units):
                columns.append(unit)
                counts.append(drawn // len(units) + (1 if i < drawn % len(units) else 0))
        alphas.append(resampled_alpha(columns, counts, level))
    return percentile_interval(alphas, n_replicates, sum(len(u) for u in classes.values()))
