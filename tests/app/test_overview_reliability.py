"""The Overview's numbers and the pages they link to agree for the week shown: a week's pass@k opens that week's
Reliability curves (with the marts' intervals), a change says which samples it is on, a drop's link shows the week
before, and what is counted now (backlog, quarantine) says so; the Reliability page says its period."""

from __future__ import annotations

import datetime as dt
import json
import urllib.parse

import pytest

from evalhouse.demo.world import REGRESSING_EVAL, REGRESSING_MODEL
from tests.app.conftest import LAST_WEEK, iso_week, run_page
from tests.app.page_parts import (chart_subtitle, chart_title, link_target, overview_models, problems,
                                  weekly_model_changes)

pytestmark = pytest.mark.slow

PREVIOUS_WEEK = LAST_WEEK - dt.timedelta(weeks=1)


def _links(at, page: str) -> list[tuple[dict[str, list[str]], str]]:
    return [(urllib.parse.parse_qs(link.proto.query_string), link.proto.label) for link in at.get("page_link")
            if link.proto.page == page]


def _captions(at) -> list[str]:
    return [c.value for c in at.caption]


def _specs(at) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("vega_lite_chart")]


def _stability_chart(at):
    """The stability chart's spec and its bars' data (the dataset with a row per model and verdict)."""
    from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df

    for chart in at.get("vega_lite_chart"):
        spec = json.loads(chart.proto.spec)
        if "always pass" in chart_title(spec):
            frames = [convert_arrow_bytes_to_pandas_df(d.data.data) for d in chart.proto.datasets]
            return spec, max(frames, key=len)
    raise AssertionError("no stability chart")


def _interval(value: float, low: float, high: float) -> str:
    return f"{value:.2f} [{low:.2f}, {high:.2f}]"


def _se_interval(value: float, se: float) -> str:
    """What the pages drew before the marts had intervals: mean +- 1.96 SE, clipped to [0, 1]."""
    return _interval(value, max(0.0, value - 1.96 * se), min(1.0, value + 1.96 * se))


# -- 1 and 2: the Overview's pass@k, with its interval, opens the same week's Reliability -------------------------

def test_the_overviews_pass_at_k_opens_the_reliability_of_that_week_with_the_same_numbers(demo_warehouse, app_env):
    app_env(demo_warehouse.path)
    model, evaluation = "acme/chat-7b", "mmlu_physics"
    k, pass_at, pass_at_se, pass_at_low, pass_at_high, pass_hat, pass_hat_low, pass_hat_high = demo_warehouse.rows(
        "select k, pass_at_k, pass_at_k_se, pass_at_k_ci_low, pass_at_k_ci_high, pass_hat_k, pass_hat_k_ci_low, "
        "pass_hat_k_ci_high from marts.fct_pass_at_k_weekly "
        "where model_id = ? and evaluation_name = ? and trial_metric = 'accuracy' and week_start = ? "
        "order by k desc limit 1", [model, evaluation, LAST_WEEK])[0]
    shown_at = _interval(pass_at, pass_at_low, pass_at_high)
    shown_hat = _interval(pass_hat, pass_hat_low, pass_hat_high)
    # The mart's Wilson interval reads differently from mean +- 1.96 SE here, so the test can tell them apart.
    assert shown_at != _se_interval(pass_at, pass_at_se)
    all_time = demo_warehouse.scalar(
        "select pass_at_k from marts.fct_pass_at_k where model_id = ? and evaluation_name = ? and k = ?",
        [model, evaluation, k])
    assert f"{all_time:.2f}" != f"{pass_at:.2f}"  # the all-time curves would show another number

    at = run_page("overview")
    assert not problems(at)
    table = overview_models(at)
    row = table[table["model on eval"] == f"{model} on {evaluation}"].iloc[0]
    page, query = link_target(row["curves"])
    assert page == "reliability" and query == {"evaluation": [evaluation], "metric": ["accuracy"], "model": [model],
                                               "week": [iso_week(LAST_WEEK)]}
    # Both with the mart's 95% intervals (Wilson's over tasks), as every other number on the page.
    assert (row["k"], row["pass@k"], row["pass^k"]) == (str(k), shown_at, shown_hat)

    at = run_page("reliability", {key: v if len(v) > 1 else v[0] for key, v in query.items()})
    assert not problems(at)
    assert at.selectbox(key="reliability.week").value == iso_week(LAST_WEEK)
    curves = at.dataframe[0].value
    row = curves[(curves["model"] == model) & (curves["k"] == k)].iloc[0]
    assert row["pass@k [95% interval]"] == shown_at
    assert row["pass^k [95% interval]"] == shown_hat
    assert any(t.startswith(f"Week {iso_week(LAST_WEEK)}:") for t in _captions(at))


