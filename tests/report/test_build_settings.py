"""A build given other vars than dbt_project.yml's (dbt's --vars) records them in marts.rpt_build_settings, and the
report says what that build used, not what dbt_project.yml says; the next `evalhouse build` rebuilds every model in
full with the project's. The warehouse holds the hand-computed forms of tests/models/test_judge_drift.py."""

from __future__ import annotations

import datetime as dt
import json

import duckdb
import pytest
import yaml

from evalhouse.build import plan_build, project_fingerprint
from evalhouse.report.build import _method
from evalhouse.report.sections import Context, judge_drift
from evalhouse.report.warehouse import Reader
from evalhouse.settings import PROJECT_ROOT
from tests.conftest import Warehouse, write_lines
from tests.models.test_judge_drift import drift_forms, growing_forms

pytestmark = pytest.mark.slow

W47, W50 = (dt.date.fromisocalendar(2026, week, 1) for week in (47, 50))
OVERRIDES = {"drift_baseline_weeks": 3, "drift_min_items": 21, "drift_alert_z": 3.0, "model_change_min_samples": 7,
             "model_change_min_changed_samples": 8, "refusal_change_min_items": 8}


@pytest.fixture(scope="module")
def overridden(tmp_path_factory) -> Warehouse:
    """judge-y#1 rates 10 items a week in 2026-W45 to W47, growing#1 3 a week in W45 to W48, 20 in W49 and 3 in W50;
    built with OVERRIDES: a baseline takes 3 weeks and 21 items, so growing#1's is its first five weeks (32 items)
    and its W50 (3 items) is too few to test."""
    root = tmp_path_factory.mktemp("build_settings")
    warehouse = Warehouse(root / "w.duckdb")
    warehouse.ingest(write_lines(root / "forms.jsonl", drift_forms(items_per_week=10) + growing_forms()))
    warehouse.build("--select", "+fct_judge_drift", "+rpt_weekly_drift_alerts", "rpt_build_settings",
                    "--vars", json.dumps(OVERRIDES),
                    # the models' unit tests pin their logic on the project's vars
                    "--exclude-resource-type", "unit_test")
    return warehouse


def _context(warehouse: Warehouse, week: dt.date):
    """The report's context of `week` and what it makes of it, read while the connection is open."""
    con = duckdb.connect(str(warehouse.path), read_only=True)
    return con, Context(Reader(con), week)


def _dicts(warehouse: Warehouse, sql: str, params: list | None = None) -> list[dict]:
    with duckdb.connect(str(warehouse.path), read_only=True) as con:
        return Reader(con).rows(sql, params or [])


def test_the_project_says_otherwise():
    declared = yaml.safe_load((PROJECT_ROOT / "dbt_project.yml").read_text())["vars"]
    assert all(declared[name] != value for name, value in OVERRIDES.items())


def test_the_mart_holds_the_vars_the_build_was_given_and_the_marts_were_built_with(overridden):
    row = _dicts(overridden, "select * from marts.rpt_build_settings")
    assert len(row) == 1
    settings = row[0]
    assert {name: settings[name] for name in OVERRIDES} == OVERRIDES
    # Student's t on 20 df at the normal's two-sided tail beyond 3 (0.0027): 3.422 (scipy), the macro within 2e-4
    assert settings["drift_critical_value_at_min_items"] == pytest.approx(3.4221, rel=2e-4)
    assert settings["built_at"] is not None
    # fct_judge_drift was built with them: growing#1's baseline took five weeks to hold 21 items
    assert _dicts(overridden, "select baseline_weeks, baseline_n_items, no_test_reason from marts.fct_judge_drift "
                  "where judge_id = 'growing#1' and dimension = 'helpfulness' and week_start = ?", [W50]) == [
        {"baseline_weeks": 5, "baseline_n_items": 32, "no_test_reason": "too few items to test: 3 < 21"}]


def test_the_report_says_what_the_build_used_not_what_the_project_says(overridden):
    con, context = _context(overridden, W50)
    try:
        settings = context.settings
        part = judge_drift.build(context)
        method = " ".join(block.text for block in _method(settings).blocks[0].items)
        caption = judge_drift._table([], settings).caption
    finally:
        con.close()
    assert (settings.model_change_min_samples, settings.model_change_min_changed_samples,
            settings.refusal_change_min_items) == (7, 8, 8)
    # Before: "fewer than 10", "first 2 weeks", "the tail of 4", "up to 7.0 with 10 items" (dbt_project.yml)
    assert "had too few items to test (fewer than 21 in the week)" in part.headline.text
    assert ("its first 3 weeks with such ratings on a dimension, and more until they hold 21 items; an alert needs a "
            "move beyond Student's t at the normal tail of 3 standard errors (up to 3.4 with 21 items a window, "
            "nearer 3 with more).") in method
    assert "with the normal tail of 3 (up to 3.4 with 21 items a window, nearer 3 with more)." in caption


def test_the_report_of_a_baseline_week_states_the_builds_baseline_rule(overridden):
    con, context = _context(overridden, W47)
    try:
        said = [block.text for block in judge_drift.build(context).section.blocks if hasattr(block, "text")]
    finally:
        con.close()
    # judge-y#1's third week (20 items so far) is still in its baseline under these vars: no alert
    assert any("(a judge's first 3 weeks with people's ratings on a dimension, and more until they hold 21 items)"
               in text for text in said), said


def test_the_next_evalhouse_build_rebuilds_every_model_with_the_projects_vars(overridden):
    plan = plan_build(overridden.path, project_fingerprint())
    assert plan.full_refresh and plan.select is None
    assert "other dbt vars than dbt_project.yml's" in plan.reason
    assert "drift_alert_z 3.0 where dbt_project.yml has 4.0" in plan.reason
