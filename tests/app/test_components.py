"""The helpers pages test nullable values with: a NULL arrives as None, NaN or pd.NA, and none of them may pass
for a value (NaN is truthy) or crash a page (pd.NA refuses to be a bool); week axes tick on Mondays; a long chart
subtitle is drawn in lines; a verdict's colour is defined once, for every page; a table's link to a page carries
the query a page link would."""

from __future__ import annotations

import datetime as dt
import math
import re
from pathlib import Path

import pandas as pd
import pytest

NULLS = [None, math.nan, pd.NA, pd.NaT]


@pytest.fixture
def c(app_env):
    import components

    return components


@pytest.mark.parametrize("null", NULLS)
def test_a_null_is_neither_true_nor_false_and_reads_as_the_default(c, null):
    assert not c.is_true(null) and not c.is_false(null)
    assert c.text_or(null, "none set") == "none set"
    assert c.number_or(null) == 0
    assert c.cells([null, "x"], "(no answer recorded)") == ["(no answer recorded)", "x"]


def test_defined_values_keep_their_truth_and_text(c):
    assert c.is_true(True) and c.is_true(1) and c.is_true(pd.array([True], dtype="boolean")[0])
    assert c.is_false(False) and c.is_false(0) and c.is_false(pd.array([False], dtype="boolean")[0])
    assert c.text_or("weighted_average", "none") == "weighted_average"
    assert c.text_or("", "whole line") == "whole line"  # the empty JSON pointer: the whole document
    assert c.number_or(3) == 3.0
    assert c.cells([0.0, 2.5], "n/a", lambda v: f"{v:g}") == ["0", "2.5"]


def test_a_week_axis_ticks_on_each_weeks_monday_once(c):
    weeks = pd.Series(pd.to_datetime(["2026-11-09", "2026-10-05", "2026-11-09", None]))
    axis = c.week_x(weeks).to_dict()
    assert axis["field"] == "week_start" and axis["type"] == "temporal"
    days = [dt.date(v["year"], v["month"], v["date"]) for v in axis["axis"]["values"]]
    assert days == [dt.date(2026, 10, 5), dt.date(2026, 11, 9)]
    assert all(d.weekday() == 0 for d in days)


def test_a_long_subtitle_is_drawn_in_lines_that_fit_the_page(c):
    """Vega draws a subtitle string on one line, however long: the judge drift chart's ran past the page's edge."""
    text = ("Weekly bias with its 95% interval. The shaded band is how far the bias may move from the baseline before "
            "it alerts (the t cutoff in standard errors of the change), from the week after the baseline.")
    lines = c.title("Is the judge drifting?", text).to_dict()["subtitle"]
    assert len(lines) == 3 and all(len(line) <= c.SUBTITLE_LINE for line in lines)
    assert " ".join(lines) == text
    assert c.title("Q?", "Short.").to_dict()["subtitle"] == ["Short."]
    assert c.title("Q?").to_dict()["subtitle"] == []


def test_a_long_question_is_drawn_in_lines_that_fit_the_chart_at_900_px(c):
    """Vega cuts a title longer than its chart with an ellipsis: at 900 px the Leaderboard's read "acme_groundedness_
    suite/groundedness: which model..." and the Specs page's "How does each model...". Lines as wide as a subtitle's
    (SUBTITLE_LINE characters fit a chart as wide as the page), broken between words only."""
    question = "meta-llama/Llama-3.1-8B-Instruct: which model scores best on acme_groundedness_suite/groundedness?"
    for line in (c.SUBTITLE_LINE, c.SUBTITLE_LINE // 2 - 5):  # the page's width; a chart in a column of two
        lines = c.title(question, line=line).to_dict()["text"]
        # joined again with spaces: no name was broken, at its hyphens or otherwise
        assert isinstance(lines, list) and len(lines) >= 2 and " ".join(lines) == question, lines
        assert all(len(shown) * c.QUESTION_CHAR_PX <= line * c.SUBTITLE_CHAR_PX or " " not in shown
                   for shown in lines), lines
    assert c.title("Drifting on safety?").to_dict()["text"] == "Drifting on safety?"  # one line: as it was written


def test_a_tables_link_to_a_page_carries_its_choices_and_leaves_out_the_undefined(c):
    """A LinkColumn's cell is an address: the page's URL path (its file's name; the Overview's is the app's root)
    and the query st.page_link would give, a list repeating its key, nothing for an undefined or empty choice."""
    url = c.page_url("leaderboard", {"evaluation": ["gsm8k"], "model": ["acme/chat-13b", "b c"], "metric": None,
                                     "from": "2026-11-09", "week": []})
    assert url == "leaderboard?evaluation=gsm8k&model=acme%2Fchat-13b&model=b+c&from=2026-11-09"
    assert c.page_url("reliability") == "reliability"
    assert c.page_url("overview", {"week": "2026-W47"}) == "./?week=2026-W47"
    # Streamlit serves a page at its file's name unless the app gives it a url_path: the app gives none.
    app = (Path(__file__).parents[2] / "app" / "streamlit_app.py").read_text()
    assert sorted(re.findall(r'st\.Page\("app_pages/(\w+)\.py"', app)) == sorted(c.PAGES) and "url_path" not in app


def test_a_verdicts_colour_is_defined_once_and_pages_use_the_names(c):
    """Four pages drew met / short of a verdict / failed / not measured in three ambers, two reds and two greys; a page
    that writes one of the verdict colours as a literal again brings that back."""
    verdict_colours = {c.GOOD, c.WARN, c.BAD, c.MUTED}
    assert len(verdict_colours) == 4
    pages = sorted((Path(__file__).parents[2] / "app" / "app_pages").glob("*.py"))
    assert pages
    for page in pages:
        literals = {value.lower() for value in re.findall(r"#[0-9a-fA-F]{6}", page.read_text())}
        assert not literals & verdict_colours, f"{page.name} writes a verdict colour as a literal: use components'"
