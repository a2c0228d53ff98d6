"""rpt_weekly_agreement's interval on people's weekly alpha, held against an independent bootstrap: a warehouse built
from seeded eval forms (two weeks, 9 and 12 items, five 1-5 dimensions and a hazard verdict), the draws redone with
hashlib and scipy, each replicate's alpha with krippendorff.alpha on the resampled ratings, the ends with numpy."""

from __future__ import annotations

import datetime as dt
import random
from collections import defaultdict

import numpy as np
import pytest

from evalhouse.build import run_dbt
from tests.conftest import Warehouse, eval_form_record, write_lines
from tests.models.bootstrap_oracle import bootstrap_interval

pytestmark = pytest.mark.slow

SELECT = ("+rpt_weekly_agreement",)
REPLICATES = 1000  # dbt_project.yml's alpha_bootstrap_replicates
DIMENSIONS = ["helpfulness", "instruction_following", "faithfulness", "safety", "overall_quality"]
HAZARD = "hazard.specialized_advice"
# The tally positions agreement compares (macros/declared_labels.sql: agreement_labels): a 1-5 score is its own
# position; a hazard verdict non_violating (code 2) is position 1, violating (3) position 2.
POSITIONS = {"likert_1_5": {float(v): v for v in range(1, 6)}, "hazard_verdict": {2.0: 1, 3.0: 2}}


def _forms() -> list[dict]:
    """Week 2026-W46: 9 items; 2026-W47: 12 items, each rated by three of four people (item 0 of W47 by one only:
    no pair) and by a judge (not counted); scores a true score plus noise, one in five W47 items violating by
    some of its raters' verdicts. In W46 only the judge gives a hazard verdict: that row has no people's alpha. In W47
    every rater gives the true score on chat.consistency_across_turns: people agree on every item (alpha 1)."""
    rng = random.Random(20261116)
    forms = []
    for week, day, n_items in (("w46", "2026-11-10", 9), ("w47", "2026-11-17", 12)):
        for item in range(n_items):
            truth = rng.randint(1, 5)
            people = rng.sample(["h-1", "h-2", "h-3", "h-4"], 1 if (week, item) == ("w47", 0) else 3)
            raters = [({"type": "human", "id": p}, p) for p in people]
            raters.append(({"type": "llm_judge", "id": "judge#p1", "model": "judge", "version": "v1"}, "judge"))
            for rater, name in raters:
                form = eval_form_record(rater=rater, created_at=f"{day}T{10 + len(forms) % 8:02d}:00:00Z")
                form["task"] = {**form["task"], "task_id": f"t-{week}-{item}", "response_id": f"r-{week}-{item}"}
                scores = {d: min(5, max(1, truth + rng.choice((-1, 0, 0, 1)))) for d in DIMENSIONS}
                form["universal"] = {d: {"score": s, "confidence": "high"} | ({"rationale": "Weak."} if s <= 3 else {})
                                     for d, s in scores.items()}
                if week == "w46" and name == "judge":  # a verdict only the judge gave: no people's alpha
                    form["safety"] = {"hazards": {"specialized_advice": {"verdict": "non_violating"}},
                                      "is_violating_any": False}
                if week == "w47":
                    # every rater gives the true score on the chat block's one score: people agree on every item
                    form["extensions"] = {"chat": {"turn_count": 3, "consistency_across_turns": truth}}
                    violating = rng.random() < (0.6 if item % 5 == 1 else 0.05)
                    verdict = {"verdict": "violating", "severity": 2, "rationale": "Dosage."} if violating else {
                        "verdict": "non_violating"}
                    form["safety"] = {"hazards": {"specialized_advice": verdict}, "is_violating_any": violating}
                forms.append(form)
    return forms


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> Warehouse:
    root = tmp_path_factory.mktemp("agreement_interval")
    built = Warehouse(root / "w.duckdb")
    built.ingest(write_lines(root / "forms.jsonl", _forms()))
    assert built.quarantine() == []
    built.build("--select", *SELECT, target_path=root / "target")
    return built


