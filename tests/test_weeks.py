"""When a week is over (evalhouse/weeks.py): the rule the demo's default end date, the report's default week and the
app's week pickers share. Every "today" here is fixed: none of these tests reads the clock."""

from __future__ import annotations

import datetime as dt

import pytest

from evalhouse.weeks import default_week, is_complete, is_in_progress, last_complete_sunday, utc_date

W47 = dt.date(2026, 11, 16)  # Monday 16 to Sunday 22 November 2026
W48 = dt.date(2026, 11, 23)


@pytest.mark.parametrize(("today", "complete"), [
    (dt.date(2026, 11, 16), False),  # its Monday
    (dt.date(2026, 11, 22), False),  # its Sunday: the week has a day to go
    (dt.date(2026, 11, 23), True),  # the Monday after, from midnight UTC
    (dt.date(2027, 1, 4), True),
])
def test_a_week_is_complete_once_its_sunday_is_before_today(today, complete):
    assert is_complete(W47, today) is complete
    assert is_complete(W47 + dt.timedelta(days=3), today) is complete  # any day names its week


@pytest.mark.parametrize(("today", "in_progress"), [
    (dt.date(2026, 11, 15), False),  # the Sunday before: not begun
    (dt.date(2026, 11, 16), True),
    (dt.date(2026, 11, 22), True),
    (dt.date(2026, 11, 23), False),  # over
])
def test_a_week_is_in_progress_from_its_monday_to_its_sunday(today, in_progress):
    assert is_in_progress(W47, today) is in_progress
    assert is_in_progress(W47 + dt.timedelta(days=5), today) is in_progress  # any day names its week, even a later one


@pytest.mark.parametrize("today", [W48 + dt.timedelta(days=d) for d in range(7)])
def test_the_last_complete_sunday_is_the_same_on_every_day_of_a_week(today):
    assert last_complete_sunday(today) == dt.date(2026, 11, 22)


def test_the_last_complete_sunday_of_a_week_that_spans_new_year():
    assert last_complete_sunday(dt.date(2027, 1, 1)) == dt.date(2026, 12, 27)


def test_the_default_week_is_the_latest_complete_one_not_the_one_under_way():
    monday_early = dt.date(2026, 11, 23)
    assert default_week([W47 - dt.timedelta(weeks=1), W47, W48], monday_early) == W47
    assert default_week([W48, W47], dt.date(2026, 11, 30)) == W48  # in any order


def test_with_no_complete_week_the_default_is_the_latest_week_which_is_under_way():
    assert default_week([W48], dt.date(2026, 11, 23)) == W48
    assert default_week([], dt.date(2026, 11, 23)) is None


def test_utc_date_converts_an_aware_moment_and_takes_a_naive_one_as_utc():
    new_york = dt.timezone(dt.timedelta(hours=-5))
    assert utc_date(dt.datetime(2026, 11, 22, 20, 30, tzinfo=new_york)) == dt.date(2026, 11, 23)
    assert utc_date(dt.datetime(2026, 11, 22, 20, 30)) == dt.date(2026, 11, 22)
