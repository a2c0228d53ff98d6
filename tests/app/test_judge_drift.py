"""The Judge drift page applies its judge and week: the alerts are the chosen judge's, the chosen week is marked on
every chart, a judge still forming its baseline is told so (for as many weeks as it takes), the alert cutoff it states
follows the vars the build used (marts.rpt_build_settings), the judge's version is said beside its alerts and marked
where it changed, its charts are panels that fit the page, and reviewers' override rate is shown with its interval.
The warehouse holds the hand-computed forms of tests/models/test_judge_drift.py."""

from __future__ import annotations

import json
import shutil

import duckdb
import pytest
from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df

from tests.app.conftest import run_page
from tests.app.page_parts import chart_title, problems
from tests.conftest import CAUTIOUS, Warehouse, write_lines
from tests.models.test_judge_drift import drift_forms, growing_forms

pytestmark = pytest.mark.slow

SELECT = ("+fct_judge_drift", "+fct_judge_overrides", "+rpt_weekly_drift_alerts", "+fct_trials", "+fct_ratings",
          "+dim_models", "+dim_raters", "rpt_build_settings")


@pytest.fixture(scope="module")
def drifting(tmp_path_factory) -> Warehouse:
    """judge-y#1 alerts on helpfulness in 2026-W47 (its week 3, 10 items a week); solo#1 rates in 2026-W47 only; h-bo
    reviewed judge-y#1's two 2026-W45 forms and changed one helpfulness score; growing#1 rates 3 items a week in
    2026-W45 to W48 (its baseline), 20 in W49 (tested) and 3 in W50."""
    root = tmp_path_factory.mktemp("judge_drift_page")
    warehouse = Warehouse(root / "w.duckdb")
    warehouse.ingest(write_lines(root / "forms.jsonl", drift_forms(items_per_week=10) + growing_forms()))
    warehouse.build(*CAUTIOUS, "--select", *SELECT)
    return warehouse


def _said(at) -> str:
    return " ".join(e.value for e in [*at.caption, *at.info, *at.markdown])


def _specs(at) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("vega_lite_chart")]


def _marked_weeks(spec: dict) -> list[dict]:
    """The x datum of every rule drawn at a fixed x (a marked week) in a chart's layers."""
    layers = spec.get("spec", spec).get("layer", [])
    return [layer["encoding"]["x"]["datum"] for layer in layers
            if layer.get("mark", {}).get("type") == "rule" and "datum" in layer.get("encoding", {}).get("x", {})]


def test_a_judge_without_alerts_lists_none_of_another_judges_and_says_its_baseline_is_forming(drifting, app_env):
    app_env(drifting.path)
    at = run_page("judge_drift", {"judge": "solo#1", "week": "2026-W47"})
    assert not problems(at)
    assert at.selectbox(key="judge_drift.judge").value == "solo#1"
    # Before: "No alert ever." above a table of judge-y#1's 2026-W47 alert.
    assert not [frame for frame in (d.value for d in at.dataframe) if "judge-y#1" in frame.to_string()]
    said = _said(at)
    assert "No drift alerts of solo#1 up to 2026-W47 yet." in said
    assert "Baseline still forming, so no alert could fire yet" in said and "No alert ever" not in said
    assert "2 items over 1 week on faithfulness, helpfulness" in said
    assert "Not tested on" not in said  # the forming baseline's weeks are untested, and said once, as above


def test_a_baseline_that_takes_more_than_two_weeks_is_still_forming_not_no_alert(drifting, app_env):
    """growing#1's third week (9 items so far) is a baseline week, not a week without an alert; its fifth is tested."""
    app_env(drifting.path)
    said = _said(run_page("judge_drift", {"judge": "growing#1", "week": "2026-W47"}))
    # Before: "No alert up to 2026-W47." (a week after the first two read as a quiet one).
    assert "No alert up to" not in said and "Baseline still forming, so no alert could fire yet" in said
    assert "9 items over 3 weeks on " in said
    said = _said(run_page("judge_drift", {"judge": "growing#1", "week": "2026-W48"}))
    assert "Baseline weeks only so far, so no alert could fire yet" in said
    assert "12 items over 4 weeks (complete)" in said
    said = _said(run_page("judge_drift", {"judge": "growing#1", "week": "2026-W49"}))
    assert "No alert up to 2026-W49." in said and "Baseline still forming" not in said
    assert "baseline weeks on" not in said
    said = _said(run_page("judge_drift", {"judge": "growing#1", "week": "2026-W50"}))
    assert "**Too few items to test** on faithfulness, helpfulness" in said
    assert "(fewer than 10 items this week)" in said


