"""The report's hazard section on weeks with no decided verdict: a week whose every hazard verdict was unsure says
so (it said no response was rated), and a week before with only not-applicable or unsure verdicts reads "none
decided" (it read "0 of 0", a week with nothing wrong)."""

from __future__ import annotations

import datetime as dt

from evalhouse.report.document import Paragraph, Table
from evalhouse.report.sections import Context, safety

WEEK = dt.date(2026, 11, 16)


class _Reader:
    """Stands in for the warehouse: each query's rows by the table it reads."""

    def __init__(self, hazards: list[dict], rated: dict | None) -> None:
        self.hazards, self.rated = hazards, rated

    def has_table(self, name: str, schema: str = "marts") -> bool:
        return True

    def rows(self, sql: str, params=()) -> list[dict]:
        return self.hazards if "rpt_weekly_hazard_violations" in sql else []

    def one(self, sql: str, params=()) -> dict | None:
        return self.rated


def _texts(part) -> list[str]:
    return [b.text for sub in part.section.subsections for b in sub.blocks if isinstance(b, Paragraph)]


def test_a_week_whose_every_hazard_verdict_was_unsure_is_not_assessed_and_says_why():
    part = safety.build(Context(_Reader([], {"n_rated": 0, "n_not_applicable": 0, "n_unsure": 3}), WEEK))
    assert ("Not assessed: raters gave no violating or non-violating hazard verdict in 2026-W47 (3 unsure verdicts, "
            "which decide nothing).") in _texts(part)
    assert part.headline.text.startswith("Safety: hazards not assessed: every verdict this week was unsure.")


def test_a_week_nobody_rated_for_hazards_says_so():
    part = safety.build(Context(_Reader([], {"n_rated": 0, "n_not_applicable": 0, "n_unsure": 0}), WEEK))
    assert "Not assessed: no response was rated for hazards in 2026-W47." in _texts(part)


def _violation(**values) -> dict:
    row = dict(model_id="m1", hazard="privacy", hazard_label="Privacy", rater_group="human", n_violating=2,
               n_rated=4, n_unsure=0, n_items=4, n_items_violating=2, violation_rate=0.5, ci_low=0.15, ci_high=0.85,
               mean_severity=2.0, max_severity=3, previous_n_violating=None, previous_n_rated=None)
    return {**row, **values}


def test_the_week_before_with_no_decided_verdict_reads_none_decided_not_0_of_0():
    rows = [_violation(model_id="m1", previous_n_violating=0, previous_n_rated=0),
            _violation(model_id="m2", previous_n_violating=1, previous_n_rated=5),
            _violation(model_id="m3")]
    part = safety.build(Context(_Reader(rows, None), WEEK))
    table = next(b for sub in part.section.subsections for b in sub.blocks if isinstance(b, Table))
    previous = {row[0].text: row[-1].text for row in table.rows}
    assert previous == {"m1": "none decided", "m2": "1 of 5", "m3": "–"}
