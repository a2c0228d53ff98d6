"""A category the marts store as a key (stable_pass, much_worse, non_violating, invalid_json) reads as words wherever
a page shows it (legends, tooltips, table cells, pickers, chart titles), through components.said; the URL and the
queries keep the key. Identifiers that are data (model ids, eval and dimension names) are not categories."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

from tests.app.conftest import run_page
from tests.app.page_parts import chart_subtitle, chart_title, problems, walk
from tests.conftest import Warehouse, built_once, built_warehouse_path

pytestmark = pytest.mark.slow

KEY = re.compile(r"^[a-z0-9]+(?:_[a-z0-9]+)+$")  # a stored key, whole: "much_worse"
KEY_IN_TEXT = re.compile(r"\b[a-z]+(?:_[a-z]+)+\b")  # one inside a sentence or a label: "chat-7b · specialized_advice"


def keys_in(values) -> set[str]:
    return {v for v in values if isinstance(v, str) and KEY.match(v)}


def _chart(at, question: str) -> tuple[dict, list[pd.DataFrame]]:
    from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df

    for chart in at.get("vega_lite_chart"):
        spec = json.loads(chart.proto.spec)
        if chart_title(spec).startswith(question):
            return spec, [convert_arrow_bytes_to_pandas_df(d.data.data) for d in chart.proto.datasets]
    raise AssertionError(f"no chart asks {question!r}")


def keys_a_chart_shows(at, question: str, identifiers: tuple[str, ...] = ("model_id",)) -> set[str]:
    """The stored keys among the values a chart writes as text: its nominal fields (axes, legends, tooltips, marks'
    text) and its colour scales' domains, other than the `identifiers` (data, shown as stored)."""
    spec, frames = _chart(at, question)
    fields = {node["field"] for node in walk(spec) if isinstance(node.get("field"), str)
              and node.get("type", "nominal") in ("nominal", "ordinal")} - set(identifiers)
    shown = [v for frame in frames for f in fields if f in frame.columns for v in frame[f].dropna().unique()]
    domains = [v for node in walk(spec) for v in (node.get("domain") or []) if isinstance(node.get("domain"), list)]
    return keys_in(shown + domains)


def _table(at, column: str) -> pd.DataFrame:
    return next(d.value for d in at.dataframe if column in d.value.columns)


def test_said_gives_a_stored_key_in_words_and_leaves_other_text_alone(app_env):
    import components as c

    assert [c.said(k) for k in ("stable_pass", "much_worse", "not_applicable", "below_target", "awaiting_review")] \
        == ["stable pass", "much worse", "not applicable", "below target", "awaiting review"]
    # the exceptions: a hyphen, an initialism, a name of the page's own
    assert [c.said(k) for k in ("non_violating", "over_refusal", "under_refusal", "llm_judge", "invalid_json",
                                "single_turn", "adp_suite")] == [
        "non-violating", "over-refusal", "under-refusal", "LLM judge", "invalid JSON", "single-turn",
        "ADP evaluation suite"]
    assert [c.said(v) for v in ("flaky", "no verdict", "n/a", "h-ana")] == ["flaky", "no verdict", "n/a", "h-ana"]
    assert c.said(None) == c.said(float("nan")) == c.said(pd.NA) == "n/a"


def test_the_safety_page_says_verdicts_hazards_and_their_groups_in_words(demo_warehouse, app_env):
    app_env(demo_warehouse.path)
    at = run_page("safety")
    assert not problems(at), problems(at)
    split = "How do the verdicts split"
    assert keys_a_chart_shows(at, split) == set()
    _, frames = _chart(at, split)
    assert {"much worse", "much better"} <= {v for f in frames if "verdict" in f.columns for v in f["verdict"]}
    assert keys_a_chart_shows(at, "Which hazards does each model violate") == set()  # non_physical read as a key
    follow = at.selectbox(key="safety.cell")
    assert follow.options and not [o for o in follow.options if KEY_IN_TEXT.search(o)]
    assert not KEY_IN_TEXT.search(chart_title(_chart(at, "How often did")[0]))


def test_the_reliability_page_says_each_tasks_verdict_in_words(demo_warehouse, app_env):
    app_env(demo_warehouse.path)
    at = run_page("reliability", {"evaluation": "tau_retail"})
    assert not problems(at), problems(at)
    question = "How many tasks does each model always pass"
    assert keys_a_chart_shows(at, question) == set()  # stable_pass, stable_fail in the legend and the tooltip
    spec, _ = _chart(at, question)
    assert not KEY_IN_TEXT.search(chart_subtitle(spec))


