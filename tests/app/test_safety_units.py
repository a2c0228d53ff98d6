"""The Safety page says what each number counts: a hazard whose verdicts were all not applicable "did not apply" (the
weekly report's "no hazard applied"), not "not assessed"; a heatmap header fits its column; the refusal table sets
responses beside responses and names forms as forms."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.app.conftest import LAST_WEEK, iso_week, run_page
from tests.app.page_parts import chart_asking, chart_subtitle, problems, walk

pytestmark = pytest.mark.slow

WEEKLY = "Which hazards does each model violate"
ALL_WEEKS = "Over all weeks, how often does each model violate each hazard"
REFUSALS = "Does any model refuse too much, or too little"


def _cells(at, question: str) -> tuple[dict, pd.DataFrame]:
    spec, frames = chart_asking(at, question)
    return spec, max(frames, key=len).set_index(["model_id", "hazard"])


def test_a_hazard_whose_verdicts_were_all_not_applicable_did_not_apply_rather_than_went_unassessed(demo_warehouse,
                                                                                                  app_env):
    """The demo's LLM judges say not_applicable to hate on every response: no rate, and the page said "n/a: not
    assessed", as if the judges had never looked. Both heatmaps now say it did not apply, on how many responses."""
    weekly = demo_warehouse.frame(
        "select model_id, hazard, n_not_applicable, n_items_not_applicable from marts.fct_hazard_rates "
        "where week_start = ? and rater_group = 'llm_judge' and hazard = 'hate'", [LAST_WEEK])
    all_time = demo_warehouse.frame(
        "select model_id, hazard, n_not_applicable, n_items_not_applicable from marts.fct_hazard_rates_all_time "
        "where rater_group = 'llm_judge' and hazard = 'hate' and n_rated = 0 and n_unsure = 0")
    assert len(weekly) == len(all_time) == 4 and (all_time.n_items_not_applicable > 0).all()
    app_env(demo_warehouse.path)
    at = run_page("safety", {"week": iso_week(LAST_WEEK), "group": "llm_judge"})
    assert not problems(at), problems(at)
    for question, expected in ((WEEKLY, weekly), (ALL_WEEKS, all_time)):
        spec, cells = _cells(at, question)
        assert "did not apply (every verdict not applicable" in chart_subtitle(spec)
        for row in expected.itertuples():
            cell = cells.loc[(row.model_id, row.hazard)]
            assert cell["cell"] == f"did not apply\n{row.n_items_not_applicable} resp.", question
            assert cell["shown"] == (f"did not apply: not applicable to the {row.n_items_not_applicable} responses "
                                     f"rated ({row.n_not_applicable} verdicts)"), question
    table = next(d.value for d in at.dataframe if "responses not applicable to" in d.value.columns)
    hate = table[table["hazard"] == "Hate"]
    assert len(hate) == 4 and hate["violation rate [95% interval]"].str.startswith("did not apply").all()
    assert not table["violation rate [95% interval]"].str.startswith("not assessed").any()

    # People gave no verdict at all on hate: that is not assessed.
    assert demo_warehouse.rows(
        "select count(*) from marts.fct_hazard_rates where week_start = ? and rater_group = 'human' "
        "and hazard = 'hate' and n_rated + n_unsure + n_not_applicable = 0", [LAST_WEEK]) == [(4,)]
    at = run_page("safety", {"week": iso_week(LAST_WEEK), "group": "human"})
    _, cells = _cells(at, WEEKLY)
    hate = cells.xs("hate", level="hazard")
    assert (hate["cell"] == "not assessed").all() and (hate["shown"] == "not assessed: no verdict on this hazard").all()


def test_a_heatmaps_model_headers_are_short_lines_without_the_owner(demo_warehouse, app_env):
    """Whole model names side by side ran into each other at 900 px: a header is the name without its owner, in
    lines of about ten characters; the tooltip keeps the whole name."""
    app_env(demo_warehouse.path)
    at = run_page("safety", {"week": iso_week(LAST_WEEK)})
    assert not problems(at), problems(at)
    for question in (WEEKLY, ALL_WEEKS):
        _, cells = _cells(at, question)
        headers = dict(zip(cells.index.get_level_values("model_id"), cells["model"]))
        assert headers["meta-llama/Llama-3.1-8B-Instruct"] == "Llama-3.1-\n8B-\nInstruct"
        assert headers["acme/chat-7b"] == "chat-7b"
        assert max(len(line) for header in headers.values() for line in header.split("\n")) <= 12


def test_the_refusal_table_sets_responses_beside_responses_and_names_forms_as_forms(demo_warehouse, app_env):
    """"refused 7% [1%, 30%]" is a share of 15 responses; "refusals judged appropriate 3" counted forms, so it read
    as 3 appropriate refusals against one refused response. Each count now says its unit, responses of n_items or
    forms of n_rated, and the chart's tooltip gives both."""
    expected = demo_warehouse.frame(
        "select * from marts.fct_refusal_calibration where week_start = ? and rater_group = 'human'",
        [LAST_WEEK]).set_index("model_id")
    # forms and responses differ somewhere, so a count of forms in a column of responses cannot pass
    assert (expected.n_refused > expected.n_items_refused).any()
    app_env(demo_warehouse.path)
    at = run_page("safety", {"week": iso_week(LAST_WEEK)})
    assert not problems(at), problems(at)
    table = next(d.value for d in at.dataframe if "responses a form says refused" in d.value.columns)
    table = table.set_index("model")
    assert "refusals judged appropriate" not in table.columns
    for model, row in expected.iterrows():
        shown = table.loc[model]
        assert shown["responses a form says refused"] == f"{row.n_items_refused} of {row.n_items}"
        assert shown["responses a form calls over-refusal"] == f"{row.n_items_over_refusal} of {row.n_items}"
        assert shown["responses a form calls under-refusal"] == f"{row.n_items_under_refusal} of {row.n_items}"
        assert shown["forms judging it appropriate"] == f"{row.n_appropriate} of {row.n_rated}"
    spec, _ = chart_asking(at, REFUSALS)
    tooltips = {t.get("title") for node in walk(spec) for t in node.get("tooltip", []) if isinstance(t, dict)}
    assert {"responses with a form saying so", "forms saying so", "n responses", "n forms"} <= tooltips
    assert "count" not in tooltips
