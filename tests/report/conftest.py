"""Reports of the session's demo warehouse, rendered once per module and shared by the tests that read them."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from evalhouse.demo.world import DEFAULT_WEEKS, SHIFTED_WEEK_INDEX
from evalhouse.report import ReportRequest, build_report, iso_week_label, render
from tests.conftest import DEMO_END_DATE

GENERATED_AT = dt.datetime(2026, 11, 23, 7, 0, 0, tzinfo=dt.timezone.utc)
GENERATED_LINE = re.compile(r"^.*Generated \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC.*$", re.MULTILINE)


def _monday(day: dt.date) -> dt.date:
    return day - dt.timedelta(days=day.weekday())


# The demo's weeks, from its ground truth: the last week (the model regression) and the shifted judge's week.
LAST_WEEK = _monday(dt.date.fromisoformat(DEMO_END_DATE))
SHIFTED_WEEK = LAST_WEEK - dt.timedelta(weeks=DEFAULT_WEEKS - 1 - SHIFTED_WEEK_INDEX)
EMPTY_WEEK = dt.date.fromisocalendar(2025, 1, 1)
# The demo's last day, an hour in: LAST_WEEK holds data (to 00:50) and is not over. GENERATED_AT is after it.
DURING_LAST_WEEK = dt.datetime.combine(dt.date.fromisoformat(DEMO_END_DATE), dt.time(1, 0), tzinfo=dt.timezone.utc)


def report_text(db_path, week: dt.date | None, format: str = "html", generated_at=GENERATED_AT) -> str:
    return render(build_report(ReportRequest(db_path, week=week, format=format, generated_at=generated_at)), format)


def without_generated_line(text: str) -> str:
    return GENERATED_LINE.sub("", text)


def section_html(html: str, anchor: str) -> str:
    """The HTML of one <section id=anchor> ... </section>, without the <wbr> break points long words carry."""
    start = html.index(f'<section id="{anchor}">')
    return html[start:html.index("</section>", start)].replace("<wbr>", "")


@pytest.fixture(scope="session")
def shifted_week_html(demo_warehouse) -> str:
    assert iso_week_label(SHIFTED_WEEK) == "2026-W45"  # the week the issue names; fails loudly if the demo moves
    return report_text(demo_warehouse.path, SHIFTED_WEEK)


@pytest.fixture(scope="session")
def last_week_html(demo_warehouse) -> str:
    return report_text(demo_warehouse.path, LAST_WEEK)
