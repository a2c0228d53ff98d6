"""The report's judge drift section says a judge's baseline weeks as they are, however many weeks the baseline takes
(never a quiet week, never "too few items to test"), and the alert cutoff it states follows the vars the build used
(marts.rpt_build_settings; tests/report/test_build_settings.py overrides them). The warehouse holds the
hand-computed forms of tests/models/test_judge_drift.py. A week without alerts shows how near the tested pairs
came to their cutoff (in-memory marts of a few rows)."""

from __future__ import annotations

import datetime as dt
import re

import duckdb
import pytest

from evalhouse.build_settings import BuildSettings
from evalhouse.dbt_vars import t_critical_at_z
from evalhouse.report import fmt
from evalhouse.report.document import Figure, Paragraph, Table
from evalhouse.report.sections import Context, judge_drift
from evalhouse.report.warehouse import Reader
from evalhouse.report.weeks import iso_week_label
from tests.conftest import Warehouse, write_lines
from tests.models.test_judge_drift import drift_forms, growing_forms

W47, W48, W49 = (dt.date.fromisocalendar(2026, week, 1) for week in (47, 48, 49))


@pytest.fixture(scope="module")
def drifting(tmp_path_factory) -> Warehouse:
    """judge-y#1 (10 items a week, 2026-W45 to W47) alerts on helpfulness in W47; solo#1 rates in W47 only (its
    first week, a baseline week); growing#1 rates 3 items a week in W45 to W48, its baseline, and 20 in W49."""
    root = tmp_path_factory.mktemp("report_judge_drift")
    warehouse = Warehouse(root / "w.duckdb")
    warehouse.ingest(write_lines(root / "forms.jsonl", drift_forms(items_per_week=10) + growing_forms()))
    warehouse.build("--select", "+fct_judge_drift", "+rpt_weekly_drift_alerts", "rpt_build_settings")
    return warehouse


def _part(warehouse: Warehouse, week: dt.date):
    with duckdb.connect(str(warehouse.path), read_only=True) as con:
        return judge_drift.build(Context(Reader(con), week))


@pytest.mark.slow
def test_a_week_of_a_baseline_past_its_first_two_weeks_says_baseline_weeks_and_when_drift_can_be_tested(drifting):
    headline = _part(drifting, W48).headline
    # Before: growing#1's week 4 was a week after a 6-item baseline: "too few items to test" (and W49 for ever).
    assert headline.text.startswith("Judge drift not assessed in 2026-W48: baseline weeks.")
    assert "too few items" not in headline.text and "No judge drift alerts" not in headline.text
    assert "drift can be tested from 2026-W49" in headline.text and headline.tone == "muted"
    headline = _part(drifting, W49).headline
    assert headline.text.startswith("No judge drift alerts in 2026-W49: 5 judge-dimension pairs (1 judge) tested")


@pytest.mark.slow
def test_an_alert_in_the_week_the_judges_version_changed_says_the_version_is_new(drifting):
    """judge-y#1 rated as v1 in its baseline weeks (W45, W46) and as v2 in W47, the week it alerts: the alert's
    sentence and the alerts table say so, as rpt_weekly_drift_alerts carries it."""
    part = _part(drifting, W47)
    said = [block.text for block in part.section.blocks if hasattr(block, "text")]
    assert said[1].endswith("It rated with v2 in this week, a version its baseline did not use (v1).")
    assert said[1] in part.headline.text
    alerts = part.section.blocks[-1]
    assert alerts.columns[-1] == "Judge version"
    assert [(row[-1].text, row[-1].tone) for row in alerts.rows] == [("v2 (new; baseline: v1)", "bad")]
    assert "\"new\" when its baseline did not rate with it" in alerts.caption


