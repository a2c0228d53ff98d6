"""The dbt exposures name every page of the app and exactly the marts its SQL reads (so `dbt docs` tells the truth
about what breaks when a mart changes)."""

from __future__ import annotations

import re

import yaml

from tests.app.conftest import APP_DIR, PAGES

EXPOSURES = APP_DIR.parent / "models" / "marts" / "_app__exposures.yml"
# Marts read through components.py helpers rather than in the page's own SQL.
HELPERS = {
    r"\bc\.weeks_with_data\(|\.week\((?![^)]*weeks=)": {"fct_trials", "fct_ratings"},
    r"\bc\.model_colors\(": {"dim_models"},
    r"\bdb\.build_settings\(": {"rpt_build_settings"},
    # the weekly report's own query, so that the Overview's models table has the report's rows and order
    r"\bmodel_scores\.CHANGES_SQL\b": {"rpt_weekly_model_changes"},
}


# App modules a page imports are read as its own SQL (model_comparison.py is the Leaderboard's section), but the
# shared two, whose marts a page reads only through the helpers above.
SHARED = {"components", "db"}


def _marts_read_by(page: str) -> set[str]:
    source = (APP_DIR / "app_pages" / f"{page}.py").read_text()
    for module in set(re.findall(r"^import (\w+)", source, re.MULTILINE)) - SHARED:
        if (APP_DIR / f"{module}.py").exists():
            source += (APP_DIR / f"{module}.py").read_text()
    marts = set(re.findall(r"\bmarts\.(\w+)", source))
    for pattern, extra in HELPERS.items():
        if re.search(pattern, source):
            marts |= extra
    return marts


def _exposures() -> dict[str, set[str]]:
    document = yaml.safe_load(EXPOSURES.read_text())
    found = {}
    for exposure in document["exposures"]:
        refs = {re.fullmatch(r"ref\('(\w+)'\)", d).group(1) for d in exposure["depends_on"]}
        found[exposure["name"].removeprefix("app_")] = refs
    return found


def test_every_page_has_an_exposure_and_every_exposure_a_page():
    assert set(_exposures()) == set(PAGES)
    assert {p.stem for p in (APP_DIR / "app_pages").glob("*.py")} == set(PAGES)


def test_each_exposure_depends_on_exactly_the_marts_its_page_reads():
    exposures = _exposures()
    for page in PAGES:
        assert exposures[page] == _marts_read_by(page), page


def test_exposures_are_dashboards_with_a_url_and_an_owner():
    for exposure in yaml.safe_load(EXPOSURES.read_text())["exposures"]:
        assert exposure["type"] in ("dashboard", "application")
        assert exposure["url"].startswith("http://localhost:8501/")
        assert exposure["owner"]["name"] and exposure["description"].strip()
