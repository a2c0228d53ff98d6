"""The weekly report on the demo warehouse: the stories the demo tells show up where a reader looks for them,
record text is escaped, an empty week says so, and the same week renders the same bytes."""

from __future__ import annotations

import datetime as dt
import shutil
from html import escape

import duckdb
import pytest

from evalhouse.demo.world import (
    REGRESSING_EVAL, REGRESSING_MODEL, SHIFTED_JUDGE_ID, STABLE_JUDGE_ID, VIOLATING_HAZARD, VIOLATING_MODEL,
)
from evalhouse.report import ReportRequest, build_report, iso_week_label, latest_week
from evalhouse.report.build import _counts
from evalhouse.report.sections import judge_drift, model_scores, operations, promotions, safety
from tests.report.conftest import (
    DURING_LAST_WEEK, EMPTY_WEEK, GENERATED_AT, LAST_WEEK, SHIFTED_WEEK, report_text, section_html,
    without_generated_line,
)

pytestmark = pytest.mark.slow

SCRIPT = "<script>alert('x')</script>"


def test_shifted_judge_week_lists_that_judges_alert_with_its_chart(shifted_week_html):
    drift = section_html(shifted_week_html, judge_drift.ANCHOR)
    assert escape(SHIFTED_JUDGE_ID) in drift
    assert escape(STABLE_JUDGE_ID) not in drift
    assert "drift alert" in drift and "No judge drift alerts" not in drift
    assert drift.count("<svg") >= 1 and ">alert</text>" in drift  # the bias chart marks the alert week
    assert f"<figcaption>Is {escape(SHIFTED_JUDGE_ID)} drifting from people?" in drift  # the chart's question


def test_quiet_week_lists_no_drift_alert(last_week_html):
    drift = section_html(last_week_html, judge_drift.ANCHOR)
    assert "No judge drift alerts in 2026-W47" in drift
    # The judges are named only in the table of tested pairs nearest their cutoff: no alert, chart or red cell.
    assert "<svg" not in drift and "tone-bad" not in drift and "weekly bias against people" not in drift
    assert escape(SHIFTED_JUDGE_ID) not in drift[:drift.index("<table")]


def test_bias_chart_stops_at_the_reports_week(shifted_week_html):
    drift = section_html(shifted_week_html, judge_drift.ANCHOR)
    assert ">W45</text>" in drift and ">W46</text>" not in drift and ">W47</text>" not in drift


def test_regression_comes_first_in_a_plain_sentence_with_n_and_t(last_week_html):
    scores = section_html(last_week_html, model_scores.ANCHOR)
    first_paragraph = scores[scores.index("<p"):scores.index("</p>")]
    assert f"{escape(REGRESSING_MODEL)} fell from 0.71 to 0.56 on {REGRESSING_EVAL}" in first_paragraph
    # Scores averaged over trials: the paired t (not a z), to two decimals.
    assert "n = 40 shared samples" in first_paragraph and "t = -4.27" in first_paragraph
    # The difference's standard error is named as one: a bare "± 0.04" reads as the 95% interval, twice as wide.
    assert "mean difference -0.16 (SE 0.04), t = -4.27" in first_paragraph and "±" not in first_paragraph
    assert "1 better, 17 worse" in first_paragraph
    first_row = scores[scores.index("<tbody><tr>"):scores.index("</tr>", scores.index("<tbody><tr>"))]
    assert escape(REGRESSING_MODEL) in first_row and "Regression" in first_row


def test_each_change_says_the_n_its_z_was_computed_on_and_whether_paired(demo_warehouse, last_week_html):
    scores = section_html(last_week_html, model_scores.ANCHOR)
    compared = demo_warehouse.rows(
        "select n_compared, comparison from marts.rpt_weekly_model_changes where week_start = ? "
        "and comparison is not null", [LAST_WEEK])
    assert {kind for _, kind in compared} >= {"paired"}
    for n, kind in compared:
        assert f">{n:,} {kind}<" in scores, (n, kind)
    assert "n shared" not in scores


def test_glance_leads_with_the_regression(last_week_html):
    glance = section_html(last_week_html, "at-a-glance")
    first_item = glance[glance.index("<li"):glance.index("</li>")]
    assert "regression" in first_item and f"{escape(REGRESSING_MODEL)} on {REGRESSING_EVAL} (0.71 to 0.56" in first_item


def test_safety_lists_the_violating_model_and_hazard(last_week_html):
    section = section_html(last_week_html, safety.ANCHOR)
    assert f"{escape(VIOLATING_MODEL)} violated {VIOLATING_HAZARD}" in section


def test_record_text_is_escaped_never_markup(last_week_html, demo_warehouse):
    # The demo's anchor task carries a <script> tag in its prompt and response: it must read as text.
    assert demo_warehouse.scalar(
        "select count(*) from staging.stg_aif__eval_forms where prompt like ?", [f"%{SCRIPT}%"]) > 0
    assert SCRIPT not in last_week_html
    assert "<script" not in last_week_html.lower()
    assert escape(SCRIPT) in last_week_html  # &lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;
    assert "<img src=x" not in last_week_html