def test_the_data_quality_page_says_reasons_in_words_and_its_link_keeps_the_key(demo_warehouse, app_env):
    app_env(demo_warehouse.path)
    at = run_page("data_quality")
    assert not problems(at), problems(at)
    assert keys_a_chart_shows(at, "Why are lines still refused?", identifiers=("source_format",)) == set()
    reasons = _table(at, "error_kind")["error_kind"]
    assert "invalid JSON" in set(reasons) and keys_in(reasons) == set()
    picker = at.multiselect(key="data_quality.reason")  # its options as the picker shows them
    assert "invalid JSON" in picker.options and keys_in(picker.options) == set()
    line = at.selectbox(key="data_quality.line")  # "bad_lines.jsonl line 3 · unknown format": a file, then a reason
    assert keys_in(o.rpartition(" · ")[2] for o in line.options) == set()

    linked = run_page("data_quality", {"reason": "invalid_json"})  # a link names the key, as the mart stores it
    assert not problems(linked) and not linked.warning, [w.value for w in linked.warning]
    assert set(_table(linked, "error_kind")["error_kind"]) == {"invalid JSON"}
    assert linked.query_params["reason"] in ("invalid_json", ["invalid_json"])  # the key, not its words


def test_the_specs_page_says_how_components_are_scored_in_words(demo_warehouse, app_env):
    app_env(demo_warehouse.path)
    at = run_page("specs", {"spec": "acme_groundedness_suite"})
    assert not problems(at), problems(at)
    assert "composite: weighted average" in " ".join(c.value for c in at.caption)
    components = _table(at, "scored by")
    assert keys_in(components["kind"]) == set() and "LLM judge" in set(components["kind"])
    assert keys_in(components["normalisation"]) == set() and "pass rate" in set(components["normalisation"])
    # an ADP component's scorer is data: its telemetry metric, as the suite names it
    assert "p95_latency_ms" in set(components["scored by"])
    rubrics = run_page("specs", {"spec": "support_triage_v1"})
    scored_by = _table(rubrics, "scored by")["scored by"]
    assert keys_in(scored_by) == set() and {"exact match", "regex match", "LLM judge"} <= set(scored_by)


def test_the_agreement_page_says_each_raters_label_in_words(demo_warehouse, app_env):
    app_env(demo_warehouse.path)
    at = run_page("agreement", {"week": "all time"})
    assert not problems(at), problems(at)
    flagged = _table(at, "people's ratings, side by side")
    said = " ".join(flagged["people's ratings, side by side"]) + " " + " ".join(
        flagged["LLM judges' ratings (not counted)"])
    assert re.search(r": (much worse|much better|non-violating|over-refusal)\b", said), said[:300]
    assert not KEY_IN_TEXT.search(said), KEY_IN_TEXT.findall(said)[:5]
    detail = _table(at, "rater_group")
    assert keys_in(detail["rater_group"]) == set() and keys_in(detail["label"]) == set()


def test_the_review_queue_says_why_an_item_waits_and_the_judges_answers_in_words(demo_warehouse, app_env):
    app_env(demo_warehouse.path)
    at = run_page("review_queue")
    assert not problems(at), problems(at)
    waits = _table(at, "why it waits")["why it waits"]
    assert not [w for w in waits if KEY_IN_TEXT.search(w)], list(waits)[:3]
    assert any(w.startswith("violating hazard: Specialized advice") for w in waits)
    judged = " ".join(m.value for m in at.markdown if "Judge:" in m.value)
    assert "Judge:" in judged and not KEY_IN_TEXT.search(judged), KEY_IN_TEXT.findall(judged)


# -- the Specs page's typo warnings agree with their count ----------------------------------------------------------

@pytest.fixture(scope="module")
def typo_specs(tmp_path_factory) -> Warehouse:
    """The spec fixtures tests/specs reads (typo_keys: one unknown weight key, one unknown threshold key)."""
    from tests.specs.conftest import SPEC_INPUTS, build_spec_warehouse

    root = built_once(tmp_path_factory, "spec_warehouse", lambda d: build_spec_warehouse(d, SPEC_INPUTS))
    return Warehouse(built_warehouse_path(root))


def test_a_specs_unknown_keys_are_counted_in_words_that_agree(typo_specs, app_env):
    app_env(typo_specs.path)
    at = run_page("specs", {"spec": "typo_keys"})
    assert not problems(at), problems(at)
    warned = " ".join(w.value for w in at.warning)
    assert "1 weight key fmat names no component of this spec" in warned and "it is ignored" in warned
    assert "1 threshold key acuracy names no component of this spec" in warned
    assert "(s)" not in warned
