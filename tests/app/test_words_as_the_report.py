"""The app names what it shows as the weekly report and the marts do: a violation rate leaves unsure verdicts out
(fct_hazard_rates), the score of a model on an eval is a pass rate (accuracy only where the metric is), a promotion
decision reads "promoted", "not promoted" or "never decided"; and a Reliability page filtered to one model lists
that model alone."""

from __future__ import annotations


import pandas as pd
import pytest

from evalhouse.report.sections import promotions as report_promotions
from tests.app.conftest import JUDGED_WEEK, LAST_WEEK, iso_week, run_page
from tests.app.page_parts import chart_asking, chart_subtitle, chart_title, problems, walk

pytestmark = pytest.mark.slow

HEATMAP = "Which hazards does each model violate"


def _chart(at, question: str) -> tuple[dict, pd.DataFrame]:
    """The chart whose title starts with `question`: its spec and its largest dataset."""
    spec, frames = chart_asking(at, question)
    return spec, max(frames, key=len)


def _table(at, column: str) -> pd.DataFrame:
    return next(d.value for d in at.dataframe if column in d.value.columns)


# -- safety: an unsure verdict is no verdict ----------------------------------------------------------------------

def test_the_safety_page_leaves_unsure_verdicts_out_of_the_rate_and_shows_them_beside_it(demo_warehouse, app_env):
    """A cell reads its rate and the responses it is over, the unit of its colour; its tooltip gives the verdicts in
    the report's words, "9 of 11 (1 unsure)". The cell read "9/11" where the colour was 75% over 4 responses."""
    rates = demo_warehouse.frame(
        "select model_id, hazard, n_violating, n_rated, n_unsure, n_items, violation_rate from marts.fct_hazard_rates "
        "where week_start = ? and rater_group = 'llm_judge'", [LAST_WEEK])
    both = rates[(rates["n_rated"] > 0) & (rates["n_unsure"] > 0)]
    assert len(both) > 0  # the demo's judges were unsure on some rated cells: the test can fail
    app_env(demo_warehouse.path)
    at = run_page("safety", {"group": "llm_judge"})
    assert not problems(at), problems(at)
    caption = at.caption[0].value
    assert "(violating, non-violating, unsure;" not in caption
    assert "An **unsure** verdict is no verdict: it is left out of the rate and of the verdicts counted" in caption
    spec, cells = _chart(at, HEATMAP)
    assert "nobody assessed the hazard" not in chart_subtitle(spec)
    shown = cells.set_index(["model_id", "hazard"])
    for row in both.itertuples():
        assert shown.loc[(row.model_id, row.hazard), "cell"] == (f"{100 * row.violation_rate:.0f}%\n"
                                                                 f"{row.n_items} resp.")
        assert shown.loc[(row.model_id, row.hazard), "verdicts"] == (f"{row.n_violating} of {row.n_rated} "
                                                                     f"({row.n_unsure} unsure)")
    tooltips = {t.get("title") for node in walk(spec) for t in node.get("tooltip", []) if isinstance(t, dict)}
    assert "violating of violating and non-violating verdicts (unsure)" in tooltips


def test_a_hazard_with_only_unsure_verdicts_is_not_said_to_be_unassessed(people_then_judge_warehouse, app_env):
    warehouse = people_then_judge_warehouse
    assert warehouse.rows("select n_rated, n_unsure from marts.fct_hazard_rates where week_start = ? "
                          "and rater_group = 'llm_judge' and hazard = 'privacy'", [JUDGED_WEEK]) == [(0, 1)]
    app_env(warehouse.path)
    at = run_page("safety", {"group": "llm_judge"})
    assert not problems(at), problems(at)
    spec, cells = _chart(at, HEATMAP)
    privacy = cells[cells["hazard"] == "privacy"].iloc[0]
    assert privacy["cell"] == "only unsure\n1 verdict"
    assert privacy["shown"] == "only unsure: 1 unsure verdict, which decides nothing"
    assert "or only unsure verdicts" in chart_subtitle(spec)


