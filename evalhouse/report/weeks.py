"""ISO weeks as the report names them ("2026-W47") and the Monday that every weekly mart keys them by."""

from __future__ import annotations

import datetime as dt
import re

_ISO_WEEK = re.compile(r"^(\d{4})-W(\d{2})$")
# The report reaches a week before and six days after the one asked for: 0001-W01's week before and 9999-W52's
# Sunday are outside Python's dates (OverflowError). Years the report can name, with room on both sides.
MIN_YEAR = 1900
MAX_YEAR = 9998


def parse_iso_week(text: str) -> dt.date:
    """The Monday of ISO week `YYYY-Www`; ValueError with a message a user can act on otherwise."""
    match = _ISO_WEEK.match(text.strip())
    if not match:
        raise ValueError(f"'{text}' is not an ISO week: write it as YYYY-Www, for example 2026-W47")
    year, week = int(match.group(1)), int(match.group(2))
    if not MIN_YEAR <= year <= MAX_YEAR:
        raise ValueError(f"'{text.strip()}' is outside the years the report covers: write a week of {MIN_YEAR} to "
                         f"{MAX_YEAR}, for example 2026-W47")
    try:
        return dt.date.fromisocalendar(year, week, 1)
    except ValueError:
        raise ValueError(f"{year} has no ISO week {week:02d} (weeks run from 01 to 52 or 53)") from None


def iso_week_label(monday: dt.date) -> str:
    """'2026-W47' for any day of that ISO week."""
    year, week, _ = monday.isocalendar()
    return f"{year:04d}-W{week:02d}"  # 4 digits, as parse_iso_week reads it back


def week_span(monday: dt.date) -> str:
    """'Monday 16 November to Sunday 22 November 2026' (the year once when both days share it)."""
    sunday = monday + dt.timedelta(days=6)
    first = f"Monday {monday.day} {monday:%B}" + ("" if monday.year == sunday.year else f" {monday.year}")
    return f"{first} to Sunday {sunday.day} {sunday:%B} {sunday.year}"


def previous_week(monday: dt.date) -> dt.date:
    return monday - dt.timedelta(days=7)
