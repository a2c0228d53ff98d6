"""The smallest week pairs the weekly changes are tested on are dbt vars (dbt_project.yml: model_change_min_samples,
model_change_min_changed_samples, refusal_change_min_items) that the marts use and the report quotes as the build
used them (marts.rpt_build_settings), never as dbt_project.yml says after an edit that was not built. The marts' own
use of them is pinned by their unit tests (models/marts/report/_report__models.yml, "from the project vars")."""

from __future__ import annotations

import datetime as dt
import os

import duckdb
import pytest
import yaml

from evalhouse import build_settings, dbt_vars
from evalhouse.build_settings import BuildSettings
from evalhouse.dbt_vars import dbt_var
from evalhouse.report import changes
from evalhouse.report.sections import Context, safety
from evalhouse.report.warehouse import Reader
from evalhouse.settings import PROJECT_ROOT

WEEK = dt.date(2026, 11, 16)


@pytest.fixture
def project_vars(tmp_path, monkeypatch):
    """Point dbt_vars at a dbt_project.yml of the test's own; call the result with the vars it should hold."""
    project = tmp_path / "dbt_project.yml"
    monkeypatch.setattr(dbt_vars, "PROJECT_FILE", project)
    stamp = [1_700_000_000]

    def write(**variables) -> None:
        project.write_text(yaml.safe_dump({"name": "evalhouse", "vars": variables}))
        stamp[0] += 10  # a new modification time for each version, as an edit gives it
        os.utime(project, (stamp[0], stamp[0]))

    return write


def test_the_project_declares_each_minimum_the_marts_and_the_report_use():
    declared = yaml.safe_load((PROJECT_ROOT / "dbt_project.yml").read_text())["vars"]
    assert (declared["model_change_min_samples"], declared["model_change_min_changed_samples"],
            declared["refusal_change_min_items"]) == (10, 6, 10)
    project = build_settings.from_project()  # what a warehouse built before rpt_build_settings is read with
    assert (project.model_change_min_samples, project.model_change_min_changed_samples,
            project.refusal_change_min_items) == (10, 6, 10)


def test_a_var_changed_in_the_project_is_read_again(project_vars):
    project_vars(refusal_change_min_items=8)
    assert dbt_var("refusal_change_min_items", 10) == 8
    project_vars(refusal_change_min_items=12)
    assert dbt_var("refusal_change_min_items", 10) == 12  # not the first version's, kept from before
    project_vars()
    assert dbt_var("refusal_change_min_items", 10) == 10


def _paired_row(n_compared: int, n_improved: int, n_worsened: int) -> dict:
    return {"is_regression": None, "is_improvement": None, "comparison": "paired", "change_test": "sign test",
            "n_compared": n_compared, "n_improved": n_improved, "n_worsened": n_worsened, "is_significant": None,
            "sign_test_p": 0.2, "change_z": None}


def _minimums(**changed) -> BuildSettings:
    """The settings of a build: the project's defaults with `changed`."""
    values = {"drift_baseline_weeks": 2, "drift_min_items": 10, "drift_alert_z": 4.0,
              "drift_critical_value_at_min_items": 7.0, "model_change_min_samples": 10,
              "model_change_min_changed_samples": 6, "refusal_change_min_items": 10}
    return BuildSettings(**(values | changed))


def test_the_model_changes_verdict_says_why_untested_by_the_builds_minimums(project_vars):
    assert changes.verdict(_paired_row(8, 5, 2), _minimums())[0] == "too few samples to test (8 paired)"
    # 8 samples are enough for a build given 8; 7 changed are not: the reason is the one the mart had (was always
    # "8 < 10"), whatever dbt_project.yml says now
    project_vars(model_change_min_samples=10, model_change_min_changed_samples=6)
    built = _minimums(model_change_min_samples=8, model_change_min_changed_samples=8)
    assert changes.verdict(_paired_row(8, 5, 2), built)[0] == "too few changed samples to test (7 changed)"


def test_one_changed_sample_is_too_few_to_test_and_none_is_no_change():
    assert changes.verdict(_paired_row(12, 0, 0), _minimums())[0] == "no sample changed"
    assert changes.verdict(_paired_row(12, 1, 0), _minimums())[0] == "too few changed samples to test (1 changed)"
    assert changes.verdict(_paired_row(12, 0, 1), _minimums())[0] == "too few changed samples to test (1 changed)"


def _refusal_marts(rows: list[dict], built_with: int | None) -> duckdb.DuckDBPyConnection:
    """rpt_weekly_refusal_changes holding `rows`, and rpt_build_settings saying the build tested from `built_with`
    responses (None: no such mart, a warehouse built before it existed)."""
    con = duckdb.connect()
    con.execute("create schema marts")
    columns = list(rows[0])
    con.execute("create table marts.rpt_weekly_refusal_changes as select * from (values "
                + ", ".join("(" + ", ".join("?" for _ in columns) + ")" for _ in rows)
                + f") as t ({', '.join(columns)})", [row[c] for row in rows for c in columns])
    if built_with is not None:
        con.execute("create table marts.rpt_build_settings as select current_timestamp as built_at, 2 as "
                    "drift_baseline_weeks, 10 as drift_min_items, 4.0 as drift_alert_z, 7.0 as "
                    "drift_critical_value_at_min_items, 10 as model_change_min_samples, 6 as "
                    "model_change_min_changed_samples, ? as refusal_change_min_items, 3.0 as review_score_at_or_below, "
                    "'low' as review_confidences", [built_with])
    return con


def _untested_refusal_row(model: str, n_items: int) -> dict:
    row = {"model_id": model, "rater_group": "human", "week_start": WEEK, "n_rated": n_items, "n_items": n_items,
           "previous_n_items": n_items, "has_significant_change": None}
    for rate in ("refusal_rate", "over_refusal_rate", "under_refusal_rate"):
        row |= {rate: 0.1, f"{rate}_ci_low": 0.0, f"{rate}_ci_high": 0.5, f"previous_{rate}": 0.1,
                f"{rate}_change": 0.0, f"{rate}_change_z": None, f"{rate}_change_is_significant": None}
    return row


def _refusal_texts(built_with: int | None) -> tuple[list[str], str]:
    con = _refusal_marts([_untested_refusal_row("m1", 6)], built_with)
    try:
        subsection, _ = safety._refusals(Context(Reader(con), WEEK))
    finally:
        con.close()
    return [block.text for block in subsection.blocks if hasattr(block, "text")], subsection.blocks[-1].caption


def test_the_safety_section_says_the_minimum_responses_the_build_used_not_the_projects_now(project_vars):
    project_vars(refusal_change_min_items=12)  # edited after the build, which used 7
    texts, caption = _refusal_texts(built_with=7)
    # Before: "fewer than 12" (dbt_project.yml as it is now), which the mart built with 7 contradicts.
    assert texts[0].startswith("Not tested, too few responses (fewer than 7 in a week): m1")
    assert "not tested below 7 responses in either week" in caption
    # A warehouse built before rpt_build_settings existed: dbt_project.yml's is the best guess.
    texts, caption = _refusal_texts(built_with=None)
    assert texts[0].startswith("Not tested, too few responses (fewer than 12 in a week): m1")
