"""The demo's calendar: which ISO weeks it spans and how every timestamp is placed so none is after end_date.

By default end_date is the Sunday that ended last week (generate.py), so every week is whole and nothing planned
falls on end_date. An explicit end_date may be today, cutting the last week short: timestamps on end_date then
fall in its first hour, so the demo is not dated in the future by anyone who checks created_at against the clock
later that day.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone

WORKDAY_START_HOUR = 8
WORKDAY_END_HOUR = 19


@dataclass(frozen=True)
class Week:
    """One ISO week of the demo (Monday start), cut short at end_date when it is the last."""

    index: int
    monday: date
    last_day: date
    label: str  # "2026-W47"

    def day(self, offset: int) -> date:
        """The week's day `offset` days after Monday, never after the week's last day."""
        return min(self.monday + timedelta(days=offset), self.last_day)


def iso_week_label(day: date) -> str:
    year, week, _ = day.isocalendar()
    return f"{year}-W{week:02d}"


def build_weeks(end_date: date, weeks: int) -> tuple[Week, ...]:
    """The `weeks` ISO weeks ending with the one that contains end_date, oldest first."""
    last_monday = end_date - timedelta(days=end_date.weekday())
    out = []
    for index in range(weeks):
        monday = last_monday - timedelta(weeks=weeks - 1 - index)
        last_day = min(monday + timedelta(days=6), end_date)
        out.append(Week(index, monday, last_day, iso_week_label(monday)))
    return tuple(out)


@dataclass(frozen=True)
class Clock:
    """Places moments on days; knows end_date so nothing lands after it."""

    end_date: date

    def moment(self, day: date, rng: random.Random) -> datetime:
        """A working-hours moment on `day` (its first hour when `day` is end_date)."""
        if day > self.end_date:
            raise ValueError(f"{day} is after end_date {self.end_date}")
        if day == self.end_date:
            clock_time = time(0, rng.randrange(0, 50), rng.randrange(0, 60))
        else:
            clock_time = time(rng.randrange(WORKDAY_START_HOUR, WORKDAY_END_HOUR), rng.randrange(60), rng.randrange(60))
        return datetime.combine(day, clock_time, tzinfo=timezone.utc)

    def later(self, start: datetime, days: int, rng: random.Random) -> datetime | None:
        """A moment `days` days after `start`, or None when that day has not come yet (it is end_date or later).

        A follow-up (a review, a correction) needs a whole day to exist; on end_date it is still pending.
        """
        day = start.date() + timedelta(days=days)
        if day >= self.end_date:
            return None
        return self.moment(day, rng)


def iso_z(moment: datetime) -> str:
    """RFC 3339 with a Z and whole seconds: the eval-form writers' style."""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def iso_z_micro(moment: datetime) -> str:
    """RFC 3339 with microseconds and a Z: what CogniBench's writer produces."""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def unix_seconds(moment: datetime) -> int:
    return int(moment.timestamp())