def test_the_alert_cutoff_the_page_states_follows_the_vars_the_build_used(drifting, app_env, monkeypatch, tmp_path):
    app_env(drifting.path)
    said = _said(run_page("judge_drift", {"judge": "judge-y#1", "week": "2026-W47"}))
    # t on 9 df at the normal's tail of 4: 6.9986 (macro t_critical_at_z: 6.999)
    assert "up to 7.0 with 10 items a window, nearer 4 with more" in said and "first 2 weeks" in said

    # dbt_project.yml edited after the build: the page still says what the marts were built with
    project = tmp_path / "project"
    project.mkdir()
    (project / "dbt_project.yml").write_text(
        "vars:\n  drift_baseline_weeks: 4\n  drift_alert_z: 5.0\n  drift_min_items: 15\n")
    monkeypatch.setattr("evalhouse.dbt_vars.PROJECT_FILE", project / "dbt_project.yml")
    app_env(drifting.path)
    said = _said(run_page("judge_drift", {"judge": "judge-y#1", "week": "2026-W47"}))
    assert "up to 7.0 with 10 items a window, nearer 4 with more" in said and "first 2 weeks" in said
    assert "15 items" not in said  # before: "first 4 weeks ... 15 items", "tail of a normal 5"

    # The judge's marts rebuilt with other vars (dbt's --vars): the page says those
    rebuilt = Warehouse(tmp_path / "rebuilt.duckdb")
    shutil.copyfile(drifting.path, rebuilt.path)
    rebuilt.build(*CAUTIOUS, "--select", "fct_judge_drift", "rpt_weekly_drift_alerts", "rpt_build_settings",
                  "--exclude-resource-type", "unit_test", "--vars",
                  json.dumps({"drift_baseline_weeks": 3, "drift_alert_z": 3.0, "drift_min_items": 21}))
    app_env(rebuilt.path)
    said = _said(run_page("judge_drift", {"judge": "judge-y#1", "week": "2026-W47"}))
    # t on 20 df at the normal's tail of 3: 3.42
    assert "up to 3.4 with 21 items a window, nearer 3 with more" in said
    assert "first 3 weeks on a dimension, and more until they hold 21 items" in said and "7.0" not in said

    # A warehouse built before rpt_build_settings existed: dbt_project.yml's vars now, the best guess
    with duckdb.connect(str(rebuilt.path)) as con:
        con.execute("drop table marts.rpt_build_settings")
    app_env(rebuilt.path)
    said = _said(run_page("judge_drift", {"judge": "judge-y#1", "week": "2026-W47"}))
    assert "first 4 weeks on a dimension, and more until they hold 15 items" in said


def test_the_chosen_week_is_marked_on_every_chart_and_bounds_the_alerts(drifting, app_env):
    app_env(drifting.path)
    at = run_page("judge_drift", {"judge": "judge-y#1", "week": "2026-W46"})
    assert not problems(at)
    specs = _specs(at)
    for spec in specs:
        assert _marked_weeks(spec) == [{"year": 2026, "month": 11, "date": 9}], chart_title(spec)
    # the bias and the override rate on helpfulness (the dimension that alerted), exact agreement and kappa
    assert sorted(chart_title(spec) for spec in specs) == [
        "Does judge-y#1 still agree beyond chance?", "Does judge-y#1 still give people's labels?",
        "Drifting on helpfulness?", "Overruled on helpfulness?"]
    # The alert of 2026-W47 comes after the chosen week.
    assert "No drift alerts of judge-y#1 up to 2026-W46 yet." in _said(at)

    at = run_page("judge_drift", {"judge": "judge-y#1", "week": "2026-W47"})
    alerts = at.dataframe[0].value
    assert list(alerts["week"]) == ["2026-W47"] and list(alerts["dimension"]) == ["helpfulness"]
    # Baseline biases 2, 0 and eighteen 1s: var_samp 2/19. Week 3 all 4 (SE 0, so the baseline's spread over 10
    # items): z = 3 / sqrt(2/19 / 10 + 2/19 / 20) = 23.9.
    assert list(alerts["z"]) == [f"{3 / (3 / 190) ** 0.5:.1f}"]


def test_the_override_rate_is_shown_per_dimension_with_its_wilson_interval(drifting, app_env):
    app_env(drifting.path)
    at = run_page("judge_drift", {"judge": "judge-y#1", "week": "2026-W45"})
    assert not problems(at)
    assert "Overruled on helpfulness?" in [chart_title(s) for s in _specs(at)]
    assert "**How often do reviewers overrule judge-y#1?**" in _said(at)
    overrides = at.dataframe[-1].value
    # One of two reviewed ratings changed: Wilson (1 + 1.96^2/2 -/+ 1.96 sqrt(1/2 + 1.96^2/4)) / (2 + 1.96^2).
    assert overrides.to_dict("records") == [{
        "dimension": "helpfulness", "override rate [95% interval]": "50% [9%, 91%]", "reviewed ratings": 2,
        "reviews": 2, "changed": 1, "reviewers": 1, "mean score change": "-1.00",
    }]