def test_reliability_shows_the_marts_interval_where_every_task_passed_not_a_point(demo_warehouse, app_env):
    """Every one of the 12 triage tasks passed at k = 1: the SE is 0, and mean +- 1.96 SE drew the point
    [1.00, 1.00]; the table and the chart's band show the mart's Wilson interval on 12 tasks, [0.76, 1.00]."""
    app_env(demo_warehouse.path)
    model, evaluation, metric = "openai/gpt-4.1-mini-2025-04-14", "support_triage_v1", "label_accuracy"
    expected = demo_warehouse.frame(
        "select k, pass_at_k, pass_at_k_ci_low, pass_at_k_ci_high, pass_hat_k, pass_hat_k_ci_low, pass_hat_k_ci_high "
        "from marts.fct_pass_at_k where model_id = ? and evaluation_name = ? and trial_metric = ? order by k",
        [model, evaluation, metric])
    first = expected.iloc[0]
    assert first["k"] == 1 and first["pass_at_k"] == 1 and first["pass_at_k_ci_low"] < 0.8  # the case in question

    at = run_page("reliability", {"evaluation": evaluation, "metric": metric, "model": model})
    assert not problems(at)
    table = at.dataframe[0].value
    for row in expected.itertuples():
        shown = table[(table["model"] == model) & (table["k"] == row.k)].iloc[0]
        assert shown["pass@k [95% interval]"] == _interval(row.pass_at_k, row.pass_at_k_ci_low, row.pass_at_k_ci_high)
        assert shown["pass^k [95% interval]"] == _interval(row.pass_hat_k, row.pass_hat_k_ci_low,
                                                           row.pass_hat_k_ci_high)
    assert table.iloc[0]["pass@k [95% interval]"] == f"1.00 [{first['pass_at_k_ci_low']:.2f}, 1.00]"

    from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df

    curve = next(chart for chart in at.get("vega_lite_chart")
                 if "more attempts" in chart_title(json.loads(chart.proto.spec)))
    band = max((convert_arrow_bytes_to_pandas_df(d.data.data) for d in curve.proto.datasets), key=len)
    for measure, prefix in (("pass@k", "pass_at_k"), ("pass^k", "pass_hat_k")):
        drawn = band[band["measure"].str.startswith(measure)].sort_values("k")
        assert drawn["low"].tolist() == pytest.approx(expected[f"{prefix}_ci_low"].tolist(), abs=1e-12)
        assert drawn["high"].tolist() == pytest.approx(expected[f"{prefix}_ci_high"].tolist(), abs=1e-12)


def test_reliability_offers_all_time_and_the_weeks_with_pass_at_k(demo_warehouse, app_env):
    app_env(demo_warehouse.path)
    weeks = [iso_week(w) for (w,) in demo_warehouse.rows(
        "select distinct week_start from marts.fct_pass_at_k_weekly order by week_start desc")]
    at = run_page("reliability")
    assert not problems(at)
    picker = at.selectbox(key="reliability.week")
    assert picker.options == ["all time", *weeks] and picker.value == "all time"
    # Its help said the page opened on the latest complete week, as every other picker's does.
    assert "The page opens on all time;" in picker.help and "latest complete week" not in picker.help
    assert any(t.startswith("All time: every run from") for t in _captions(at))
    assert all("over all runs" in chart_title(spec) for spec in _specs(at) if "tasks" in chart_title(spec)
               or "attempts" in chart_title(spec))


def test_the_stability_counts_of_a_week_are_that_weeks_runs_and_say_so(demo_warehouse, app_env):
    app_env(demo_warehouse.path)
    expected = dict(demo_warehouse.rows(
        "select stability, count(*) from marts.fct_task_stability_weekly where model_id = ? and evaluation_name = "
        "'tau_retail' and week_start = ? group by stability", [REGRESSING_MODEL, LAST_WEEK]))
    all_time = dict(demo_warehouse.rows(
        "select stability, count(*) from marts.fct_task_stability where model_id = ? and evaluation_name = "
        "'tau_retail' group by stability", [REGRESSING_MODEL]))
    assert expected != all_time  # the week's counts differ from the pooled ones: the test can tell them apart
    at = run_page("reliability", {"evaluation": "tau_retail", "model": REGRESSING_MODEL, "week": iso_week(LAST_WEEK)})
    assert not problems(at)
    spec, data = _stability_chart(at)
    assert f"in {iso_week(LAST_WEEK)}'s runs" in chart_title(spec)
    assert dict(zip(data["stability"], data["n_tasks"])) == expected
    flaky = at.dataframe[1].value
    assert len(flaky) == expected.get("flaky", 0)