def test_markdown_escapes_record_text_too(demo_warehouse):
    md = report_text(demo_warehouse.path, LAST_WEEK, "md")
    assert "<script" not in md.lower() and "&lt;script&gt;" in md
    assert md.startswith("# Weekly quality report: 2026-W47\n")
    assert "## Did any model get worse this week?" in md


def test_empty_week_gives_a_short_report_that_says_so(demo_warehouse):
    html = report_text(demo_warehouse.path, EMPTY_WEEK)
    assert "No data for 2025-W01" in html and "There is no data for 2025-W01" in html
    assert "evalhouse report --week 2026-W47" in html  # points at the latest week with results
    assert html.count("<section") == 1 and len(html) < 10_000
    md = report_text(demo_warehouse.path, EMPTY_WEEK, "md")
    assert "There is no data for 2025-W01" in md


def test_empty_warehouse_gives_a_report_not_an_error(empty_warehouse):
    assert latest_week(empty_warehouse.path) is None
    html = report_text(empty_warehouse.path, None)
    assert "There is no data for" in html and "holds no results yet" in html


def test_same_week_renders_the_same_bytes_apart_from_the_generation_time(demo_warehouse):
    for format in ("html", "md"):
        first = report_text(demo_warehouse.path, SHIFTED_WEEK, format, dt.datetime(2026, 11, 23, 7, 0, 0))
        second = report_text(demo_warehouse.path, SHIFTED_WEEK, format, dt.datetime(2027, 1, 2, 3, 4, 5))
        assert first != second
        assert without_generated_line(first) == without_generated_line(second)


def test_default_week_is_the_latest_week_with_results_once_it_is_over(demo_warehouse):
    assert latest_week(demo_warehouse.path, GENERATED_AT.date()) == LAST_WEEK
    report = build_report(ReportRequest(demo_warehouse.path, generated_at=GENERATED_AT))
    assert report.title == "Weekly quality report: 2026-W47"
    assert "in progress" not in report.subtitle


def test_default_week_is_the_latest_complete_week_not_the_one_under_way(demo_warehouse):
    previous = LAST_WEEK - dt.timedelta(weeks=1)
    assert latest_week(demo_warehouse.path, DURING_LAST_WEEK.date()) == previous
    report = build_report(ReportRequest(demo_warehouse.path, generated_at=DURING_LAST_WEEK))
    assert report.title == f"Weekly quality report: {iso_week_label(previous)}"
    assert "in progress" not in report.subtitle


def test_the_week_under_way_asked_for_says_it_is_in_progress_and_as_of_when(demo_warehouse):
    html = report_text(demo_warehouse.path, LAST_WEEK, generated_at=DURING_LAST_WEEK)
    header = html[:html.index("</header>")]
    assert "Weekly quality report: 2026-W47 (in progress)" in header
    assert "Sunday 22 November 2026 (UTC): in progress, as of 2026-11-21 01:00 UTC" in header
    assert "This week so far" in header
    glance = section_html(html, "at-a-glance")
    assert "2026-W47 is not over: this report covers it up to 2026-11-21 01:00 UTC" in glance
    assert "The latest complete week with results is 2026-W46: evalhouse report --week 2026-W46" in glance
    md = report_text(demo_warehouse.path, LAST_WEEK, "md", generated_at=DURING_LAST_WEEK)
    assert md.startswith("# Weekly quality report: 2026-W47 (in progress)\n") and "is not over" in md


def test_with_no_complete_week_the_default_is_the_week_under_way_marked_so(demo_warehouse, tmp_path):
    copy = tmp_path / "only_this_week.duckdb"
    shutil.copy(demo_warehouse.path, copy)
    with duckdb.connect(str(copy)) as con:
        con.execute("update marts.rpt_weekly_summary set has_results = false where week_start < ?", [LAST_WEEK])
    assert latest_week(copy, DURING_LAST_WEEK.date()) == LAST_WEEK
    report = build_report(ReportRequest(copy, generated_at=DURING_LAST_WEEK))
    assert report.title == "Weekly quality report: 2026-W47 (in progress)"
    glance = report.sections[0]
    assert "is not over" in glance.blocks[0].text and "latest complete week" not in glance.blocks[0].text


def test_header_shows_span_counts_and_the_command(last_week_html):
    header = last_week_html[:last_week_html.index("</header>")]
    assert "Data span" in header and "2026-W40 to 2026-W47" in header
    assert " trials (" in header and "of 4 models" in header and "quarantined" in header
    assert "<code>evalhouse report --week 2026-W47</code>" in header