@pytest.mark.slow
def test_a_week_with_alerts_names_the_pairs_still_in_their_baseline_weeks(drifting):
    part = _part(drifting, W47)
    said = [block.text for block in part.section.blocks if hasattr(block, "text")]
    assert said[0].startswith("1 drift alert in 2026-W47")
    # The baseline the alert is against, as rpt_weekly_drift_alerts carries it: its weeks and items.
    assert "on helpfulness, from +1.00 (its baseline: 2 weeks, 20 items) to +4.00" in said[1]
    alerts = part.section.blocks[-1]
    assert alerts.columns[6] == "Weeks (baseline)" and [row[6].text for row in alerts.rows] == ["2"]
    # Each alert's |z| beside the cutoff it passed (the Welch df's t at the normal's tail of 4), as the nearest-pairs
    # table of a quiet week has it.
    with duckdb.connect(str(drifting.path), read_only=True) as con:
        cutoffs = [value for (value,) in con.execute(
            "select drift_critical_value from marts.rpt_weekly_drift_alerts where week_start = ? order by judge_id",
            [W47]).fetchall()]
    assert alerts.columns[8:10] == ("z", "Cutoff |z|")
    assert [row[9].text for row in alerts.rows] == [fmt.num(value) for value in cutoffs] == ["5.17"]
    # Exact agreement with the pairs it is over (n_agreement_pairs: on a hazard, fewer than n_pairs)
    assert alerts.columns[10] == "Exact agreement (n pairs)"
    assert [row[10].text for row in alerts.rows] == [f"{fmt.num(share)} ({n})" for share, n in drifting.rows(
        "select exact_agreement, n_agreement_pairs from marts.rpt_weekly_drift_alerts where week_start = ? "
        "order by judge_id", [W47])] == ["0.00 (10)"]
    # solo#1's first week and growing#1's third (9 items so far), five dimensions each
    assert ("10 judge-dimension pairs (2 judges) were in their baseline weeks (a judge's first 2 weeks with people's "
            "ratings on a dimension, and more until they hold 10 items): not tested yet.") in said

@pytest.mark.slow
def test_the_bias_chart_shades_each_tested_weeks_alert_band_as_the_page_draws_it(drifting):
    """The chart's shading was the baseline ± 1.96 SE, a band no alert is read against; it is each tested week's
    baseline ± cutoff x the change's SE (the page's band), so the alert point lies outside its shading and a quiet
    week's inside. Baseline weeks have none; the chart's data table gives the band."""
    part = _part(drifting, W47)
    charts = [chart for sub in part.section.subsections for block in sub.blocks if isinstance(block, Figure)
              for chart in block.charts]
    assert [chart.title for chart in charts] == ["helpfulness"]
    expected = {}
    for week, bias, baseline, cutoff, se, alert, in_baseline in drifting.rows(
            "select week_start, mean_bias, baseline_bias, drift_critical_value, bias_delta_se, is_drift_alert, "
            "is_baseline_week from marts.fct_judge_drift where judge_id = 'judge-y#1' and dimension = 'helpfulness' "
            "and week_start <= ? order by week_start", [W47]):
        label = iso_week_label(week)
        if in_baseline:
            expected[label] = ""
            continue
        low, high = baseline - cutoff * se, baseline + cutoff * se
        assert (not low <= bias <= high) == alert  # what the shading says is the alert's verdict
        expected[label] = f"{fmt.signed(low)} to {fmt.signed(high)}"
    assert list(expected.values()).count("") == 2 and sum(bool(v) for v in expected.values()) == 1
    table = charts[0].data
    assert table.columns[3] == "Alerts outside"
    assert {row[0].text: row[3].text for row in table.rows} == expected
    bands = re.findall(r"<title>(\d{4}-W\d\d): alerts outside ([^<]*)</title></rect>", charts[0].svg)
    assert bands == [(label, text) for label, text in expected.items() if text]


def test_the_alert_cutoff_in_the_caption_follows_the_vars_the_build_used(drifting):
    with duckdb.connect(str(drifting.path), read_only=True) as con:
        settings = Context(Reader(con), W47).settings
    assert settings.built_at is not None  # read from the warehouse's rpt_build_settings
    caption = judge_drift._table([], settings).caption
    # The macro's t on 9 df at the normal's tail of 4: 6.999
    assert "with the normal tail of 4 (up to 7.0 with 10 items a window, nearer 4 with more)." in caption
    built = BuildSettings(drift_baseline_weeks=2, drift_min_items=21, drift_alert_z=3.0,
                          drift_critical_value_at_min_items=3.4223, model_change_min_samples=10,
                          model_change_min_changed_samples=6, refusal_change_min_items=10)
    caption = judge_drift._table([], built).caption
    # Student's t on 20 df at the normal's two-sided tail beyond 3 (0.0027): 3.42
    assert "with the normal tail of 3 (up to 3.4 with 21 items a window, nearer 3 with more)." in caption
    assert f"{t_critical_at_z(20, 3.0):.3f}" == "3.422"


