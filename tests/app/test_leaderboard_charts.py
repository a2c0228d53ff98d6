"""The Leaderboard's "Which model scores best on each eval": a chart per eval, each on that eval's scale with its own
x axis and as wide as the page (one faceted chart put every eval on the 1-5 scale of groundedness, its only axis under
the last of a dozen panels, at half the page's width), each saying which run its points are from and over how many
samples."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from tests.app.conftest import run_page
from tests.app.page_parts import chart_subtitle, chart_title, problems, walk

pytestmark = pytest.mark.slow

ASKS = ": which model scores best ("


def _eval_charts(at) -> dict[str, tuple[dict, pd.DataFrame]]:
    """eval -> its chart's spec and data, for each chart asking which model scores best on one eval."""
    from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df

    found = {}
    for chart in at.get("vega_lite_chart"):
        spec = json.loads(chart.proto.spec)
        if ASKS in chart_title(spec):
            frames = [convert_arrow_bytes_to_pandas_df(d.data.data) for d in chart.proto.datasets]
            found[chart_title(spec).split(ASKS)[0]] = (spec, next(f for f in frames if "run_id" in f.columns))
    return found


def _x_encodings(spec: dict) -> list[dict]:
    return [node["encoding"]["x"] for node in walk(spec)
            if isinstance(node.get("encoding"), dict) and isinstance(node["encoding"].get("x"), dict)
            and node["encoding"]["x"].get("field") in ("ci_low", "score")]


def test_mean_score_draws_each_eval_on_its_own_scale_with_its_own_axis_as_wide_as_the_page(demo_warehouse,
                                                                                              app_env):
    app_env(demo_warehouse.path)
    at = run_page("leaderboard", {"metric": "mean_score"})
    assert not problems(at), problems(at)
    assert "Which model scores best on each eval (mean_score)?" in [h.value for h in at.subheader]
    assert all(chart_title(spec).endswith(" (mean_score)?") for spec, _ in _eval_charts(at).values())
    charts = _eval_charts(at)
    scales = demo_warehouse.frame(
        "select evaluation_name, trial_metric, min(min_score) as low, max(max_score) as high "
        "from marts.fct_benchmark_results where metric_name = 'mean_score' group by all")
    several = scales.groupby("evaluation_name")["trial_metric"].transform("nunique") > 1
    scales["eval"] = scales["evaluation_name"].where(~several, scales["evaluation_name"] + " · "
                                                     + scales["trial_metric"])
    assert set(charts) == set(scales["eval"]) and len(charts) == 11  # the demo's eleven with trials, a chart each
    # The demo's 1-5 rubrics among its 0-1 evals: each chart's x scale is its eval's own.
    assert {(lo, hi) for lo, hi in zip(scales["low"], scales["high"])} == {(0.0, 1.0), (1.0, 5.0)}
    for _, row in scales.iterrows():
        spec, _ = charts[row["eval"]]
        assert "facet" not in spec, row["eval"]  # one view: its own axis, drawn under its own points
        x = _x_encodings(spec)
        assert x and all(e["scale"]["domain"] == [row["low"], row["high"]] for e in x), (row["eval"], x)
        assert all("axis" not in e or (e["axis"] is not None and e["axis"].get("labels", True)) for e in x), x
        # fitted to the page's width (Streamlit fits a single or layered view only)
        assert spec["autosize"] == {"type": "fit-x", "contains": "padding"}, row["eval"]
    scale_titles = {e["title"] for e in _x_encodings(charts["acme_groundedness_suite/groundedness"][0])}
    assert scale_titles == {"mean_score, 1 to 5 (95% interval)"}


def test_each_eval_chart_says_which_run_its_points_are_from_and_over_how_many_samples(demo_warehouse, app_env):
    app_env(demo_warehouse.path)
    at = run_page("leaderboard")
    assert not problems(at), problems(at)
    charts = _eval_charts(at)
    assert len(charts) >= 10
    days_differ = 0
    for evaluation, (spec, shown) in charts.items():
        said = chart_subtitle(spec)
        days = pd.to_datetime(shown["evaluated_at"]).groupby(shown["model_id"]).max().dt.date
        for model, day in days.items():
            assert f"{day:%d %b %Y}" in said, (evaluation, model, said)
        if days.nunique() > 1:  # by day, each day's models named
            days_differ += 1
            for model, day in days.items():
                assert f"{day:%d %b %Y} (" in said and model in said, (evaluation, said)
        else:
            assert said.startswith(f"Each model's latest run, of {days.iloc[0]:%d %b %Y}, over "), said
        n = shown["n_samples"].dropna()
        assert (f"over {int(n.iloc[0]):,} samples each" if n.nunique() == 1 else
                f"over {int(n.min()):,} to {int(n.max()):,} samples") in said, (evaluation, said)
    assert days_differ >= 1  # the demo's CogniBench runs: its models' latest runs fall on different days


TREND_ASKS = ": has its pass rate moved?"


def test_the_trend_is_a_chart_per_model_as_wide_as_the_page_with_every_run_on_the_same_axes(demo_warehouse,
                                                                                             app_env):
    """One faceted chart, four panels of 190 px in a row, ran 480 px past a 900 px window; a chart per model fits any
    width. Every computed run of the eval in the range is a point, each chart on the eval's scale and the same days."""
    from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df

    app_env(demo_warehouse.path)
    at = run_page("leaderboard", {"trend": "gsm8k"})
    assert not problems(at), problems(at)
    assert "Has any model's score moved over time (pass rate)?" in [h.value for h in at.subheader]
    charts = {}
    for chart in at.get("vega_lite_chart"):
        spec = json.loads(chart.proto.spec)
        if chart_title(spec).endswith(TREND_ASKS):
            frames = [convert_arrow_bytes_to_pandas_df(d.data.data) for d in chart.proto.datasets]
            charts[chart_title(spec).split(TREND_ASKS)[0]] = (spec, pd.concat(frames))
    runs = demo_warehouse.frame(
        "select model_id, run_id from marts.fct_benchmark_results "
        "where evaluation_name = 'gsm8k' and metric_name = 'accuracy' and result_origin = 'computed'")
    assert sorted(charts) == sorted(runs["model_id"].unique()) and len(charts) >= 2, sorted(charts)
    x_domains = set()
    for model, (spec, shown) in charts.items():
        assert "facet" not in spec and spec["autosize"] == {"type": "fit-x", "contains": "padding"}, model
        assert set(shown["run_id"]) == set(runs[runs["model_id"] == model]["run_id"]), model  # every run, its own
        assert set(shown["model_id"]) == {model}
        scales = [node["scale"] for node in walk(spec) if isinstance(node.get("scale"), dict)]
        assert {tuple(s["domain"]) for s in scales if s["domain"] and isinstance(s["domain"][0], float)} == \
               {(0.0, 1.0)}, model  # the eval's scale, for every model
        x_domains.add(json.dumps([s["domain"] for s in scales if isinstance(s["domain"][0], dict)]))
        assert "gsm8k: " in chart_subtitle(spec) and "95% interval" in chart_subtitle(spec), chart_subtitle(spec)
    assert len(x_domains) == 1, x_domains  # the same days in each
