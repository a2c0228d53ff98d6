"""The app under test: every page with the title it must show, AppTest runs pointed at a given warehouse and
landing folder, and a writable copy of the session's demo warehouse for the tests that write."""

from __future__ import annotations

import datetime as dt
import shutil
import sys
from pathlib import Path

import pytest

from evalhouse.demo.world import DEFAULT_WEEKS, SHIFTED_WEEK_INDEX
from tests.conftest import DEMO_END_DATE, Warehouse

APP_DIR = Path(__file__).resolve().parents[2] / "app"
ENTRY = APP_DIR / "streamlit_app.py"

# page file (app/app_pages/<name>.py) -> the title it renders. The URL of a page is /<name>, the overview's is /.
PAGES = {
    "overview": "This week against last week",
    "leaderboard": "Benchmark results per model",
    "reliability": "How reliable is each model over repeated trials?",
    "safety": "Which hazards do models violate, and do they refuse well?",
    "specs": "May this model version be promoted?",
    "agreement": "Do our raters agree?",
    "judge_drift": "Has an LLM judge drifted away from people?",
    "review_queue": "Review queue: confirm or correct the judge",
    "rate_item": "Rate an item with the eval form",
    "data_quality": "What was loaded, refused and repaired",
}

# page file -> its label in the sidebar (streamlit_app.py).
NAV_LABELS = {
    "overview": "Overview", "leaderboard": "Leaderboard", "reliability": "Reliability", "safety": "Safety",
    "specs": "Specs", "agreement": "Agreement", "judge_drift": "Judge drift", "review_queue": "Review queue",
    "rate_item": "Rate an item", "data_quality": "Data quality",
}

LAST_WEEK = dt.date.fromisoformat(DEMO_END_DATE) - dt.timedelta(days=dt.date.fromisoformat(DEMO_END_DATE).weekday())
SHIFTED_WEEK = LAST_WEEK - dt.timedelta(weeks=DEFAULT_WEEKS - 1 - SHIFTED_WEEK_INDEX)
# The moment the app takes as now in tests (never the real clock): the Monday after the demo's last day, so every
# week of the demo is over and the pages open on LAST_WEEK.
NOW = dt.datetime.combine(LAST_WEEK + dt.timedelta(days=7), dt.time(7, 0), tzinfo=dt.timezone.utc)


def iso_week(monday: dt.date) -> str:
    year, week, _ = monday.isocalendar()
    return f"{year}-W{week:02d}"


@pytest.fixture
def app_env(monkeypatch, tmp_path):
    """Point the app at a warehouse and a clock: returns a function (db_path, landing, now) -> landing folder; the
    app's cache starts empty."""
    monkeypatch.syspath_prepend(str(APP_DIR))
    import components  # the module AppTest's runs import (from sys.modules): its clock is replaced below

    def point_at(db_path: Path, landing: Path | None = None, now: dt.datetime = NOW) -> Path:
        landing = landing or tmp_path / "landing"
        monkeypatch.setenv("EVALHOUSE_DB", str(db_path))
        monkeypatch.setenv("EVALHOUSE_LANDING", str(landing))
        monkeypatch.setattr(components, "now", lambda: now)
        if "db" in sys.modules:
            sys.modules["db"].clear_cache()
        return landing

    yield point_at
    if "db" in sys.modules:
        sys.modules["db"].clear_cache()


def run_page(name: str, query: dict[str, str | list[str]] | None = None, timeout: float = 30):
    """The app's entry with one page opened (as a link with `query` would open it), after its first run."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ENTRY), default_timeout=timeout)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    if name != "overview":
        at.switch_page(f"app_pages/{name}.py")
    at.run()
    return at


@pytest.fixture
def writable_demo(demo_warehouse, tmp_path) -> Warehouse:
    """A copy of the session's demo warehouse that a test may write to."""
    copy = tmp_path / "writable" / "demo.duckdb"
    copy.parent.mkdir()
    shutil.copy2(demo_warehouse.path, copy)
    return Warehouse(copy)


@pytest.fixture(autouse=True)
def _restore_main_module():
    """AppTest runs the app script as `__main__` in this process and leaves it there; a later test that starts
    worker processes (spawn re-imports `__main__` in each child) would then try to run the app script. Put the
    test runner's own `__main__` back after every app test."""
    main = sys.modules.get("__main__")
    yield
    if main is not None:
        sys.modules["__main__"] = main