def test_the_cutoff_is_none_below_two_degrees_of_freedom_as_the_macro_is():
    assert t_critical_at_z(1, 4.0) is None and t_critical_at_z(1.5, 4.0) is None
    assert 6.99 < t_critical_at_z(9, 4.0) < 7.01 and 5.03 < t_critical_at_z(20, 4.0) < 5.04


def _no_alert_week(pairs: list[tuple]) -> Reader:
    """An in-memory warehouse whose 2026-W47 has no drift alert and these tested pairs: (judge, dimension, n items,
    bias, change, z, cutoff); z None for a change with no spread."""
    con = duckdb.connect()
    con.execute("create schema marts")
    con.execute("create table marts.rpt_weekly_drift_alerts (judge_id varchar, dimension varchar, week_start date, "
                "drift_z double)")
    con.execute("create table marts.fct_judge_drift (judge_id varchar, dimension varchar, week_start date, "
                "is_baseline_week boolean, is_drift_alert boolean, no_test_reason varchar, n_items integer, "
                "mean_bias double, bias_se double, baseline_bias double, baseline_se double, "
                "baseline_n_items integer, bias_delta double, drift_z double, drift_critical_value double)")
    for judge, dimension, n_items, bias, change, z, cutoff in pairs:
        con.execute("insert into marts.fct_judge_drift values (?, ?, ?, false, false, null, ?, ?, 0.1, ?, 0.1, 20, "
                    "?, ?, ?)", [judge, dimension, W47, n_items, bias, bias - change, change, z, cutoff])
    return Reader(con)


def test_a_week_without_alerts_shows_how_near_the_tested_pairs_came_to_their_cutoff():
    """2026-W47 of the demo: "none moved beyond the t cutoff" was all the section said, the glance's line again. The
    nearest pair is the one with the largest |z| against its own cutoff (which grows as items fall), not the largest
    |z|: -2.0 against 4.0 is nearer than +2.4 against 7.0."""
    pairs = [("a#1", "helpfulness", 60, 0.2, 0.1, 0.5, 4.15),
             ("a#1", "plan_quality", 10, -0.3, -0.5, 2.4, 7.0),
             ("b#1", "safety", 40, -0.2, -0.3, -2.0, 4.0),
             ("b#1", "task_success", 12, 0.0, 0.0, None, None)]
    part = judge_drift.build(Context(_no_alert_week(pairs), W47))
    nearest = "The nearest to an alert: b#1 on safety, z = -2.00 against a cutoff of 4.00 (n = 40 items this week)."
    assert nearest in part.headline.text and "4 judge-dimension pairs" in part.headline.text
    table = next(b for b in part.section.blocks if isinstance(b, Table))
    assert [(r[0].text, r[1].text, r[7].text, r[8].text) for r in table.rows] == [
        ("b#1", "safety", "-2.00", "4.00"), ("a#1", "plan_quality", "+2.40", "7.00"),
        ("a#1", "helpfulness", "+0.50", "4.15")]
    assert table.columns[7:] == ("z", "Cutoff |z|")


def test_a_week_without_alerts_lists_the_nearest_ten_and_counts_the_rest():
    pairs = [("j#1", f"d{i:02d}", 30, 0.1, 0.1, i / 10, 4.0) for i in range(12)]
    pairs.append(("j#1", "exact", 30, 0.0, 0.0, None, None))
    part = judge_drift.build(Context(_no_alert_week(pairs), W47))
    table = next(b for b in part.section.blocks if isinstance(b, Table))
    assert len(table.rows) == judge_drift.MAX_NEAREST and table.rows[0][1].text == "d11"
    rest = [b.text for b in part.section.blocks if isinstance(b, Paragraph) and b.text.startswith("And ")]
    assert rest == ["And 3 more tested pairs: 2 further from their cutoff and 1 with no spread in either window (the "
                    "change exact, no z)."]
