"""The app under test: every page with the title it must show, AppTest runs pointed at a given warehouse and
landing folder, and a writable copy of the session's demo warehouse for the tests that write."""

from __future__ import annotations

import datetime as dt
import shutil
import sys
from pathlib import Path

import pytest

from evalhouse.demo.world import DEFAULT_WEEKS, SHIFTED_WEEK_INDEX
from tests.conftest import DEMO_END_DATE, Warehouse, build_warehouse, built_once, eval_form_record, write_lines

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


# -- a small warehouse: people's ratings one week, one LLM judge's form the next -------------------------------------

HAZARDS = ("violent_crimes", "non_violent_crimes", "sex_related_crimes", "child_sexual_exploitation",
           "indiscriminate_weapons_cbrne", "suicide_self_harm", "hate", "privacy", "intellectual_property",
           "defamation", "sexual_content", "specialized_advice")
RATED_WEEK = LAST_WEEK - dt.timedelta(weeks=1)  # two people rate three responses; one verdict violating
JUDGED_WEEK = LAST_WEEK  # one LLM judge's form, its only hazard verdict unsure: nothing people could be checked on


def _form(rater: dict, day: dt.date, item: str, score: int, verdicts: dict[str, str], **changes) -> dict:
    hazards = {h: {"verdict": "not_applicable"} for h in HAZARDS}
    for hazard, verdict in verdicts.items():
        hazards[hazard] = {"verdict": verdict, "rationale": "Says why."}
        if verdict == "violating":
            hazards[hazard]["severity"] = 2
    universal = {d: {"score": s, "confidence": "high", "rationale": "Says why."} for d, s in (
        ("helpfulness", score), ("instruction_following", 5), ("faithfulness", 5), ("safety", 5),
        ("overall_quality", score))}
    return eval_form_record(
        created_at=f"{day.isoformat()}T10:00:00Z", rater=rater, universal=universal,
        task={"task_id": f"support-{item}", "suite_id": "support-v1", "modality": "chat", "prompt": "Reset my password",
              "response": "Go to settings.", "response_id": f"r-{item}"},
        safety={"hazards": hazards, "is_violating_any": "violating" in verdicts.values()}, **changes)


def people_then_judge_records() -> list[dict]:
    """RATED_WEEK: people h-ana and h-bo rate the same three responses (helpfulness 1, 3, 5 and one point apart: an
    alpha; faithfulness 5 from both on each: no alpha, every rating the same), h-ana finds one specialized_advice
    violating. JUDGED_WEEK: one LLM judge's form, with a chat extension nobody else rates and an unsure verdict."""
    people = ({"type": "human", "id": "h-ana"}, {"type": "human", "id": "h-bo"})
    records = [
        _form(person, RATED_WEEK + dt.timedelta(days=1), f"a{i}", max(1, score - offset),
              {"specialized_advice": "violating" if i == 1 and offset == 0 else "non_violating"})
        for i, score in enumerate((1, 3, 5), start=1) for person, offset in zip(people, (0, 1))
    ]
    judge = {"type": "llm_judge", "id": "judge-1", "model": "claude-sonnet-4-6", "version": "v1"}
    records.append(_form(judge, JUDGED_WEEK + dt.timedelta(days=1), "b1", 4, {"privacy": "unsure"},
                         extensions={"chat": {"turn_count": 4, "consistency_across_turns": 4, "persona_drift": False,
                                              "tone": "neutral"}}))
    return records


@pytest.fixture(scope="session")
def people_then_judge_warehouse(tmp_path_factory) -> Warehouse:
    """people_then_judge_records, ingested and built once per test session (built_once). Read it; never write to it.
    Its JUDGED_WEEK has no drift tested, no change tested, no alpha among people and no verdict by people."""
    def build(directory: Path) -> None:
        build_warehouse(directory / "w.duckdb", [write_lines(directory / "records.jsonl", people_then_judge_records())])

    return Warehouse(built_once(tmp_path_factory, "people_then_judge_warehouse", build) / "w.duckdb")


# -- a small warehouse: people's ratings one week, one person's second look at one of those items the next ---------

def rerated_records() -> list[dict]:
    """RATED_WEEK: people h-ana and h-bo rate the same three responses (no hazard violated). JUDGED_WEEK: h-ana rates
    one of them again, every hazard not applicable: her rating counts in the item's first week for agreement, so
    people have ratings that week and no agreement of it; and their only hazard verdicts that week are not applicable.
    """
    people = ({"type": "human", "id": "h-ana"}, {"type": "human", "id": "h-bo"})
    records = [_form(person, RATED_WEEK + dt.timedelta(days=1), f"a{i}", score, {"specialized_advice": "non_violating"})
               for i, score in enumerate((1, 3, 5), start=1) for person in people]
    records.append(_form(people[0], JUDGED_WEEK + dt.timedelta(days=1), "a1", 2, {}))
    return records


@pytest.fixture(scope="session")
def rerated_warehouse(tmp_path_factory) -> Warehouse:
    """rerated_records, ingested and built once per test session (built_once). Read it; never write to it."""
    def build(directory: Path) -> None:
        build_warehouse(directory / "w.duckdb", [write_lines(directory / "records.jsonl", rerated_records())])

    return Warehouse(built_once(tmp_path_factory, "rerated_warehouse", build) / "w.duckdb")
