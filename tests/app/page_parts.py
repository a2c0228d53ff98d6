"""What a test reads off a page run by AppTest: the problems it shows, its charts' titles, specs and data, and the
Overview's table of models with the pages its links open."""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Iterator
from typing import Any

from evalhouse.report.sections import model_scores


def problems(at) -> list[str]:
    """The exceptions and error boxes a page run shows: a page that works shows none."""
    return [f"exception: {e.value}" for e in at.exception] + [f"error box: {e.value}" for e in at.error]


def _said(text: Any) -> str:
    """A title's text or subtitle as written: its lines joined. components.show_chart draws a long one as an
    expression that picks among its breakings into lines ([[...], [...]][index]), each the same words."""
    if isinstance(text, dict) and "expr" in text:
        text = json.JSONDecoder().raw_decode(text["expr"])[0][0]
    return " ".join(text) if isinstance(text, list) else str(text)


def chart_title(spec: dict) -> str:
    """A Vega-Lite spec's title text (the question the chart answers), its lines joined."""
    title = spec.get("title") or {}
    return _said(title.get("text", "") if isinstance(title, dict) else title)


def chart_subtitle(spec: dict) -> str:
    """A Vega-Lite spec's subtitle, its lines joined."""
    title = spec.get("title") or {}
    return _said(title.get("subtitle", "") if isinstance(title, dict) else "")


def chart_asking(at, question: str) -> tuple[dict, list]:
    """The chart whose title starts with `question`: its spec and its datasets, as pandas frames."""
    from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df

    for chart in at.get("vega_lite_chart"):
        spec = json.loads(chart.proto.spec)
        if chart_title(spec).startswith(question):
            return spec, [convert_arrow_bytes_to_pandas_df(d.data.data) for d in chart.proto.datasets]
    raise AssertionError(f"no chart asks {question!r}")


def walk(node: Any) -> Iterator[dict]:
    """Every dict in a spec, nested ones included (layers, encodings, marks)."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from walk(value)


def overview_models(at):
    """The Overview's table of each model this week against last: one row per model, eval and metric."""
    return next(d.value for d in at.dataframe if "model on eval" in d.value.columns)


def link_target(url: str) -> tuple[str, dict[str, list[str]]]:
    """The page a table's link opens and its query parameters: 'leaderboard?model=a&model=b' ->
    ('leaderboard', {'model': ['a', 'b']})."""
    parts = urllib.parse.urlsplit(url)
    return parts.path, urllib.parse.parse_qs(parts.query)


def weekly_model_changes(warehouse, week) -> Any:
    """The weekly report's rows of a week (model_scores.CHANGES_SQL, its order), each with the label the Overview's
    table gives it in "model on eval": the eval as the report names it, with its metric where the week scores it on
    several."""
    return warehouse.frame(
        f"select *, model_id || ' on ' || eval_label as model_on_eval from ({model_scores.CHANGES_SQL})", [week])