def test_the_pooled_split_of_pairwise_verdicts_names_its_week_and_its_raters_in_its_title(demo_warehouse,
                                                                                          app_env):
    """Below "No comparison with the reference by people", a pooled chart whose title named neither read as
    people's."""
    app_env(demo_warehouse.path)
    at = run_page("safety", {"week": iso_week(LAST_WEEK)})
    assert not problems(at), problems(at)
    spec, _ = _chart(at, "How do the verdicts split")
    assert chart_title(spec) == ("How do the verdicts split, from much worse to much better (people and LLM judges "
                            f"pooled, {iso_week(LAST_WEEK)})?")


# -- pass rate, as the report names it ------------------------------------------------------------------------------

def test_the_overview_and_the_leaderboard_call_the_score_a_pass_rate_as_the_report_does(demo_warehouse, app_env):
    app_env(demo_warehouse.path)
    at = run_page("overview")
    assert not problems(at), problems(at)
    captions = [c.value for c in at.caption]
    assert not any(t.startswith("Accuracy over") for t in captions)
    assert any(t.startswith("Pass rate, as the weekly report names it") and "accuracy only where the metric is" in t
               for t in captions), captions
    drops = next(m for m in at.metric if m.label == "Significant score drops")
    assert "pass rate fell" in drops.help and "accuracy" not in drops.help

    at = run_page("leaderboard")
    assert not problems(at), problems(at)
    metric = at.selectbox(key="leaderboard.metric")
    assert metric.value == "accuracy" and "answered correctly" not in metric.help
    assert "accuracy only where the metric is" in metric.help
    assert "Which model scores best on each eval (pass rate)?" in [h.value for h in at.subheader]
    spec, _ = _chart(at, "gsm8k: which model scores best (pass rate)?")
    titles = [node["title"] for node in _encodings(spec) if node.get("field") in ("ci_low", "score")]
    assert titles and set(titles) == {"pass rate (95% interval)"}, titles


def _encodings(spec: dict):
    for layer in spec.get("spec", spec).get("layer", []):
        yield from (v for v in layer.get("encoding", {}).values() if isinstance(v, dict) and "title" in v)


# -- promotion decisions, as the report words them ------------------------------------------------------------------

@pytest.mark.parametrize("spec_id", ["acme_groundedness_suite", "support_triage_v1", "eval_basic_math_v1"])
def test_the_specs_decisions_read_as_the_reports(demo_warehouse, app_env, spec_id):
    rows = demo_warehouse.frame("select * from marts.fct_promotion_decisions where spec_id = ? and week_start = ?",
                                [spec_id, LAST_WEEK])
    assert len(rows) > 0
    records = [{k: (None if not isinstance(v, str) and pd.isna(v) else v) for k, v in r.items()}
               for r in rows.to_dict("records")]
    # The report's decision cell, less what the app gives columns of its own ("(within noise)", the components).
    expected = {r["model_id"]: report_promotions._decision(r).text.split(" (")[0] for r in records}
    app_env(demo_warehouse.path)
    at = run_page("specs", {"spec": spec_id, "week": iso_week(LAST_WEEK)})
    assert not problems(at), problems(at)
    shown = _table(at, "decision").set_index("model")["decision"].to_dict()
    assert shown == expected
    assert not {"promote", "do not promote", "undefined"} & set(shown.values())


# -- reliability filtered to one model --------------------------------------------------------------------------------

def test_reliability_filtered_to_one_model_lists_that_model_alone(demo_warehouse, app_env, monkeypatch):
    import streamlit as st

    heights: list[tuple[int, object]] = []
    dataframe = st.dataframe

    def recording(data=None, *args, **kwargs):
        if isinstance(data, pd.DataFrame) and "pass@k [95% interval]" in data.columns:
            heights.append((len(data), kwargs.get("height", "auto")))
        return dataframe(data, *args, **kwargs)

    monkeypatch.setattr(st, "dataframe", recording)
    app_env(demo_warehouse.path)
    at = run_page("reliability", {"model": "acme/chat-7b"})
    assert not problems(at), problems(at)
    spec, data = _chart(at, "On ")
    assert set(data["model_id"]) == {"acme/chat-7b"}
    scales = [node["scale"] for node in walk(spec) if node.get("field") == "model_id" and "scale" in node]
    assert scales and all(s.get("domain") == ["acme/chat-7b"] for s in scales), scales
    # The pass@k table is as tall as its rows, never a fixed height with blank rows under a few.
    assert heights and all(rows < 10 and height in ("auto", "content") for rows, height in heights), heights
