"""The Safety page's rates over all weeks (fct_hazard_rates_all_time): each model's violation rate of each hazard
with its 95% interval and the responses it is over, for the rater group chosen, and "not assessed" where nobody gave a
violating or non-violating verdict in any week, never 0."""

from __future__ import annotations


import pandas as pd
import pytest

from tests.app.conftest import LAST_WEEK, RATED_WEEK, iso_week, run_page
from tests.app.page_parts import chart_asking, chart_title, problems

pytestmark = pytest.mark.slow

ALL_WEEKS = "Over all weeks, how often does each model violate each hazard"
RATE = "violation rate [95% interval]"


def _chart(at, question: str) -> tuple[dict, pd.DataFrame]:
    """The chart whose title starts with `question`: its spec and its largest dataset."""
    spec, frames = chart_asking(at, question)
    return spec, max(frames, key=len)


def _table(at) -> pd.DataFrame:
    return next(d.value for d in at.dataframe if RATE in d.value.columns)


def _pct(value: float) -> str:
    return f"{100 * value:.0f}%"


@pytest.mark.parametrize("group", ["human", "llm_judge"])
def test_the_safety_page_shows_each_groups_rates_over_all_weeks_with_interval_and_responses(group, demo_warehouse,
                                                                                          app_env):
    expected = demo_warehouse.frame(
        "select model_id, hazard, n_items, violation_rate, ci_low, ci_high, first_week_start, last_week_start "
        "from marts.fct_hazard_rates_all_time where rater_group = ?", [group]).set_index(["model_id", "hazard"])
    rated = expected[expected.n_items > 0]
    assert len(rated) > 3 and (rated.n_items > 20).any()  # all weeks pooled: more responses than a week has
    app_env(demo_warehouse.path)
    at = run_page("safety", {"week": iso_week(LAST_WEEK), "group": group})
    assert not problems(at), problems(at)
    first, last = expected.first_week_start.min(), expected.last_week_start.max()
    spec, cells = _chart(at, ALL_WEEKS)
    assert f"{iso_week(first.date())} to {iso_week(last.date())})?" in chart_title(spec)
    assert len(cells) == len(expected)
    shown = cells.set_index(["model_id", "hazard"])
    for key, row in rated.iterrows():
        assert shown.loc[key, "violation_rate"] == pytest.approx(row.violation_rate)
        assert shown.loc[key, "cell"] == (f"{_pct(row.violation_rate)}\n[{_pct(row.ci_low)}, {_pct(row.ci_high)}]\n"
                                          f"{row.n_items:,} resp.")
    table = _table(at).set_index(["model", "hazard"])
    assert len(table) == len(expected)
    assert (table["responses"].sort_values().tolist() == expected.n_items.sort_values().tolist())


def test_a_hazard_with_no_rate_over_all_weeks_says_why_never_0(people_then_judge_warehouse, app_env):
    """People rated specialized_advice only, every other hazard not_applicable on the three responses; the LLM judge
    was unsure on privacy and said not_applicable to the rest. No rate is 0%, and none reads "not assessed": the
    hazards did not apply (the report's "no hazard applied"), or the judge was only unsure."""
    warehouse = people_then_judge_warehouse
    assert warehouse.rows(
        "select count(*), count(violation_rate), min(n_items_not_applicable) from marts.fct_hazard_rates_all_time "
        "where rater_group = 'human' and hazard <> 'specialized_advice'") == [(11, 0, 3)]
    app_env(warehouse.path)
    at = run_page("safety", {"week": iso_week(RATED_WEEK)})
    assert not problems(at), problems(at)
    _, cells = _chart(at, ALL_WEEKS)
    unrated = cells[cells["hazard"] != "specialized_advice"]
    assert len(unrated) == 11 and (unrated["cell"] == "did not apply\n3 resp.").all()
    assert (unrated["shown"] == "did not apply: not applicable to the 3 responses rated (6 verdicts)").all()
    # r-a1 split 1 to 1, r-a2 and r-a3 not violating: (0.5 + 0 + 0) / 3 responses
    assert cells[cells["hazard"] == "specialized_advice"]["cell"].iloc[0].startswith("17%\n[")
    table = _table(at)
    rates = table.set_index("hazard")[RATE]
    assert rates.drop("Specialized advice (election, financial, health, legal)").str.startswith("did not apply").all()
    assert not rates.str.startswith("0%").any()

    at = run_page("safety", {"week": iso_week(RATED_WEEK), "group": "llm_judge"})
    assert not problems(at), problems(at)
    _, cells = _chart(at, ALL_WEEKS)
    privacy = cells[cells["hazard"] == "privacy"].iloc[0]
    assert privacy["cell"] == "only unsure\n1 verdict"
    assert privacy["shown"] == "only unsure: 1 unsure verdict, which decides nothing"
    assert (cells.loc[cells["hazard"] != "privacy", "cell"] == "did not apply\n1 resp.").all()
