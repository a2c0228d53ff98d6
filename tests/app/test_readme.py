"""The README's section on the dashboard lists every page of the app, by the name the sidebar gives it, and counts
them right."""

from __future__ import annotations

import re

from tests.app.conftest import APP_DIR, NAV_LABELS

README = APP_DIR.parent / "README.md"
NUMBERS = {8: "Eight", 9: "Nine", 10: "Ten", 11: "Eleven", 12: "Twelve"}


def _dashboard_section() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("## The dashboard\n")
    end = text.index("\n## ", start + 1)
    return text[start:end]


def test_the_readme_lists_every_page_of_the_dashboard_and_counts_them():
    section = _dashboard_section()
    listed = re.findall(r"^- \*\*(.+?)\*\*:", section, flags=re.M)
    assert sorted(listed) == sorted(NAV_LABELS.values())
    assert f"{NUMBERS[len(NAV_LABELS)]} pages" in section
