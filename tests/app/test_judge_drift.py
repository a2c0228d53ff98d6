"""The Judge drift page applies its judge and week: the alerts are the chosen judge's, the chosen week is marked on
every chart, a judge still forming its baseline is told so, and reviewers' override rate is shown with its interval.
The warehouse holds the hand-computed forms of tests/models/test_judge_drift.py."""

from __future__ import annotations

import json

import pytest

from evalhouse.build import run_dbt
from tests.app.conftest import run_page
from tests.conftest import Warehouse, write_lines
from tests.models.test_judge_drift import drift_forms

pytestmark = pytest.mark.slow

SELECT = ("+fct_judge_drift", "+fct_judge_overrides", "+rpt_weekly_drift_alerts", "+fct_trials", "+fct_ratings",
          "+dim_models", "+dim_raters")


@pytest.fixture(scope="module")
def drifting(tmp_path_factory) -> Warehouse:
    """judge-y#1 alerts on helpfulness in 2026-W47 (its week 3, 10 items a week); solo#1 rates in 2026-W47 only; h-bo
    reviewed judge-y#1's two 2026-W45 forms and changed one helpfulness score."""
    root = tmp_path_factory.mktemp("judge_drift_page")
    warehouse = Warehouse(root / "w.duckdb")
    warehouse.ingest(write_lines(root / "forms.jsonl", drift_forms(items_per_week=10)))
    # Cautious: a test that reads a mart left out (relationships to dim_models from the specs marts) is left out too.
    result = run_dbt(warehouse.path, ("build", "--indirect-selection", "cautious", "--select", *SELECT),
                     target_path=root / "target", quiet=True)
    assert result.ok, result.failures
    return warehouse


def _problems(at) -> list[str]:
    return [f"exception: {e.value}" for e in at.exception] + [f"error box: {e.value}" for e in at.error]


def _said(at) -> str:
    return " ".join(e.value for e in [*at.caption, *at.info, *at.markdown])


def _specs(at) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("vega_lite_chart")]


def _title(spec: dict) -> str:
    title = spec.get("title")
    return title.get("text") if isinstance(title, dict) else str(title)


def _marked_weeks(spec: dict) -> list[dict]:
    """The x datum of every rule drawn at a fixed x (a marked week) in a chart's layers."""
    layers = spec.get("spec", spec).get("layer", [])
    return [layer["encoding"]["x"]["datum"] for layer in layers
            if layer.get("mark", {}).get("type") == "rule" and "datum" in layer.get("encoding", {}).get("x", {})]


def test_a_judge_without_alerts_lists_none_of_another_judges_and_says_its_baseline_is_forming(drifting, app_env):
    app_env(drifting.path)
    at = run_page("judge_drift", {"judge": "solo#1", "week": "2026-W47"})
    assert not _problems(at)
    assert at.selectbox(key="judge_drift.judge").value == "solo#1"
    # Before: "No alert ever." above a table of judge-y#1's 2026-W47 alert.
    assert not [frame for frame in (d.value for d in at.dataframe) if "judge-y#1" in frame.to_string()]
    said = _said(at)
    assert "No drift alerts of solo#1 up to 2026-W47 yet." in said
    assert "Baseline still forming: alerts possible from week 3" in said and "No alert ever" not in said


def test_the_chosen_week_is_marked_on_every_chart_and_bounds_the_alerts(drifting, app_env):
    app_env(drifting.path)
    at = run_page("judge_drift", {"judge": "judge-y#1", "week": "2026-W46"})
    assert not _problems(at)
    specs = _specs(at)
    for spec in specs:
        assert _marked_weeks(spec) == [{"year": 2026, "month": 11, "date": 9}], _title(spec)
    assert len(specs) == 3  # bias, agreement, override rate
    # The alert of 2026-W47 comes after the chosen week.
    assert "No drift alerts of judge-y#1 up to 2026-W46 yet." in _said(at)

    at = run_page("judge_drift", {"judge": "judge-y#1", "week": "2026-W47"})
    alerts = at.dataframe[0].value
    assert list(alerts["week"]) == ["2026-W47"] and list(alerts["dimension"]) == ["helpfulness"]
    # Baseline biases 2, 0 and eighteen 1s: var_samp 2/19. Week 3 all 4 (SE 0, so the baseline's spread over 10
    # items): z = 3 / sqrt(2/19 / 10 + 2/19 / 20) = 23.9.
    assert list(alerts["z"]) == [f"{3 / (3 / 190) ** 0.5:.1f}"]


def test_the_override_rate_is_shown_per_dimension_with_its_wilson_interval(drifting, app_env):
    app_env(drifting.path)
    at = run_page("judge_drift", {"judge": "judge-y#1", "week": "2026-W45"})
    assert not _problems(at)
    assert "How often do reviewers overrule judge-y#1?" in [_title(s) for s in _specs(at)]
    overrides = at.dataframe[-1].value
    # One of two reviewed ratings changed: Wilson (1 + 1.96^2/2 -/+ 1.96 sqrt(1/2 + 1.96^2/4)) / (2 + 1.96^2).
    assert overrides.to_dict("records") == [{
        "dimension": "helpfulness", "override rate [95% interval]": "50% [9%, 91%]", "reviewed ratings": 2,
        "reviews": 2, "changed": 1, "reviewers": 1, "mean score change": "-1.00",
    }]
