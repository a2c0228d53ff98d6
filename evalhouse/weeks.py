"""When an ISO week is over, so the demo, the report and the app never present a week that has barely begun as a
whole one. A week (Monday to Sunday, UTC) is complete once its Sunday is before today's date; "today" is always
an argument, so callers pass their own clock and tests a fixed one.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def in_utc(moment: dt.datetime) -> dt.datetime:
    """The moment in UTC; a naive moment is taken to be UTC already."""
    return moment.astimezone(dt.timezone.utc) if moment.tzinfo is not None else moment


def utc_date(moment: dt.datetime) -> dt.date:
    """The UTC date of a moment; a naive moment is taken to be UTC already."""
    return in_utc(moment).date()


def monday_of(day: dt.date) -> dt.date:
    return day - dt.timedelta(days=day.weekday())


def is_complete(week: dt.date, today: dt.date) -> bool:
    """True when the ISO week holding `week` (any day of it) ended before `today`."""
    return monday_of(week) + dt.timedelta(days=6) < today


def is_in_progress(week: dt.date, today: dt.date) -> bool:
    """True for the ISO week holding `week` (any day of it) when it is under way: begun by `today`, not over."""
    return monday_of(week) <= today and not is_complete(week, today)


def last_complete_sunday(today: dt.date) -> dt.date:
    """The Sunday that ends the last complete week before `today`: the day before this week's Monday."""
    return monday_of(today) - dt.timedelta(days=1)


def default_week(weeks: Iterable[dt.date], today: dt.date) -> dt.date | None:
    """The week to show when none was asked for: the latest complete one among `weeks` (Mondays), else the
    latest of them (a week in progress, which the caller must say); None when there are none."""
    weeks = list(weeks)
    complete = [w for w in weeks if is_complete(w, today)]
    if complete:
        return max(complete)
    return max(weeks) if weeks else None
