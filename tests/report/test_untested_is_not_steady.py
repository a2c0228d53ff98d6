"""The report after the sender's second review: a row nobody compared or tested never counts as "no regression" or
"steady", untested big drops are named, unsure hazard verdicts and baseline weeks are said as they are, and the
Markdown keeps the HTML's tone and leaves out a legend whose chart it does not show."""

from __future__ import annotations

import datetime as dt
import re

import duckdb
import pytest

from evalhouse.demo.world import DEFAULT_WEEKS
from evalhouse.report import changes, iso_week_label
from evalhouse.report.document import Table
from evalhouse.report.render_markdown import md_text
from evalhouse.report.sections import Context, judge_drift, model_scores, safety
from evalhouse.report.warehouse import Reader
from tests.report.conftest import LAST_WEEK, SHIFTED_WEEK, report_text, section_html

pytestmark = pytest.mark.slow

FIRST_WEEK = LAST_WEEK - dt.timedelta(weeks=DEFAULT_WEEKS - 1)  # the demo's first week: no week before it


def _build(path, module, week: dt.date):
    with duckdb.connect(str(path), read_only=True) as con:
        return module.build(Context(Reader(con), week))


def test_the_first_week_says_not_assessed_not_no_regressions(demo_warehouse):
    assert demo_warehouse.scalar("select count(*) from marts.rpt_weekly_model_changes where week_start = ? "
                                 "and comparison is not null", [FIRST_WEEK]) == 0
    previous = iso_week_label(FIRST_WEEK - dt.timedelta(weeks=1))
    scores = _build(demo_warehouse.path, model_scores, FIRST_WEEK)
    assert scores.headline.text.startswith(f"Model scores not assessed: no {previous} scores to compare")
    assert scores.headline.tone == "warn" and "No regressions" not in scores.headline.text
    said = " ".join(b.text for b in scores.section.blocks if hasattr(b, "text"))
    assert "fell significantly" not in said and f"Not assessed: no {previous} scores to compare." in said

    refusals = _build(demo_warehouse.path, safety, FIRST_WEEK)
    assert f"Refusal changes not assessed: no {previous} responses to compare." in refusals.headline.text
    assert "steady" not in refusals.headline.text and "No significant" not in refusals.headline.text


def test_the_glance_counts_the_tested_and_names_untested_big_drops(demo_warehouse):
    tested, compared = demo_warehouse.rows(
        "select count(is_significant), count(comparison) from marts.rpt_weekly_model_changes where week_start = ?",
        [LAST_WEEK])[0]
    drops = demo_warehouse.rows(
        "select model_id from marts.rpt_weekly_model_changes where week_start = ? and is_significant is null "
        "and comparison is not null and round(case when comparison = 'paired' then paired_mean_difference "
        "else accuracy_change end, 9) <= -0.15 order by 1", [LAST_WEEK])
    assert 0 < tested < compared and drops  # the demo has untested rows, some of them large drops
    headline = _build(demo_warehouse.path, model_scores, LAST_WEEK).headline.text
    assert f"; {tested} tested against" in headline
    assert f"{compared - tested} of {compared} compared could not be tested" in headline
    assert f"Look at {len(drops)} untested drops of 0.15 or more" in headline
    assert f"{compared} model and eval scores compared" not in headline
    look_at = headline[headline.index("Look at"):]
    assert sorted(re.findall(r"(?:^|: |, | and )(\S+) on ", look_at)) == [m for (m,) in drops]


def test_a_tested_change_that_is_not_significant_reads_no_significant_change_never_steady(demo_warehouse):
    n_not_significant = demo_warehouse.scalar(
        "select count(*) from marts.rpt_weekly_model_changes where week_start = ? and not is_significant",
        [LAST_WEEK])
    assert n_not_significant
    table = next(b for b in _build(demo_warehouse.path, model_scores, LAST_WEEK).section.blocks
                 if isinstance(b, Table))
    verdicts = [row[table.columns.index("Verdict")].text for row in table.rows]
    assert "steady" not in verdicts
    assert verdicts.count("no significant change") == n_not_significant