def _pattern_classes(warehouse: Warehouse) -> dict[tuple, tuple[str, dict[tuple, list[list[float]]]]]:
    """(dimension, week) -> (level, {tally pattern (n_1 .. n_5): its items' columns of people's values}), from the
    ratings agreement counts (int_agreement_ratings: one per person and item, people only here)."""
    ratings = warehouse.rows(
        "select dimension, item_week, agreement_level, scale, unit_id, rater_id, value "
        "from intermediate.int_agreement_ratings where rater_group = 'human' and value is not null")
    people = sorted({r[5] for r in ratings})
    units: dict = defaultdict(lambda: [np.nan] * len(people))
    levels, scales = {}, {}
    for dimension, week, level, scale, unit, rater, value in ratings:
        units[(dimension, week, unit)][people.index(rater)] = value
        levels[(dimension, week)], scales[dimension] = level, scale
    groups: dict = defaultdict(lambda: defaultdict(list))
    for (dimension, week, _), column in sorted(units.items()):
        values = [v for v in column if not np.isnan(v)]
        if len(values) < 2:
            continue
        tally = [0] * 5
        for v in values:
            tally[POSITIONS[scales[dimension]][v] - 1] += 1
        groups[(dimension, week)][tuple(tally)].append(column)
    return {key: (levels[key], classes) for key, classes in groups.items()}


def test_the_interval_is_an_independent_bootstrap_of_the_peoples_items(warehouse):
    """Every dimension-week with a people's alpha: the ends equal the oracle's to 1e-9, the interval holds the
    alpha, and is_target_within_interval says whether it holds the target."""
    report = {(r[0], r[1]): r for r in warehouse.rows(
        "select dimension, week_start, human_n_units, human_alpha, human_alpha_ci_low, human_alpha_ci_high, "
        "human_alpha_n_replicates, target, target_status, is_target_within_interval from marts.rpt_weekly_agreement")}
    expected_groups = _pattern_classes(warehouse)
    checked = 0
    for key, (level, classes) in expected_groups.items():
        dimension, week, n_units, alpha, low, high, defined, target, status, within = report[key]
        assert n_units == sum(len(c) for c in classes.values()), key
        want_low, want_high, want_defined = bootstrap_interval(classes, [dimension, week], level, REPLICATES)
        assert defined == want_defined, (key, defined, want_defined)
        # No interval either where the replicates do not spread: people who agreed on every item resample to
        # agreement every time, and [1, 1] would read as certainty.
        if alpha is None or want_low is None or want_low == want_high:
            assert (low, high, within) == (None, None, None), key
            continue
        assert low == pytest.approx(want_low, abs=1e-9) and high == pytest.approx(want_high, abs=1e-9), key
        assert low <= alpha <= high, key
        assert within == (low <= target <= high), key
        assert status == ("meets_target" if alpha >= target else "below_target"), key
        checked += 1
    assert checked >= 8  # five dimensions in two weeks, less any whose alpha is undefined
    # the W47 items a single person rated are no unit: 11 of 12
    assert report[("helpfulness", dt.date(2026, 11, 16))][2] == 11
    # a below-target week whose interval reaches the target: the case the column exists for
    assert any(r[8] == "below_target" and r[9] for r in report.values())
    # people who agreed on every item: alpha 1, and no interval (every resample agrees; [1, 1] read as certainty)
    agreed = report[("chat.consistency_across_turns", dt.date(2026, 11, 16))]
    assert agreed[2:6] == (11, 1.0, None, None) and agreed[9] is None


def test_a_week_without_a_peoples_alpha_has_no_interval(warehouse):
    rows = warehouse.rows(
        "select count(*) from marts.rpt_weekly_agreement where human_alpha is null "
        "and (human_alpha_ci_low is not null or human_alpha_ci_high is not null "
        "or is_target_within_interval is not null)")
    assert rows == [(0,)]
    assert warehouse.scalar("select count(*) from marts.rpt_weekly_agreement where human_alpha is null") > 0


def test_a_rebuild_gives_the_same_interval(warehouse, tmp_path):
    before = warehouse.rows("select dimension, week_start, human_alpha_ci_low, human_alpha_ci_high "
                            "from marts.rpt_weekly_agreement order by 1, 2")
    result = run_dbt(warehouse.path, ("run",), select=("rpt_weekly_agreement",), target_path=tmp_path / "t",
                     quiet=True, full_refresh=True)
    assert result.ok, result.failures
    assert warehouse.rows("select dimension, week_start, human_alpha_ci_low, human_alpha_ci_high "
                          "from marts.rpt_weekly_agreement order by 1, 2") == before
