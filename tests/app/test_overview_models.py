"""The Overview's "Each model, this week against last" is one table, a row per model, eval and metric of the week in
the weekly report's order (it was a grid of 44 cells of prose, 4,900 px tall at 1400 px): what a reader looks for
first leads, its links open the Leaderboard and Reliability as the cells' links did, and what has no value says n/a
and why."""

from __future__ import annotations

import datetime as dt
import json

import duckdb
import pandas as pd
import pytest

from evalhouse.demo.world import REGRESSING_EVAL, REGRESSING_MODEL
from tests.app.conftest import LAST_WEEK, iso_week, run_page
from tests.app.page_parts import link_target, overview_models, problems, weekly_model_changes

pytestmark = pytest.mark.slow

COLUMNS = ["model on eval", "verdict", "pass rate", "change", "k", "pass@k", "pass^k", "runs", "curves", "n samples",
           "last week", "change is on", "evidence", "last week pass@k"]


def test_each_model_on_each_eval_is_a_row_of_one_table_with_the_pass_rate_change_and_verdict_first(demo_warehouse,
                                                                                                   app_env):
    app_env(demo_warehouse.path)
    expected = weekly_model_changes(demo_warehouse, LAST_WEEK)
    assert len(expected) == 44 and expected["model_on_eval"].is_unique
    at = run_page("overview")
    assert not problems(at)
    assert [h.value for h in at.subheader][-1] == "Each model, this week against last"
    assert len(at.dataframe) == 1  # the section's one table, the page's only one
    table = overview_models(at)
    assert list(table.columns) == COLUMNS
    assert sorted(table["model on eval"]) == sorted(expected["model_on_eval"])
    # An eval scored on several metrics names the metric, as the report does; one scored on one does not.
    assert f"{REGRESSING_MODEL} on support_triage_v1 (label_format)" in set(table["model on eval"])
    assert f"{REGRESSING_MODEL} on gsm8k" in set(table["model on eval"])
    # Its links are the table's: no page link of the page opens Reliability.
    assert not [link for link in at.get("page_link") if link.proto.page == "reliability"]
    config = {key.removeprefix("name:"): value for key, value in json.loads(at.dataframe[0].proto.columns).items()}
    assert {column: config[column]["type_config"] for column in ("runs", "curves")} == {
        "runs": {"type": "link", "display_text": ":material/leaderboard:"},
        "curves": {"type": "link", "display_text": ":material/repeat:"}}
    # It stays in view when a narrow window scrolls the table, its model and eval on two lines: rows that wrap.
    assert config["model on eval"]["pinned"] is True and at.dataframe[0].proto.row_height > 64
    assert all(config[column].get("help") for column in COLUMNS[1:])


def test_every_models_links_open_its_runs_and_the_weeks_curves(demo_warehouse, app_env):
    app_env(demo_warehouse.path)
    days = {"from": [(LAST_WEEK - dt.timedelta(weeks=1)).isoformat()],
            "to": [(LAST_WEEK + dt.timedelta(days=6)).isoformat()]}
    expected = weekly_model_changes(demo_warehouse, LAST_WEEK).set_index("model_on_eval")
    at = run_page("overview")
    assert not problems(at)
    table = overview_models(at).set_index("model on eval")
    for label, row in table.iterrows():
        mart = expected.loc[label]
        one = {"evaluation": [mart["evaluation_name"]], "model": [mart["model_id"]]}
        assert link_target(row["runs"]) == ("leaderboard", one | days), label
        if pd.isna(mart["pass_k"]):
            assert pd.isna(row["curves"]) and row["pass@k"] == "n/a (fewer than 2 trials per task)", label
        else:
            assert link_target(row["curves"]) == ("reliability", one | {"metric": [mart["trial_metric"]],
                                                                      "week": [iso_week(LAST_WEEK)]}), label
    assert table["curves"].notna().sum() == expected["pass_k"].notna().sum() > 0


def test_a_model_with_no_scores_and_a_week_with_none_before_say_n_a_and_why(writable_demo, app_env):
    """A model without scored trials on an eval the others have is a row saying so, with no link; in the first
    week, last week is n/a (no trials) and the verdict the report's "new this week"."""
    with duckdb.connect(str(writable_demo.path)) as con:
        con.execute("delete from marts.rpt_weekly_model_changes where week_start = ? and model_id = ? "
                    "and evaluation_name = ?", [LAST_WEEK, REGRESSING_MODEL, REGRESSING_EVAL])
    first = writable_demo.scalar("select min(week_start) from marts.rpt_weekly_model_changes")
    app_env(writable_demo.path)
    at = run_page("overview")
    assert not problems(at)
    table = overview_models(at).set_index("model on eval")
    assert len(table) == 44
    row = table.loc[f"{REGRESSING_MODEL} on {REGRESSING_EVAL}"]
    assert row["verdict"] == "no scored trials this week"
    assert {row[c] for c in ("pass rate", "change", "k", "pass@k", "n samples", "last week")} == {"n/a"}
    assert pd.isna(row["runs"]) and pd.isna(row["curves"])

    at = run_page("overview", {"week": iso_week(first)})
    assert not problems(at)
    table = overview_models(at)
    assert len(table) == 44
    assert set(table["verdict"]) == {"new this week"} and set(table["last week"]) == {"n/a (no trials)"}
    assert set(table["change"]) == {"n/a"} and table["runs"].notna().all()
