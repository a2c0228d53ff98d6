"""A link asking a page for what it does not offer (a week with no data yet, a model since renamed) is said as the
page opens, with the value shown as text, and the page shows its default: it used to show the default silently, so a
reader following ?week=2026-W48 read 2026-W47's figures as W48's."""

from __future__ import annotations

import datetime as dt

import pytest

from tests.app.conftest import APP_DIR, LAST_WEEK, iso_week, run_page
from tests.app.page_parts import problems

pytestmark = pytest.mark.slow

NEXT_WEEK = iso_week(LAST_WEEK + dt.timedelta(weeks=1))


def _warnings(at) -> list[str]:
    return [w.value for w in at.warning]


def test_a_week_the_page_does_not_offer_is_said_and_the_page_opens_on_its_default(demo_warehouse, app_env):
    app_env(demo_warehouse.path)
    at = run_page("safety", {"week": NEXT_WEEK})
    assert not problems(at), problems(at)
    said = [w for w in _warnings(at) if NEXT_WEEK.replace("-", "\\-") in w]
    assert said == [f"This link asks for week \u201c{NEXT_WEEK.replace('-', chr(92) + '-')}\u201d, which this page "
                    "does not offer (no data for it here): the page shows its default instead."], _warnings(at)
    assert at.selectbox(key="safety.week").value == iso_week(LAST_WEEK)
    assert "week" not in at.query_params  # the URL now says what is shown

    at.run()  # said once, as the page opens: not on every rerun after it
    assert not [w for w in _warnings(at) if "This link asks for" in w]


def test_models_a_link_asks_for_that_are_not_offered_are_named_and_left_out(demo_warehouse, app_env):
    app_env(demo_warehouse.path)
    at = run_page("leaderboard", {"model": ["acme/chat-7b", "acme/renamed-model"]})
    assert not problems(at), problems(at)
    assert at.multiselect(key="leaderboard.model").value == ["acme/chat-7b"]
    assert [w for w in _warnings(at) if "This link asks for" in w] == [
        "This link asks for models \u201cacme/renamed\\-model\u201d, which this page does not offer (no data for it "
        "here): left out."]


def test_a_value_from_a_link_is_shown_as_text_never_as_markup(monkeypatch):
    monkeypatch.syspath_prepend(str(APP_DIR))
    import components as c

    hostile = "**bold** [link](https://x.example) `code` <b>$x$</b> # _i_ !"
    escaped = c.literal(hostile)
    for markup in "*[]()`<>$#_!":
        assert f"\\{markup}" in escaped and markup not in escaped.replace(f"\\{markup}", ""), markup
    assert escaped.replace("\\", "") == hostile.replace("\\", "")
