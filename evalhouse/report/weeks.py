"""ISO weeks as the report names them ("2026-W47") and the Monday that every weekly mart keys them by."""

from __future__ import annotations

import datetime as dt
import re

_ISO_WEEK = re.compile(r"^(\d{4})-W(\d{2})$")


def parse_iso_week(text: str) -> dt.date:
    """The Monday of ISO week `YYYY-Www`; ValueError with a message a user can act on otherwise."""
    match = _ISO_WEEK.match(text.strip())
    if not match:
        raise ValueError(f"'{text}' is not an ISO week: write it as YYYY-Www, for example 2026-W47")
    year, week = int(match.group(1)), int(match.group(2))
    try:
        return dt.date.fromisocalendar(year, week, 1)
    except ValueError:
        raise ValueError(f"{year} has no ISO week {week:02d} (weeks run from 01 to 52 or 53)") from None


def iso_week_label(monday: dt.date) -> str:
    """'2026-W47' for any day of that ISO week."""
    year, week, _ = monday.isocalendar()
    return f"{year}-W{week:02d}"


def week_span(monday: dt.date) -> str:
    """'Monday 16 November to Sunday 22 November 2026' (the year once when both days share it)."""
    sunday = monday + dt.timedelta(days=6)
    first = f"Monday {monday.day} {monday:%B}" + ("" if monday.year == sunday.year else f" {monday.year}")
    return f"{first} to Sunday {sunday.day} {sunday:%B} {sunday.year}"


def previous_week(monday: dt.date) -> dt.date:
    return monday - dt.timedelta(days=7)
