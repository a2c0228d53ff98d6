"""ISO weeks as `--week` takes them and the report names them."""

from __future__ import annotations

import datetime as dt

import pytest

from evalhouse.report.weeks import iso_week_label, parse_iso_week, week_span


@pytest.mark.parametrize(("text", "monday"), [
    ("2026-W47", dt.date(2026, 11, 16)),
    ("2025-W01", dt.date(2024, 12, 30)),  # ISO week 1 of 2025 starts in 2024
    ("2026-W53", dt.date(2026, 12, 28)),  # 2026 has 53 ISO weeks
    (" 2026-W01 ", dt.date(2025, 12, 29)),
])
def test_parse_iso_week_gives_the_monday(text, monday):
    assert parse_iso_week(text) == monday
    assert iso_week_label(monday) == text.strip()


@pytest.mark.parametrize("text", ["2026-47", "2026W47", "26-W47", "2026-W7", "W47", ""])
def test_parse_iso_week_rejects_other_spellings_with_an_example(text):
    with pytest.raises(ValueError, match="YYYY-Www"):
        parse_iso_week(text)


def test_parse_iso_week_rejects_a_week_the_year_does_not_have():
    with pytest.raises(ValueError, match="2025 has no ISO week 53"):
        parse_iso_week("2025-W53")


def test_iso_week_label_of_any_day_names_its_week():
    assert iso_week_label(dt.date(2026, 11, 22)) == "2026-W47"  # a Sunday


def test_week_span_names_monday_to_sunday():
    assert week_span(dt.date(2026, 11, 16)) == "Monday 16 November to Sunday 22 November 2026"
    assert week_span(dt.date(2024, 12, 30)) == "Monday 30 December 2024 to Sunday 5 January 2025"


@pytest.mark.parametrize("text", ["9999-W52", "0001-W01", "1899-W52", "9999-W01"])
def test_parse_iso_week_rejects_years_the_report_cannot_reach_with_the_range(text):
    # 9999-W52's Sunday and 0001-W01's week before are outside Python's dates: OverflowError before the check.
    with pytest.raises(ValueError, match="outside the years the report covers: write a week of 1900 to 9998"):
        parse_iso_week(text)


def test_iso_week_label_pads_the_year_to_four_digits_as_parse_reads_it():
    assert iso_week_label(dt.date(1, 1, 1)) == "0001-W01"
    assert iso_week_label(dt.date(999, 6, 1)).startswith("0999-W")
    assert parse_iso_week(iso_week_label(dt.date(1900, 1, 10))) == dt.date(1900, 1, 8)
