"""The helpers pages test nullable values with: a NULL arrives as None, NaN or pd.NA, and none of them may pass
for a value (NaN is truthy) or crash a page (pd.NA refuses to be a bool); week axes tick on Mondays; a chart's title
is drawn in lines that fit the chart's width; a verdict's colour is defined once, for every page; a table's link to
a page carries the query a page link would."""

from __future__ import annotations

import datetime as dt
import json
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


def _shown(text, chart_px: int) -> list[str]:
    """The lines a fitted title's text or subtitle shows in a chart `chart_px` wide, its expression worked out as
    Vega would: the breakings ([[...], [...]]) indexed by how many of the widths it compares with are reached."""
    if isinstance(text, list):
        return text
    breakings, end = json.JSONDecoder().raw_decode(text["expr"])
    widths = [int(w) for w in re.findall(r"\(chart_px >= (\d+)\)", text["expr"][end:])]
    assert widths == sorted(widths) and len(widths) == len(breakings) - 1, text["expr"][end:]
    return breakings[sum(chart_px >= w for w in widths)]


QUESTION = "meta-llama/Llama-3.1-8B-Instruct: which model scores best on acme_groundedness_suite/groundedness?"
SUBTITLE = ("Weekly bias with its 95% interval. The shaded band is how far the bias may move from the baseline before "
            "it alerts (the t cutoff in standard errors of the change), from the week after the baseline; a red point "
            "is an alert for openai/gpt-4.1-mini-2025-04-14.")


def test_a_title_is_broken_between_words_only_in_lines_that_fit(c):
    """A line holds what fits its width in Source Sans, and a name is never broken: at its hyphens or otherwise."""
    for width in (200, 300, 430):
        lines = c.title_lines(QUESTION, width, c.QUESTION_PX)
        assert " ".join(lines) == QUESTION and len(lines) >= 2, lines
        assert all(c.text_px(line, c.QUESTION_PX) <= width or " " not in line for line in lines), lines
        # greedy: the next line's first word did not fit on the line before
        assert all(c.text_px(f"{a} {b.split()[0]}", c.QUESTION_PX) > width for a, b in zip(lines, lines[1:]))
    assert c.title_lines("meta-llama/Llama-3.1-8B-Instruct", 50, 16) == ["meta-llama/Llama-3.1-8B-Instruct"]
    assert c.text_px("Mm", 16) > c.text_px("il", 16) and c.text_px("W", 16) == 2 * c.text_px("W", 8)


def test_a_fitted_title_shows_the_widest_breaking_that_fits_the_charts_width(c):
    """Vega cuts a line longer than the chart with an ellipsis, and the server does not know how wide a chart is
    drawn: lines fixed for a 900 px window (430 px beside the sidebar) filled half a chart at 1400 px (930 px). The
    title picks its lines in the browser, from the chart's width: whole, fitting it, and using it."""
    spec = c.fitted_title({"title": c.title(QUESTION, SUBTITLE).to_dict(), "mark": "point"})
    assert spec["mark"] == "point" and spec["title"]["anchor"] == "start" and spec["title"]["subtitleColor"] == "gray"
    assert c.CHART_PX_PARAM in spec["params"] and spec["title"]["limit"] == {"expr": c.CHART_PX}
    for key, font_px, text in (("text", c.QUESTION_PX, QUESTION), ("subtitle", c.SUBTITLE_PX, SUBTITLE)):
        shown = {px: _shown(spec["title"][key], px) for px in (200, 299, 430, 457, 930, 1400, 3000)}
        widest_word = max(c.text_px(word, font_px) for word in text.split())
        for px, lines in shown.items():
            assert " ".join(lines) == text, lines  # every breaking, the same words
            room = max(px, c.TITLE_MIN_PX) - c.TITLE_SLACK_PX  # narrower than any breaking: the narrowest
            assert all(c.text_px(line, font_px) <= max(room, widest_word) for line in lines), (px, lines)
            if room >= max(widest_word, c.TITLE_MIN_PX):  # the widest breaking that fits: as many lines at most as
                # title_lines gives for a width TITLE_STEP narrower (the breakings' widths are that far apart)
                assert len(lines) <= len(c.title_lines(text, room / c.TITLE_STEP, font_px)), (px, lines)
        counts = [len(shown[px]) for px in sorted(shown)]
        assert counts == sorted(counts, reverse=True) and counts[0] > counts[-1] == 1, counts
        narrowest = json.JSONDecoder().raw_decode(spec["title"][key]["expr"])[0][0]
        assert shown[200] == _shown(spec["title"][key], c.TITLE_MIN_PX - 1) == narrowest
        # at 1400 px a chart as wide as the page has lines wider than a whole chart at 900 px
        assert max(c.text_px(line, font_px) for line in shown[930]) > 430, shown[930]


def test_a_short_title_keeps_its_line_and_a_spec_without_one_is_left_as_it_is(c):
    spec = c.fitted_title({"title": c.title("Drifting on safety?", "Short.").to_dict()})
    assert spec["title"]["text"] == ["Drifting on safety?"] and spec["title"]["subtitle"] == ["Short."]
    assert "subtitle" not in c.title("Q?").to_dict()
    assert c.fitted_title({"mark": "point"}) == {"mark": "point"}
    assert c.fitted_title({"title": "Q?", "params": [{"name": "p", "value": 1}]})["params"] == [
        {"name": "p", "value": 1}, c.CHART_PX_PARAM]


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
