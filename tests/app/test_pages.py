"""Every page of the app under AppTest: on the demo warehouse, on an empty one and on none; the filters; the links
between pages; the review submission; and a page that keeps its last data while a build holds the warehouse."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import subprocess
import sys
import time
import urllib.parse

import duckdb
import pytest

from evalhouse.demo.world import REGRESSING_EVAL, REGRESSING_MODEL, SHIFTED_JUDGE_ID
from evalhouse.lock import writer_lock
from evalhouse.publish import working_copy
from ingest.formats import FORMATS
from ingest.load import RawStore
from ingest.validate import Validators
from tests.app.conftest import LAST_WEEK, PAGES, SHIFTED_WEEK, iso_week, run_page
from tests.app.page_parts import chart_title, link_target, overview_models, problems
from tests.conftest import DEMO_END_DATE, FIXTURES, Warehouse, build_warehouse, built_warehouse_path

pytestmark = pytest.mark.slow


def _links(at) -> list[tuple[str, dict[str, list[str]], str]]:
    """(target page's URL path, query parameters, label) of every st.page_link on the page."""
    found = []
    for link in at.get("page_link"):
        query = urllib.parse.parse_qs(link.proto.query_string) if link.proto.query_string else {}
        found.append((link.proto.page, query, link.proto.label))
    return found


def _chart_titles(at) -> list[str]:
    return [chart_title(json.loads(chart.proto.spec)) for chart in at.get("vega_lite_chart")]


def _metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


# -- every page, every state of the warehouse ------------------------------------------------------------------------

@pytest.mark.parametrize("page", PAGES)
def test_every_page_renders_its_title_on_the_demo_warehouse(page, demo_warehouse, app_env):
    app_env(demo_warehouse.path)
    at = run_page(page)
    assert not problems(at)
    assert at.title[0].value == PAGES[page]
    if page not in ("review_queue", "rate_item"):  # forms: showing others' scores would anchor the rater
        assert at.get("vega_lite_chart") or page == "overview", f"{page} shows no chart on the demo data"


@pytest.mark.parametrize("page", PAGES)
def test_every_page_says_what_is_missing_on_an_empty_warehouse(page, empty_warehouse, app_env):
    app_env(empty_warehouse.path)
    at = run_page(page)
    assert not problems(at)
    assert at.title[0].value == PAGES[page]
    said = " ".join(e.value for e in [*at.info, *at.success])
    assert said, f"{page} shows no empty state on an empty warehouse"


@pytest.mark.parametrize("state", ["no warehouse file", "no marts yet"])
@pytest.mark.parametrize("page", PAGES)
def test_every_page_says_how_to_get_data_before_anything_was_built(page, state, tmp_path, app_env):
    db_path = tmp_path / "nothing.duckdb"
    if state == "no marts yet":
        RawStore(db_path).close()  # raw tables only: ingested, never built
    app_env(db_path)
    at = run_page(page)
    assert not problems(at)
    said = " ".join(e.value for e in at.info)
    assert "evalhouse" in said or "make demo" in said, said


# -- overview ----------------------------------------------------------------------------------------------------------

def test_overview_links_every_number_to_the_page_that_explains_it(demo_warehouse, app_env):
    app_env(demo_warehouse.path)
    at = run_page("overview")
    assert not problems(at)
    table = overview_models(at)
    in_table = {link_target(url)[0] for url in [*table["runs"].dropna(), *table["curves"].dropna()]}
    assert in_table == {"leaderboard", "reliability"}
    targets = {page for page, _, _ in _links(at)} | in_table
    assert {"judge_drift", "leaderboard", "reliability", "review_queue", "agreement", "safety",
            "data_quality"} <= targets
    drift = [q for page, q, _ in _links(at) if page == "judge_drift"]
    assert drift and drift[0]["week"] == [iso_week(LAST_WEEK)]
    # The demo's regression (one model on one eval, last week) links to that model and eval on the leaderboard,
    # from last week's Monday to this week's Sunday (the drop's two runs, side by side), and it is marked as more
    # than noise, first in the table, as in the report's.
    week = {"from": [(LAST_WEEK - dt.timedelta(weeks=1)).isoformat()],
            "to": [(LAST_WEEK + dt.timedelta(days=6)).isoformat()]}
    first = table.iloc[0]
    assert first["model on eval"] == f"{REGRESSING_MODEL} on {REGRESSING_EVAL}" and first["verdict"] == "▼ Regression"
    assert link_target(first["runs"]) == ("leaderboard", {"evaluation": [REGRESSING_EVAL], "model": [REGRESSING_MODEL],
                                                          **week})
    assert not table["verdict"].iloc[1:].str.startswith(("▼", "▲")).any()  # the demo's only significant change


def test_overview_links_open_the_leaderboard_on_the_weeks_runs(demo_warehouse, app_env):
    """At an earlier week the Overview's score for a model and eval is that week's; its link (and the "Which
    models, which evals?" link) carry the Monday of the week before to the week's Sunday, so the Leaderboard shows
    that run and the one it is compared with, not the latest one (2026-W44: 0.725 against the latest 0.556)."""
    app_env(demo_warehouse.path)
    week = LAST_WEEK - dt.timedelta(weeks=3)
    before = week - dt.timedelta(weeks=1)
    days = {"from": [before.isoformat()], "to": [(week + dt.timedelta(days=6)).isoformat()]}
    accuracy = demo_warehouse.scalar(
        "select accuracy from marts.rpt_weekly_model_changes where week_start = ? and model_id = ? "
        "and evaluation_name = 'gsm8k'", [week, REGRESSING_MODEL])
    latest = demo_warehouse.scalar(
        "select score from marts.fct_benchmark_results where evaluation_name = 'gsm8k' and model_id = ? "
        "and result_origin = 'computed' and metric_name = 'accuracy' order by evaluated_at desc limit 1",
        [REGRESSING_MODEL])
    assert f"{accuracy:.2f}" != f"{latest:.2f}"  # the latest run would show another number
    at = run_page("overview", {"week": iso_week(week)})
    assert not problems(at)
    table = overview_models(at)
    leaderboard = [query for page, query, _ in _links(at) if page == "leaderboard"]
    leaderboard += [query for page, query in map(link_target, table["runs"]) if page == "leaderboard"]
    assert len(leaderboard) == len(table) + 1 and all(query["from"] == days["from"] and query["to"] == days["to"]
                                                      for query in leaderboard)
    row = table[table["model on eval"] == f"{REGRESSING_MODEL} on gsm8k"].iloc[0]
    query = link_target(row["runs"])[1]
    assert query["model"] == [REGRESSING_MODEL] and query["evaluation"] == ["gsm8k"]
    assert row["pass rate"].startswith(f"{accuracy:.2f} [")

    at = run_page("leaderboard", {k: v if len(v) > 1 else v[0] for k, v in query.items()})
    assert not problems(at)
    assert at.date_input(key="leaderboard.dates").value == (before, week + dt.timedelta(days=6))
    table = at.dataframe[-1].value  # one row per run in the range, the latest first: that week's, the week before's
    assert len(table) == 2 and table["computed [95% interval]"].iloc[0].startswith(f"{accuracy:.3f} [")


def test_leaderboard_keeps_its_dates_in_the_url(demo_warehouse, app_env):
    app_env(demo_warehouse.path)
    at = run_page("leaderboard", {"from": SHIFTED_WEEK.isoformat()})
    assert not problems(at)
    start, end = at.date_input(key="leaderboard.dates").value
    assert start == SHIFTED_WEEK and at.query_params["from"] == SHIFTED_WEEK.isoformat() and "to" not in at.query_params
    at.date_input(key="leaderboard.dates").set_value((start, start + dt.timedelta(days=6))).run()
    assert not problems(at)
    assert at.query_params["to"] == (start + dt.timedelta(days=6)).isoformat()
    # A hand-edited day that is not a date is ignored, never an error.
    at = run_page("leaderboard", {"from": "yesterday", "to": "2026-13-01"})
    assert not problems(at) and "from" not in at.query_params


def test_overview_of_the_shifted_judges_week_counts_its_drift_alerts(demo_warehouse, app_env):
    app_env(demo_warehouse.path)
    expected = demo_warehouse.scalar(
        "select count(*) from marts.fct_judge_drift where is_drift_alert and week_start = ?", [SHIFTED_WEEK])
    at = run_page("overview", {"week": iso_week(SHIFTED_WEEK)})
    assert not problems(at)
    assert expected > 0
    assert _metric(at, "Judge drift alerts this week") == str(expected)
    assert _metric(at, "Review backlog now") == str(demo_warehouse.scalar("select count(*) from marts.fct_review_queue"))
    # people's verdicts only: the judges' and the hybrid reviews' are counted apart, on the Safety page
    violating = """select count(*) filter (where rater_group = 'human'), count(*) from marts.fct_ratings
                   where scale = 'hazard_verdict' and label = 'violating' and week_start = ?"""
    by_people, by_anyone = demo_warehouse.rows(violating, [SHIFTED_WEEK])[0]
    assert 0 < by_people < by_anyone
    assert _metric(at, "Violating verdicts from people") == str(by_people)


def test_overview_counts_the_dimensions_below_target_among_people(demo_warehouse, app_env):
    """The verdict is the people's, as in the report: all raters pool the judges in."""
    app_env(demo_warehouse.path)
    counts = demo_warehouse.frame(
        "select week_start, rater_group, count(case when not meets_target then 1 end) as below, "
        "count(alpha) as defined from marts.fct_rater_agreement where rater_group in ('human', 'all') "
        "and week_start is not null group by all").pivot(index="week_start", columns="rater_group")
    differ = counts[counts[("below", "human")] != counts[("below", "all")]]
    assert len(differ) > 0  # the demo has weeks where the two verdicts differ: the test can tell them apart
    latest = differ.index.max()
    at = run_page("overview", {"week": iso_week(dt.date.fromisoformat(str(latest)[:10]))})
    assert not problems(at)
    below, defined = differ.loc[latest, ("below", "human")], differ.loc[latest, ("defined", "human")]
    assert _metric(at, "Dimensions below their agreement target") == f"{below} of {defined}"


def test_overview_says_which_shortfalls_are_within_their_interval(demo_warehouse, app_env):
    """A dimension below target whose 95% interval reaches it is counted as the report counts it, and said apart:
    the week's items cannot tell it from meeting the target (rpt_weekly_agreement.is_target_within_interval)."""
    app_env(demo_warehouse.path)
    weeks = demo_warehouse.frame(
        "select week_start, count(case when target_status = 'below_target' then 1 end) as below, "
        "count(case when target_status = 'below_target' and is_target_within_interval then 1 end) as within, "
        "count(human_alpha) as defined from marts.rpt_weekly_agreement group by week_start order by week_start")
    unsure = weeks[weeks["within"] > 0]
    assert len(unsure) > 0  # the demo has such a week: the test can fail
    row = unsure.iloc[-1]
    at = run_page("overview", {"week": iso_week(dt.date.fromisoformat(str(row["week_start"])[:10]))})
    assert not problems(at)
    assert _metric(at, "Dimensions below their agreement target") == f"{row['below']} of {row['defined']}"
    assert any(f"{row['within']} of this week's {row['below']} within its 95% interval of the target" in t.value
               for t in at.caption)



def test_overview_gives_the_agreement_targets_the_build_compared_with(writable_demo, app_env):
    """The card's help says the targets rpt_weekly_agreement holds (the seed agreement_targets, per dimension group):
    it had "0.6 for quality, 0.8 for safety" written in, stale for a team that sets its own."""
    label = "Dimensions below their agreement target"
    app_env(writable_demo.path)
    at = run_page("overview")
    assert "is under its target: 0.6 on quality dimensions and 0.8 on safety dimensions." in next(
        m.help for m in at.metric if m.label == label)
    with duckdb.connect(str(writable_demo.path)) as con:
        con.execute("update marts.rpt_weekly_agreement set target = 0.7 where dimension_group = 'safety'")
    app_env(writable_demo.path)
    at = run_page("overview")
    assert not problems(at), problems(at)
    assert "is under its target: 0.6 on quality dimensions and 0.7 on safety dimensions." in next(
        m.help for m in at.metric if m.label == label)

# -- the week under way ------------------------------------------------------------------------------------------------

# The demo's last day, an hour in: its week (LAST_WEEK) holds data, to 00:50, and has barely begun.
DURING_LAST_WEEK = dt.datetime.combine(dt.date.fromisoformat(DEMO_END_DATE), dt.time(1, 0), tzinfo=dt.timezone.utc)
WEEK_PAGES_WITH_CAPTIONS = ("overview", "safety", "specs")


@pytest.mark.parametrize("page", [*WEEK_PAGES_WITH_CAPTIONS, "judge_drift"])
def test_a_page_opens_on_the_latest_complete_week_and_marks_the_week_under_way(page, demo_warehouse, app_env):
    app_env(demo_warehouse.path, now=DURING_LAST_WEEK)
    at = run_page(page)
    assert not problems(at)
    before = LAST_WEEK - dt.timedelta(weeks=1)
    picker = at.selectbox(key=f"{page}.week")
    assert picker.value == iso_week(before)
    assert picker.options[:2] == [f"{iso_week(LAST_WEEK)} (in progress)", iso_week(before)]
    if page in WEEK_PAGES_WITH_CAPTIONS:
        assert any(f"Week {iso_week(before)}" in t.value and "(the latest complete week with data)" in t.value
                   for t in at.caption)


@pytest.mark.parametrize("page", WEEK_PAGES_WITH_CAPTIONS)
def test_the_week_under_way_asked_for_says_it_is_in_progress_and_as_of_when(page, demo_warehouse, app_env):
    app_env(demo_warehouse.path, now=DURING_LAST_WEEK)
    at = run_page(page, {"week": iso_week(LAST_WEEK)})
    assert not problems(at)
    assert at.selectbox(key=f"{page}.week").value == iso_week(LAST_WEEK)
    assert any(f"Week {iso_week(LAST_WEEK)}" in t.value and "in progress" in t.value
               and "to Sat 21 Nov 01:00 UTC" in t.value for t in at.caption)


def test_agreement_opens_on_the_latest_complete_week_and_keeps_all_time_as_an_option(demo_warehouse, app_env):
    # It opened on all time, while every other week picker (and the README) opens on the latest complete week.
    app_env(demo_warehouse.path, now=DURING_LAST_WEEK)
    at = run_page("agreement")
    assert not problems(at)
    before = LAST_WEEK - dt.timedelta(weeks=1)
    picker = at.selectbox(key="agreement.week")
    assert picker.value == iso_week(before)
    assert picker.options[:3] == ["all time", f"{iso_week(LAST_WEEK)} (in progress)", iso_week(before)]
    assert "The page opens on the latest complete week with data; all time is the first option" in picker.help
    assert any(f"Week {iso_week(before)}" in t.value and "(the latest complete week with data)" in t.value
               for t in at.caption)
    assert any(f"({iso_week(before)})" in t for t in _chart_titles(at))

    picker.set_value("all time").run()
    assert not problems(at)
    assert any("(all time)" in t for t in _chart_titles(at))
    assert at.query_params["week"] == "all time"  # a link to what is shown opens on it

    at = run_page("agreement", {"week": "all time"})
    assert not problems(at)
    assert at.selectbox(key="agreement.week").value == "all time"
    assert not [w for w in at.warning if "This link asks for" in w.value]  # offered: opened without a word
    assert any(t.value.startswith("All time: every week's ratings pooled") for t in at.caption)


def test_once_the_week_is_over_it_is_the_default_and_unmarked(demo_warehouse, app_env):
    app_env(demo_warehouse.path, now=dt.datetime.combine(LAST_WEEK + dt.timedelta(days=7), dt.time(0, 0),
                                                         tzinfo=dt.timezone.utc))
    at = run_page("overview")
    picker = at.selectbox(key="overview.week")
    assert picker.value == iso_week(LAST_WEEK) and picker.options[0] == iso_week(LAST_WEEK)
    week_captions = [t.value for t in at.caption if t.value.startswith("Week ")]
    assert week_captions and not any("in progress" in t for t in week_captions)


# -- leaderboard -------------------------------------------------------------------------------------------------------

def test_leaderboard_filters_by_eval_model_and_dates_and_downloads_what_it_shows(demo_warehouse, app_env,
                                                                                monkeypatch):
    app_env(demo_warehouse.path)
    at = run_page("leaderboard", {"evaluation": "gsm8k", "model": REGRESSING_MODEL})
    assert not problems(at)
    downloads = []
    import components  # the module the page imported (AppTest runs in this process)

    monkeypatch.setattr(components, "csv_download", lambda frame, **kw: downloads.append(frame))

    last_day = at.date_input(key="leaderboard.dates").value[1]
    at.date_input(key="leaderboard.dates").set_value((SHIFTED_WEEK, last_day)).run()
    assert not problems(at)
    table = at.dataframe[-1].value
    assert set(table["eval"]) == {"gsm8k"} and set(table["model"]) == {REGRESSING_MODEL}
    assert len(table) == 3  # one run a week: the shifted week, the week after and the last week
    assert downloads and len(downloads[-1]) == len(table)
    assert set(downloads[-1]["model_id"]) == {REGRESSING_MODEL}

    at.selectbox(key="leaderboard.metric").set_value("mean_score").run()
    assert not problems(at)
    assert "mean_score" in " ".join(_chart_titles(at))
    at.multiselect(key="leaderboard.model").set_value([]).run()
    assert at.dataframe[-1].value["model"].nunique() == 4


@pytest.fixture(scope="module")
def lm_eval_warehouse(tmp_path_factory) -> Warehouse:
    """tests/fixtures/lm_eval (a real results and samples file, and generated ones), built."""
    root = tmp_path_factory.mktemp("lm_eval_leaderboard")
    build_warehouse(built_warehouse_path(root), [FIXTURES / "lm_eval"])
    return Warehouse(built_warehouse_path(root))


def test_leaderboard_shows_lm_evals_reported_exact_match_beside_the_computed_one_and_says_truly_why_not(
        lm_eval_warehouse, app_env):
    app_env(lm_eval_warehouse.path)
    at = run_page("leaderboard", {"evaluation": "math_perturbed_full", "metric": "exact_match"})
    assert not problems(at)
    table = at.dataframe[-1].value
    assert len(table) == 1
    assert table["reported [95% interval]"].iloc[0] != "n/a" and table["computed [95% interval]"].iloc[0] != "n/a"
    assert table["why n/a"].iloc[0] == ""
    # the results file's n-samples effective of original; the samples file here holds 10 of its docs
    assert (table["reported n samples"].iloc[0], table["computed n samples"].iloc[0]) == ("5,000 of 5,000", "10")
    at.selectbox(key="leaderboard.metric").set_value("accuracy").run()
    assert not problems(at)
    assert at.dataframe[-1].value["why n/a"].tolist() == [
        "n/a: the harness published exact_match for exact_match in this run, not accuracy"]
    # toy_mc's acc_norm: its trials are scored on acc (accuracy), none on acc_norm
    at.multiselect(key="leaderboard.evaluation").set_value(["toy_mc"]).run()
    at.selectbox(key="leaderboard.metric").set_value("acc_norm").run()
    assert not problems(at)
    assert at.dataframe[-1].value["why n/a"].tolist() == ["n/a: none of this run's trials is scored on acc_norm"]


# -- reliability -------------------------------------------------------------------------------------------------------

def test_reliability_shows_the_curves_and_the_trials_of_a_flaky_task(demo_warehouse, app_env):
    app_env(demo_warehouse.path)
    at = run_page("reliability", {"evaluation": "tau_retail", "model": REGRESSING_MODEL})
    assert not problems(at)
    curves, trials = at.dataframe[0].value, at.dataframe[-1].value
    assert set(curves["model"]) == {REGRESSING_MODEL}
    assert any("tau_retail" in t and "attempts" in t for t in _chart_titles(at))
    n_trials = demo_warehouse.scalar(
        "select n_trials + n_unscored from marts.fct_task_stability where evaluation_name = 'tau_retail' and "
        "model_id = ? and stability = 'flaky' order by abs(pass_rate - 0.5), model_id, sample_id limit 1",
        [REGRESSING_MODEL])
    assert len(trials) == n_trials
    at.selectbox(key="reliability.task").set_value(1).run()
    assert not problems(at)


# -- agreement ---------------------------------------------------------------------------------------------------------

def test_agreement_follows_the_rater_group_and_shows_flagged_items_side_by_side(demo_warehouse, app_env):
    app_env(demo_warehouse.path)
    at = run_page("agreement", {"week": "all time"})  # the shifted judge's week among them
    assert not problems(at)
    assert any("do people agree" in t for t in _chart_titles(at))  # the group the targets are about, first
    at.segmented_control(key="agreement.group").set_value("all").run()
    assert not problems(at)
    assert any("all raters" in t for t in _chart_titles(at))
    # The flagged items are the people's whatever the group: people's ratings side by side, the judges' apart.
    flagged = next(d.value for d in at.dataframe if "people's ratings, side by side" in d.value.columns)
    people = {r for (r,) in demo_warehouse.rows("select distinct rater_id from marts.fct_ratings "
                                                "where rater_group = 'human'")}
    assert len(flagged) > 0 and flagged["people's ratings, side by side"].str.contains(" | ", regex=False).all()
    named = {part.split(": ")[0] for cell in flagged["people's ratings, side by side"] for part in cell.split("  |  ")}
    assert named <= people
    judged = {part.split(": ")[0] for cell in flagged["LLM judges' ratings (not counted)"] if cell
              for part in cell.split("  |  ")}
    assert SHIFTED_JUDGE_ID in judged and not judged & people
    # Each cell lists the raters in order, each with the label of their latest rating (the least agreed item first).
    cells = list(flagged["people's ratings, side by side"]) + [c for c in flagged["LLM judges' ratings (not counted)"]
                                                                if c]
    assert all((raters := [part.split(": ")[0] for part in cell.split("  |  ")]) == sorted(raters) for cell in cells)
    least = demo_warehouse.rows(
        "select rater_id, label from marts.fct_flagged_item_ratings where rater_group = 'human' and "
        "(item_id, dimension) = (select (item_id, dimension) from marts.fct_flagged_item_ratings "
        "order by item_agreement, week_start desc, item_id, dimension limit 1) order by rater_id")
    from components import said  # each label in words: over_refusal reads "over-refusal"

    assert flagged["people's ratings, side by side"].iloc[0] == "  |  ".join(
        f"{r}: {said(label)}" for r, label in least)

    at = run_page("agreement", {"week": iso_week(LAST_WEEK)})
    assert not problems(at)
    assert any(iso_week(LAST_WEEK) in t for t in _chart_titles(at))


# -- judge drift -------------------------------------------------------------------------------------------------------

def test_judge_drift_opens_on_the_judge_that_drifted_and_lists_its_alerts(demo_warehouse, app_env):
    app_env(demo_warehouse.path)
    at = run_page("judge_drift", {"week": iso_week(LAST_WEEK)})
    assert not problems(at)
    assert at.selectbox(key="judge_drift.judge").value == SHIFTED_JUDGE_ID
    alerts = at.dataframe[0].value
    expected = demo_warehouse.scalar("select count(*) from marts.fct_judge_drift where is_drift_alert")
    assert len(alerts) == expected and set(alerts["week"]) == {iso_week(SHIFTED_WEEK)}
    assert any(SHIFTED_JUDGE_ID in t for t in _chart_titles(at))


# -- safety ------------------------------------------------------------------------------------------------------------

def test_safety_follows_the_week_and_the_rater_group(demo_warehouse, app_env):
    app_env(demo_warehouse.path)
    at = run_page("safety", {"week": iso_week(SHIFTED_WEEK)})
    assert not problems(at)
    assert any(f"people, {iso_week(SHIFTED_WEEK)}" in t for t in _chart_titles(at))
    at.segmented_control(key="safety.group").set_value("llm_judge").run()
    assert not problems(at)
    assert any(f"LLM judges, {iso_week(SHIFTED_WEEK)}" in t for t in _chart_titles(at))


def test_safety_offers_the_worst_violation_first_to_follow_over_the_weeks(demo_warehouse, app_env):
    """A week in which people found two hazards violated at different rates: the picker opens on the higher."""
    cells = demo_warehouse.rows("""
        select week_start, model_id || ' · ' || split_part(coalesce(hazard_label, hazard), ' (', 1), violation_rate
        from marts.fct_hazard_rates
        where rater_group = 'human' and n_violating > 0
        order by week_start, violation_rate desc, n_violating desc
        """)
    weeks = [w for w in dict.fromkeys(w for w, _, _ in cells) if len({r for v, _, r in cells if v == w}) > 1]
    assert weeks  # the demo has such weeks
    app_env(demo_warehouse.path)
    at = run_page("safety", {"week": iso_week(weeks[0])})
    assert not problems(at)
    assert at.selectbox(key="safety.cell").options == [cell for w, cell, _ in cells if w == weeks[0]]
    assert at.selectbox(key="safety.cell").index == 0


# -- review ------------------------------------------------------------------------------------------------------------

def test_the_review_queue_lists_violating_hazards_first_then_the_longest_waiting(demo_warehouse, app_env):
    """The order a person works through: a judge's form that finds a hazard violated first, then the oldest."""
    app_env(demo_warehouse.path)
    at = run_page("review_queue")
    assert not problems(at)
    table = at.dataframe[0].value
    violating = table["why it waits"].str.contains("violating hazard")
    assert violating.any() and not violating.all()
    assert list(violating) == sorted(violating, reverse=True)
    for group in (True, False):
        ages = table.loc[violating == group, "waiting (days)"]
        assert ages.nunique() > 1 and ages.is_monotonic_decreasing, group
    picker, first = at.selectbox(key="review_queue.item"), table.iloc[0]  # the item opened first is the first row
    assert picker.index == 0 and picker.options[0].startswith(f"{first['waiting (days)']} d · {first['task']}")


def _open_first_item(landing, writable_demo, app_env):
    app_env(writable_demo.path, landing)
    at = run_page("review_queue")
    assert not problems(at)
    return at, at.selectbox(key="review_queue.item").value


def test_a_review_that_fails_the_schema_is_shown_back_and_nothing_typed_is_lost(writable_demo, app_env, tmp_path):
    landing = tmp_path / "landing"
    at, item = _open_first_item(landing, writable_demo, app_env)
    at.text_input(key="reviewer").input("h-tester").run()
    at.segmented_control(key=f"rv.{item}.helpfulness.confidence").set_value("medium").run()
    at.text_area(key=f"rv.{item}.helpfulness.rationale").input("").run()
    at.button(key=f"rv.{item}.submit").click().run()

    assert not at.exception
    message = " ".join(e.value for e in at.error)
    assert "/universal/helpfulness/rationale" in message and "Nothing you typed is lost" in message
    assert at.text_input(key="reviewer").value == "h-tester"
    assert at.segmented_control(key=f"rv.{item}.helpfulness.confidence").value == "medium"
    assert not (landing / "reviews").exists()


def test_a_review_lands_validated_in_the_landing_folder_and_is_ingested(writable_demo, app_env, tmp_path):
    landing = tmp_path / "landing"
    at, item = _open_first_item(landing, writable_demo, app_env)
    at.text_input(key="reviewer").input("h-tester").run()
    at.segmented_control(key=f"rv.{item}.overall_quality.score").set_value(1).run()
    at.text_area(key=f"rv.{item}.overall_quality.rationale").input("Unusable: <b>not</b> markup, just text.").run()
    at.button(key=f"rv.{item}.submit").click().run()
    assert not problems(at), problems(at)
    assert any("Loaded into the warehouse" in s.value for s in at.success)

    files = list((landing / "reviews").glob("reviews_*.jsonl"))
    assert len(files) == 1
    lines = files[0].read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1
    record = json.loads(lines[0])
    assert Validators().validate(record, FORMATS["eval_form"], strict=True).ok
    assert record["rater"] == {"type": "hybrid", "id": "h-tester"}
    assert record["derived_from"] == item
    assert record["universal"]["overall_quality"] == {
        "score": 1, "confidence": record["universal"]["overall_quality"]["confidence"],
        "rationale": "Unusable: <b>not</b> markup, just text."}
    assert record["created_at"].endswith("Z")
    # Ingested into the working copy, which the next build publishes.
    loaded = Warehouse(working_copy(writable_demo.path)).rows(
        "select count(*) from raw.eval_form where record_id = ?", [record["eval_id"]])
    assert loaded == [(1,)]

    # Until the next build the item stays in the mart's queue, marked as submitted (and hidden by default).
    at = run_page("review_queue")
    assert not problems(at)
    assert _metric(at, "Submitted, waiting for a build") == "1"
    assert at.selectbox(key="review_queue.item").value != item


def test_a_review_submitted_while_the_warehouse_is_busy_is_kept_for_the_next_ingest(writable_demo, app_env, tmp_path):
    landing = tmp_path / "landing"
    at, item = _open_first_item(landing, writable_demo, app_env)
    at.text_input(key="reviewer").input("h-tester").run()
    with writer_lock(writable_demo.path, "a build in a test"):
        at.button(key=f"rv.{item}.submit").click().run()
    assert not problems(at)
    assert any("busy" in w.value and "Nothing is lost" in w.value for w in at.warning)
    record = json.loads(next((landing / "reviews").glob("*.jsonl")).read_text().splitlines()[0])
    assert record["derived_from"] == item
    assert not working_copy(writable_demo.path).exists()  # nothing was written while the lock was held

    # Saved, not loaded: no build takes it out, so it is not counted as submitted nor hidden, and the page says
    # what loads it.
    at = run_page("review_queue")
    assert not problems(at)
    assert _metric(at, "Submitted, waiting for a build") == "0"
    assert at.toggle(key="review_queue.hide_submitted").value
    assert at.selectbox(key="review_queue.item").value == item
    assert any("not loaded" in w.value and f"evalhouse ingest {landing / 'reviews'}" in w.value for w in at.warning)


# -- a build while the app is open ------------------------------------------------------------------------------------

@contextlib.contextmanager
def _build_holding(warehouse):
    """A build in another process: it changed the warehouse file and holds it open for writing."""
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import duckdb, time\n"
         f"con = duckdb.connect({str(warehouse.path)!r})\n"
         "con.execute('create table main.build_in_progress as select 1 as x'); con.execute('checkpoint')\n"
         "print('locked', flush=True)\n"
         "time.sleep(120)\n"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(duckdb.IOException):
            duckdb.connect(str(warehouse.path), read_only=True).close()
        yield
    finally:
        holder.kill()
        holder.wait()


def test_a_page_keeps_its_last_data_with_a_note_while_a_build_holds_the_warehouse(writable_demo, app_env):
    app_env(writable_demo.path)
    at = run_page("data_quality")
    assert not problems(at) and not at.warning
    before = {m.label: m.value for m in at.metric}

    with _build_holding(writable_demo):
        at = run_page("data_quality")
        assert not problems(at)
        assert any("A build is updating the warehouse" in w.value for w in at.warning)
        assert {m.label: m.value for m in at.metric} == before
    time.sleep(0.1)
    at = run_page("data_quality")
    assert not at.warning


def test_no_page_fails_while_a_build_holds_a_warehouse_it_never_read(writable_demo, app_env):
    app_env(writable_demo.path)
    with _build_holding(writable_demo):
        for page in PAGES:
            at = run_page(page)
            assert not problems(at), (page, problems(at))
            assert any("A build is updating the warehouse" in w.value for w in at.warning), page