def test_a_weeks_single_trial_tasks_show_as_no_verdict_not_as_stable(demo_warehouse, app_env):
    """The suite's evals attempt each task once a week: one trial cannot show whether a task always passes, so the
    week's bars are "no verdict", where they read stable_pass and stable_fail and no task could ever be flaky."""
    app_env(demo_warehouse.path)
    evaluation = "acme_groundedness_suite/groundedness"
    n_tasks = demo_warehouse.scalar(
        "select count(*) from marts.fct_task_stability_weekly where model_id = ? and evaluation_name = ? "
        "and week_start = ?", [REGRESSING_MODEL, evaluation, LAST_WEEK])
    at = run_page("reliability", {"evaluation": evaluation, "model": REGRESSING_MODEL, "week": iso_week(LAST_WEEK)})
    assert not problems(at)
    spec, data = _stability_chart(at)
    assert n_tasks > 0 and dict(zip(data["stability"], data["n_tasks"])) == {"no verdict": n_tasks}
    assert "no verdict: fewer than two trials were scored" in chart_subtitle(spec)


# -- 6: the stability chart's axis is a share, and the counts are shown ----------------------------------------------

def test_the_stability_chart_labels_its_share_axis_and_shows_the_number_of_tasks(demo_warehouse, app_env):
    app_env(demo_warehouse.path)
    counts = dict(demo_warehouse.rows(
        "select stability, count(*) from marts.fct_task_stability where model_id = ? and evaluation_name = "
        "'tau_retail' group by stability", [REGRESSING_MODEL]))
    at = run_page("reliability", {"evaluation": "tau_retail", "model": REGRESSING_MODEL})
    assert not problems(at)
    spec, data = _stability_chart(at)
    layers = spec["layer"]
    x_titles = [layer["encoding"]["x"].get("title") for layer in layers if "title" in layer["encoding"]["x"]]
    assert x_titles == ["share of the model's tasks"]
    texts = [layer for layer in layers if (layer["mark"]["type"] if isinstance(layer["mark"], dict)
                                           else layer["mark"]) == "text"]
    assert texts and texts[0]["encoding"]["text"]["field"] == "n_tasks"
    assert set(data["model"]) == {f"{REGRESSING_MODEL} ({sum(counts.values())} tasks)"}
    assert dict(zip(data["stability"], data["n_tasks"])) == counts


# -- 3: a change says what it is on -----------------------------------------------------------------------------------

def test_a_change_on_few_shared_samples_says_so_beside_the_change_of_the_means(demo_warehouse, app_env):
    app_env(demo_warehouse.path)
    rows = weekly_model_changes(demo_warehouse, LAST_WEEK).query(
        "comparison == 'paired' and n_shared_samples < n_samples "
        "and accuracy_change.round(2) != paired_mean_difference.round(2)")
    assert len(rows) > 0  # the demo has a change whose paired difference and means disagree
    at = run_page("overview")
    assert not problems(at)
    table = overview_models(at).set_index("model on eval")
    for row in rows.itertuples():
        shown = table.loc[row.model_on_eval]
        assert shown["n samples"] == f"{row.n_samples}" and shown["last week"].startswith(
            f"{row.previous_accuracy:.2f} (n=")
        assert shown["change"] == f"{row.paired_mean_difference:+.2f}", row
        assert shown["change is on"] == (f"on the {row.n_shared_samples} samples both weeks share "
                                         f"(the two means moved {row.accuracy_change:+.2f})"), row


# -- 4: a drop's links show the week before too ------------------------------------------------------------------