def test_header_counts_the_answers_beside_the_trials_where_an_answer_is_scored_on_several_metrics(
        demo_warehouse, last_week_html):
    """The demo's support_triage_v1 scores each answer on three rubrics: three trials, one attempt."""
    attempts = ("select count(*) from (select distinct evaluation_name, model_id, sample_id, trial_index "
                "from marts.fct_trials {}) as a")
    with duckdb.connect(str(demo_warehouse.path), read_only=True) as con:
        week = con.execute("select count(*), (" + attempts.format("where week_start = $w") + ") from marts.fct_trials "
                           "where week_start = $w", {"w": LAST_WEEK}).fetchone()
        every = con.execute("select count(*), (" + attempts.format("") + ") from marts.fct_trials").fetchone()
    header = last_week_html[:last_week_html.index("</header>")]
    for trials, answers in (week, every):
        assert answers < trials
        assert f"{trials:,} trials ({answers:,} attempts, some scored on several metrics) of 4 models" in header


def test_counts_say_trials_alone_where_each_attempt_is_scored_on_one_metric():
    row = {"n_trials": 40, "n_attempts": 40, "n_models_evaluated": 2, "n_evals": 1, "n_ratings": 0,
           "n_rated_items": 0, "n_raters": 0}
    assert _counts(row).startswith("40 trials of 2 models on 1 eval;")


def test_missing_marts_say_not_available(demo_warehouse, tmp_path):
    copy = tmp_path / "without_safety.duckdb"
    shutil.copy(demo_warehouse.path, copy)
    with duckdb.connect(str(copy)) as con:
        for mart in ("rpt_weekly_hazard_violations", "rpt_weekly_refusal_changes", "rpt_review_backlog",
                     promotions.MART):
            con.execute(f"drop table if exists marts.{mart}")
    html = report_text(copy, LAST_WEEK)
    assert "Not available in this warehouse: it has no marts.rpt_weekly_hazard_violations" in html
    assert "Not available in this warehouse: it has no marts.fct_promotion_decisions" in html
    assert "it has no marts.rpt_review_backlog" in section_html(html, operations.ANCHOR)


def test_promotions_list_the_weeks_decisions_with_their_failing_components(demo_warehouse, last_week_html):
    section = section_html(last_week_html, promotions.ANCHOR)
    if not demo_warehouse.scalar("select count(*) from information_schema.tables "
                                 "where table_schema = 'marts' and table_name = ?", [promotions.MART]):
        assert "Not available in this warehouse" in section
        return
    held = demo_warehouse.rows(
        "select model_id, spec_id, failing_components from marts.fct_promotion_decisions "
        "where week_start = ? and not is_promoted and failing_components <> ''", [LAST_WEEK])
    assert held, "the demo holds back some model every week"
    for model, spec, failing in held:
        assert f"{escape(model)} is not promoted under {escape(spec)}" in section
        assert f"failing: {escape(failing)}" in section


def test_review_backlog_counts_the_queue_and_its_age(demo_warehouse, last_week_html):
    section = section_html(last_week_html, operations.ANCHOR)
    waiting, oldest = demo_warehouse.rows("select count(*), max(age_days) from marts.fct_review_queue")[0]
    assert f"{waiting:,} records wait for a person" in section
    assert f"the oldest for {oldest:,} days" in section


def test_lines_of_the_week_loaded_by_a_later_run_stay_counted_and_are_said_loaded(tmp_path):
    """Ten lines refused under a wrong file name, then loaded once the name is restored, and one line no run could
    load: the week still counts eleven refused, and says ten have since been loaded, one still refused."""
    from tests.conftest import build_retried_warehouse

    warehouse = build_retried_warehouse(tmp_path)
    kinds = warehouse.rows("select n_lines, n_loaded_later from marts.rpt_weekly_quarantine order by n_lines")
    assert kinds == [(1, 0), (10, 10)]
    week = warehouse.scalar("select week_start from marts.rpt_weekly_quarantine limit 1")
    section = section_html(report_text(warehouse.path, week), operations.ANCHOR)
    assert f"The ingester refused 11 lines in {iso_week_label(week)}" in section
    assert "10 of 11 since loaded by a later ingest, 1 still refused" in section


def test_quarantined_lines_of_the_week_are_listed_by_reason(demo_warehouse):
    # A line counts in the week it was quarantined: the week the session ingested the demo, which is the demo's last
    # week (LAST_WEEK) only when the tests run in it.
    week = demo_warehouse.scalar("select max(week_start) from marts.fct_quarantined_lines")
    section = section_html(report_text(demo_warehouse.path, week), operations.ANCHOR)
    kinds = demo_warehouse.rows(
        "select error_kind, count(*) from marts.fct_quarantined_lines where week_start = ? group by error_kind",
        [week])
    assert kinds
    total = sum(n for _, n in kinds)
    assert f"The ingester refused {total:,} lines in {iso_week_label(week)}" in section
    for kind, n in kinds:
        assert f"{n:,} {kind}" in section