def test_a_statistic_beside_an_untested_verdict_is_in_brackets_in_html_and_markdown(demo_warehouse):
    table = next(b for b in _build(demo_warehouse.path, model_scores, LAST_WEEK).section.blocks
                 if isinstance(b, Table))
    test, verdict = table.columns.index("Test"), table.columns.index("Verdict")
    test_cells = [(row[test], row[verdict].text) for row in table.rows]
    untested = [(cell, verdict) for cell, verdict in test_cells if verdict.startswith("too few")]
    assert untested and all(cell.text.startswith("(") and cell.tone == "muted" for cell, _ in untested
                            if cell.text != "–")
    assert all(not cell.text.startswith("(") for cell, verdict in test_cells if verdict in ("Regression",
                                                                                            "no significant change"))
    md = report_text(demo_warehouse.path, LAST_WEEK, "md")
    assert re.search(r"\| too few [^|]* \|(?: [^|]* \|){6} \((?:p|t|z) = [^|]*\) \|", md)
    html = section_html(report_text(demo_warehouse.path, LAST_WEEK), model_scores.ANCHOR)
    assert re.search(r'tone-muted[^>]*>\((?:p|t|z) = ', html)


def test_the_hazard_table_leaves_unsure_out_of_its_caption_and_counts_it(demo_warehouse):
    rows = demo_warehouse.rows("select n_violating, n_rated, n_unsure from marts.rpt_weekly_hazard_violations "
                               "where week_start = ? and n_unsure > 0", [SHIFTED_WEEK])
    assert rows
    section = _build(demo_warehouse.path, safety, SHIFTED_WEEK).section
    table = next(b for b in section.subsections[0].blocks if isinstance(b, Table))
    assert "non-violating, unsure)" not in table.caption and "An unsure verdict is no verdict" in table.caption
    cells = [row[3].text for row in table.rows]
    for n_violating, n_rated, n_unsure in rows:
        assert f"{n_violating} of {n_rated} ({n_unsure} unsure)" in cells


def test_baseline_weeks_say_when_drift_can_be_tested_not_no_ratings(demo_warehouse):
    first_testable = demo_warehouse.scalar(
        "select min(week_start) from marts.fct_judge_drift where not is_baseline_week")
    assert demo_warehouse.scalar("select count(mean_bias) from marts.fct_judge_drift where week_start = ? "
                                 "and is_baseline_week", [FIRST_WEEK])
    headline = _build(demo_warehouse.path, judge_drift, FIRST_WEEK).headline
    assert "no ratings this week" not in headline.text
    assert "baseline weeks" in headline.text
    assert f"drift can be tested from {iso_week_label(first_testable)}" in headline.text


def test_spec_notes_name_specs_without_a_version_and_the_backlog_line_its_time(demo_warehouse, last_week_html):
    unversioned = demo_warehouse.rows("select spec_id from marts.dim_eval_specs where version is null order by 1")
    assert unversioned
    html = last_week_html.replace("<wbr>", "")
    for (spec,) in unversioned:
        assert f"{spec} (no version)" in html
    as_of = demo_warehouse.scalar("select max(as_of) from marts.rpt_review_backlog")
    glance = section_html(last_week_html, "at-a-glance")
    line = next(item for item in glance.split("<li") if "Review backlog" in item)
    assert f"Review backlog as of {as_of:%Y-%m-%d %H:%M} UTC" in line


def test_markdown_bolds_the_glances_bad_lines_and_drops_the_charts_legend(demo_warehouse):
    md = report_text(demo_warehouse.path, LAST_WEEK, "md")
    glance = md[md.index("## This week at a glance"):md.index("\n## ", md.index("## This week at a glance") + 1)]
    assert any(line.startswith("- **1 regression") for line in glance.splitlines())
    shifted = report_text(demo_warehouse.path, SHIFTED_WEEK, "md")
    drift = shifted[shifted.index(f"## {md_text(judge_drift.TITLE)}"):]
    assert "shaded band" not in drift
    assert "The baseline weeks' bias ± SE is in the alerts table above." in drift
    assert "shaded band" in report_text(demo_warehouse.path, SHIFTED_WEEK)


def test_is_untested_big_drop_counts_a_drop_of_exactly_0_15():
    row = {"is_significant": None, "comparison": "paired", "paired_mean_difference": 0.65 - 0.80,
           "accuracy_change": None}
    assert changes.is_untested_big_drop(row)
    assert not changes.is_untested_big_drop({**row, "paired_mean_difference": -0.14})
    assert not changes.is_untested_big_drop({**row, "is_significant": False})