def test_a_drops_links_open_the_leaderboard_on_this_week_and_the_week_before(demo_warehouse, app_env):
    app_env(demo_warehouse.path)
    at = run_page("overview")
    assert not problems(at)
    days = {"from": [PREVIOUS_WEEK.isoformat()], "to": [(LAST_WEEK + dt.timedelta(days=6)).isoformat()]}
    # The card's link, and the drop's row in the table of models.
    card = [q for q, label in _links(at, "leaderboard") if label == "Which models, which evals?"]
    table = overview_models(at)
    row = table[table["model on eval"] == f"{REGRESSING_MODEL} on {REGRESSING_EVAL}"].iloc[0]
    page, query = link_target(row["runs"])
    assert row["verdict"] == "▼ Regression" and page == "leaderboard"
    for drop in (card[0], query):
        assert drop == {"evaluation": [REGRESSING_EVAL], "model": [REGRESSING_MODEL], **days}

    at = run_page("leaderboard", {key: v if len(v) > 1 else v[0] for key, v in query.items()})
    assert not problems(at)
    table = at.dataframe[-1].value  # one row per run: this week's and the week before's, the drop between them
    assert len(table) == 2


def test_the_drops_card_gives_the_tested_changes_its_count_is_of(demo_warehouse, app_env):
    """"1" significant drop is a count without its n: the card says of how many tested changes, and how many went
    untested (rpt_weekly_summary, recounted here from rpt_weekly_model_changes.is_significant)."""
    app_env(demo_warehouse.path)
    tested, untested, drops = demo_warehouse.rows(
        "select count(is_significant), count(*) - count(is_significant), count(*) filter (where is_regression) "
        "from marts.rpt_weekly_model_changes where week_start = ?", [LAST_WEEK])[0]
    assert tested > 0 and untested > 0 and drops == 1
    at = run_page("overview")
    assert not problems(at)
    assert any(text.startswith(f"1 of {tested} tested changes; {untested} not tested (no week before, too few "
                               "samples or changes, or no variation).") for text in _captions(at)), _captions(at)


# -- 5: what is counted now says so; the drift card words none as none -------------------------------------------

def test_a_past_week_says_the_backlog_and_quarantine_are_counted_now(demo_warehouse, app_env):
    app_env(demo_warehouse.path)
    at = run_page("overview", {"week": iso_week(PREVIOUS_WEEK)})
    assert not problems(at)
    labels = {m.label for m in at.metric}
    assert {"Review backlog now", "Lines quarantined, still refused now"} <= labels
    captions = _captions(at)
    assert any(f"Today's queue, not {iso_week(PREVIOUS_WEEK)}'s" in t for t in captions)
    assert any(f"not only {iso_week(PREVIOUS_WEEK)}'s" in t for t in captions)
    assert not any("(s)" in t for t in captions)
    alerts, tested, untested = demo_warehouse.rows(
        "select n_drift_alerts, n_drift_tested, n_drift_untested from marts.rpt_weekly_summary where week_start = ?",
        [PREVIOUS_WEEK])[0]
    # none, with the n it is none of (recounted from fct_judge_drift): "0" alone could be "nothing was tested"
    assert (tested, untested) == demo_warehouse.rows(
        "select count(is_drift_alert), count(*) - count(is_drift_alert) from marts.fct_judge_drift "
        "where week_start = ? and not is_baseline_week", [PREVIOUS_WEEK])[0]
    assert alerts == 0 and tested > 0
    said = f"No judge drifted past its threshold: 0 of {tested} tested judge × dimension pairs"
    assert any(t.startswith(said) for t in captions), captions
    assert not any("From 0 judge" in t for t in captions)


def test_reliability_writes_pass_at_k_and_pass_rates_as_shares_as_its_tables_and_the_report_do(demo_warehouse,
                                                                                               app_env):
    """The pass@k chart's axis read 0% to 100% beside a table of 0.78 [0.62, 0.88], and the flaky tasks' pass rate
    read 46.88%: every pass@k and pass rate on the page is now a share with two decimals, as elsewhere."""
    app_env(demo_warehouse.path)
    at = run_page("reliability")
    assert not problems(at)
    curve = next(spec for spec in _specs(at) if "more attempts" in chart_title(spec))
    axes = [layer["encoding"]["y"].get("axis", {}) for layer in curve["layer"] if "y" in layer["encoding"]]
    assert {axis.get("format") for axis in axes if axis} == {".1f"}, axes
    flaky = [json.loads(frame.proto.columns) for frame in at.dataframe if "pass rate" in frame.value.columns]
    assert flaky and flaky[0]["pass rate"]["type_config"]["format"] == "%.2f", flaky