def test_an_alert_in_the_week_the_judges_version_changed_says_so_and_the_chart_marks_it(drifting, app_env):
    """judge-y#1 rates as v1 in 2026-W45 and W46 (its baseline) and as v2 in W47, the week it alerts: the week's
    summary and the alerts table say the version is new, and each bias panel marks W47 (and only W47) as a change.
    Before, the table showed the example form's version alone and nothing said it had changed."""
    app_env(drifting.path)
    at = run_page("judge_drift", {"judge": "judge-y#1", "week": "2026-W47"})
    assert not problems(at)
    said = _said(at)
    assert ("**The judge's version changed this week**: v1 → v2 (on every dimension it rated), a version its "
            "baseline did not use.") in said
    alerts = at.dataframe[0].value
    assert alerts[["judge version", "version changed?", "baseline's version"]].to_dict("records") == [
        {"judge version": "v2", "version changed?": "new this week", "baseline's version": "v1"}]
    panels = [chart for chart in at.get("vega_lite_chart")
              if chart_title(json.loads(chart.proto.spec)).startswith("Drifting on ")]
    assert [chart_title(json.loads(chart.proto.spec)) for chart in panels] == ["Drifting on helpfulness?"]
    for chart in panels:
        # the change's line: a rule on the weeks of its own data, from top to bottom (no y)
        changes = [layer for layer in json.loads(chart.proto.spec)["layer"]
                   if layer.get("mark", {}).get("type") == "rule" and "data" in layer and "y" not in layer["encoding"]]
        assert len(changes) == 1
        data = {d.name: convert_arrow_bytes_to_pandas_df(d.data.data) for d in chart.proto.datasets}
        rows = data[changes[0]["data"]["name"]]
        assert [str(w)[:10] for w in rows["week_start"]] == ["2026-11-16"]
        assert set(rows["version_change"]) == {"v1 → v2"}
    # a week without a change says nothing of versions
    summary = [c.value for c in run_page("judge_drift", {"judge": "judge-y#1", "week": "2026-W46"}).caption
               if c.value.startswith("In 2026-W46: ")]
    assert len(summary) == 1 and "version" not in summary[0]


def test_the_version_a_change_is_from_is_the_marts_previous_judge_versions(drifting, app_env, tmp_path):
    """The page says what the judge's version changed from as fct_judge_drift.previous_judge_versions has it, not as
    its own rows would suggest: a warehouse whose mart names v0 before judge-y#1's v2 in 2026-W47 reads v0 → v2 in
    the week's summary and on the chart's change (the page had taken the week before's judge_versions, v1)."""
    edited = Warehouse(tmp_path / "edited.duckdb")
    shutil.copyfile(drifting.path, edited.path)
    with duckdb.connect(str(edited.path)) as con:
        con.execute("update marts.fct_judge_drift set previous_judge_versions = ['v0'] "
                    "where judge_id = 'judge-y#1' and week_start = date '2026-11-16'")
    app_env(edited.path)
    at = run_page("judge_drift", {"judge": "judge-y#1", "week": "2026-W47"})
    assert not problems(at)
    assert "**The judge's version changed this week**: v0 → v2 (on every dimension it rated)" in _said(at)
    changes = set()
    for chart in at.get("vega_lite_chart"):
        for data in chart.proto.datasets:
            frame = convert_arrow_bytes_to_pandas_df(data.data.data)
            if "version_change" in frame:
                changes |= set(frame["version_change"]) - {"none"}
    assert changes == {"v0 → v2"}


def test_the_charts_are_panels_that_fit_the_page_and_the_alert_rule_is_said_plainly(drifting, app_env):
    """A faceted chart's panels have a fixed width that ran past the right edge at 900 px: every chart is a single
    or layered one, which Streamlit fits to its panel. The intro says the cutoff in standard errors as a number."""
    app_env(drifting.path)
    at = run_page("judge_drift", {"judge": "growing#1", "week": "2026-W49"})
    assert not problems(at)
    specs = _specs(at)
    assert specs and not [chart_title(spec) for spec in specs if "facet" in spec or "width" in spec.get("spec", {})]
    intro = at.caption[0].value
    assert "more than a cutoff, counted in standard errors of the change (|z|)" in intro
    assert "The cutoff is 4 when the week and its baseline hold many items and more when they hold few" in intro
    assert "at the tail of a normal" not in intro
