"""The Specs page on promotion decisions the demo never makes: results outside their scale decide nothing and the
page says which, and a component gate whose threshold lies inside its interval reads "within noise of the
threshold". The warehouse holds the hand-worked decide_* fixtures of tests/specs/test_spec_decisions.py."""

from __future__ import annotations

import pytest

from tests.app.conftest import run_page
from tests.app.page_parts import problems
from tests.conftest import Warehouse
from tests.specs.conftest import decide_warehouse_built_once

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def decided(tmp_path_factory) -> Warehouse:
    """The warehouse tests/specs/test_spec_decisions.py reads, built once per test session."""
    return decide_warehouse_built_once(tmp_path_factory)


def _table(at, column: str):
    return next(d.value for d in at.dataframe if column in d.value.columns)


@pytest.mark.parametrize(("spec_id", "component"), [("decide_scale", "judge"), ("decide_scale_gate", "judge")])
def test_results_outside_their_scale_decide_nothing_and_the_page_says_which(decided, app_env, spec_id, component):
    # decide_scale: a composite of 1.125 on 0-1 once read "promote" at 0.8. decide_scale_gate: the composite is 1.0
    # on acc alone, but the judge's gate rests on two results above its 1-5 scale.
    app_env(decided.path)
    at = run_page("specs", {"spec": spec_id})
    assert not problems(at), problems(at)
    decisions = _table(at, "decision").set_index("model")
    assert decisions.loc["decide/m1", "decision"] == "undecided: out of scale"
    assert f"results outside their scale on {component}" in decisions.loc["decide/m1", "why"]
    assert any("not decided" in w.value and f"decide/m1 ({component})" in w.value for w in at.warning)
    components = _table(at, "verdict").set_index("component")
    assert components.loc[component, "verdict"] == "out of scale"


def test_a_gate_whose_threshold_lies_inside_its_interval_reads_within_noise(decided, app_env):
    # acc's gate is 0.7: 8 of 10 (m1) and 6 of 10 (m3) have Wilson intervals holding it, 10 of 10 (m2) does not.
    app_env(decided.path)
    at = run_page("specs", {"spec": "decide_noise"})
    assert not problems(at), problems(at)
    decisions = _table(at, "component gates within noise").set_index("model")
    assert decisions["component gates within noise"].to_dict() == {
        "decide/m1": "acc: within noise of the threshold", "decide/m2": "none",
        "decide/m3": "acc: within noise of the threshold"}
    components = _table(at, "against its threshold").set_index("model")
    assert components["against its threshold"].to_dict() == {
        "decide/m1": "within noise of the threshold", "decide/m2": "clear of the threshold",
        "decide/m3": "within noise of the threshold"}
    said = " ".join(i.value for i in at.info)
    assert "2 of 3 verdicts" in said
    assert "decide/m1 (promoted; acc)" in said and "decide/m3 (not promoted; acc)" in said


def test_the_decisions_n_is_the_composites_samples(decided, app_env):
    # The column was "n results" (result records: 10 samples x 1 metric here, but 12 x 3 = 36 on the demo's
    # triage spec), read as the n of the composite's interval. It is that n, n_composite_samples.
    app_env(decided.path)
    at = run_page("specs", {"spec": "decide_noise"})
    assert not problems(at), problems(at)
    decisions = _table(at, "decision").set_index("model")
    assert "n results" not in decisions.columns
    expected = dict(decided.rows(
        "select model_id, n_composite_samples from marts.fct_promotion_decisions where spec_id = 'decide_noise' "
        "and week_start = (select max(week_start) from marts.fct_promotion_decisions where spec_id = 'decide_noise')"))
    assert decisions["n samples"].to_dict() == expected
