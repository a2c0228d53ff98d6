"""The Agreement page: people's weekly alpha is drawn with its 95% interval (rpt_weekly_agreement's), its legends
have room for their labels, and an empty state names the real cause (ratings by others only, no item with two
raters, every rating the same), never a hint to ingest or build what is there already, and the threshold items are
flagged below is the one the build flagged them with."""

from __future__ import annotations

import json

import duckdb
import pytest

from tests.app.conftest import JUDGED_WEEK, LAST_WEEK, RATED_WEEK, iso_week, run_page
from tests.app.page_parts import chart_subtitle, chart_title, problems, walk

pytestmark = pytest.mark.slow

TREND = "Has agreement on helpfulness changed week by week?"


def _infos(at) -> list[str]:
    return [i.value for i in at.info]


def _chart(at, question: str):
    """The chart asking `question`: its spec and its datasets, as frames."""
    from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df

    for chart in at.get("vega_lite_chart"):
        spec = json.loads(chart.proto.spec)
        if chart_title(spec) == question:
            return spec, [convert_arrow_bytes_to_pandas_df(d.data.data) for d in chart.proto.datasets]
    raise AssertionError(f"no chart asks {question!r}")


def test_peoples_weekly_alpha_is_drawn_with_its_95_percent_interval(demo_warehouse, app_env):
    expected = demo_warehouse.frame(
        "select week_start, human_alpha, human_alpha_ci_low, human_alpha_ci_high from marts.rpt_weekly_agreement "
        "where dimension = 'helpfulness' and human_alpha_ci_low is not null order by week_start")
    assert len(expected) > 1 and (expected["human_alpha_ci_high"] - expected["human_alpha_ci_low"] > 0.1).all()
    app_env(demo_warehouse.path)
    at = run_page("agreement")
    assert not problems(at), problems(at)
    spec, frames = _chart(at, TREND)
    # A rule from the interval's low end to its high end, in people's colour.
    bars = [layer for layer in spec["layer"] if layer["encoding"].get("y2", {}).get("field") == "alpha_ci_high"]
    assert bars and bars[0]["encoding"]["y"]["field"] == "alpha_ci_low"
    drawn = next(f for f in frames if "alpha_ci_low" in f.columns and f["alpha_ci_low"].notna().any())
    people = drawn.dropna(subset=["alpha_ci_low"]).sort_values("week_start")
    assert set(people["rater_group"]) == {"human"}
    assert people["alpha_ci_low"].round(6).tolist() == expected["human_alpha_ci_low"].round(6).tolist()
    assert people["alpha_ci_high"].round(6).tolist() == expected["human_alpha_ci_high"].round(6).tolist()
    assert "people's alpha's 95% interval" in chart_subtitle(spec)


def test_the_agreement_charts_legends_have_room_for_their_labels(demo_warehouse, app_env):
    """'alpha below target, within its interval' and 'Krippendorff's alpha' were cut off at Vega's 160 px default.
    The points' colour and shape share one legend (on colour), whose entries are drawn as the points are."""
    app_env(demo_warehouse.path)
    at = run_page("agreement", {"week": iso_week(LAST_WEEK)})
    assert not problems(at), problems(at)
    legends = []
    for chart in at.get("vega_lite_chart"):
        for node in walk(json.loads(chart.proto.spec)):
            if isinstance(node.get("legend"), dict) and node.get("field") in ("colour", "statistic", "raters"):
                legends.append((node["field"], node["legend"].get("labelLimit", 160)))
    assert {field for field, _ in legends} == {"colour", "raters"}, legends
    assert all(limit >= 300 for _, limit in legends), legends


def test_a_week_without_peoples_ratings_says_whose_ratings_it_holds(people_then_judge_warehouse, app_env):
    warehouse = people_then_judge_warehouse
    judged = warehouse.scalar("select count(*) from marts.fct_ratings where week_start = ? "
                              "and rater_group = 'llm_judge'", [JUDGED_WEEK])
    assert judged > 0 and warehouse.scalar("select count(*) from marts.fct_ratings where week_start = ? "
                                           "and rater_group <> 'llm_judge'", [JUDGED_WEEK]) == 0
    app_env(warehouse.path)
    at = run_page("agreement")  # people, on the latest complete week: JUDGED_WEEK
    assert not problems(at), problems(at)
    infos = _infos(at)
    said = (f"No ratings by people in {iso_week(JUDGED_WEEK)}, so no agreement among them: the {judged} ratings "
            f"there are {judged} by LLM judges.")
    assert any(i.startswith(said) for i in infos), infos
    assert not any("No ratings yet" in i or "Ingest eval forms" in i for i in infos), infos


@pytest.mark.parametrize(("dimension", "group", "week", "cause"), [
    ("chat.consistency_across_turns", "llm_judge", JUDGED_WEEK,
     "in no week did two or more raters rate the same item."),
    ("faithfulness", "human", RATED_WEEK,
     "in the weeks where two or more raters rated an item, every rating was the same"),
])
def test_a_dimension_with_no_weekly_alpha_says_why_not_to_build(people_then_judge_warehouse, app_env, dimension,
                                                                group, week, cause):
    warehouse = people_then_judge_warehouse
    assert warehouse.scalar("select count(alpha) from marts.fct_rater_agreement where dimension = ?",
                            [dimension]) == 0
    assert warehouse.scalar("select count(*) from marts.fct_rater_agreement where dimension = ? and rater_group = ? "
                            "and week_start = ?", [dimension, group, week]) > 0
    app_env(warehouse.path)
    at = run_page("agreement", {"week": iso_week(week), "group": group, "dimension": dimension})
    assert not problems(at), problems(at)
    infos = _infos(at)
    assert any(i == f"No weekly alpha for {dimension}: {cause}" or i.startswith(f"No weekly alpha for {dimension}: "
                                                                               f"{cause}") for i in infos), infos
    assert not any("evalhouse build" in i for i in infos), infos


def test_a_week_whose_ratings_are_of_items_first_rated_earlier_says_where_they_count(rerated_warehouse, app_env):
    warehouse = rerated_warehouse
    rated = warehouse.scalar("select count(*) from marts.fct_ratings where week_start = ? and rater_group = 'human'",
                             [JUDGED_WEEK])
    assert rated > 0 and warehouse.scalar("select count(*) from marts.fct_rater_agreement where week_start = ?",
                                          [JUDGED_WEEK]) == 0
    app_env(warehouse.path)
    at = run_page("agreement")  # people, on the latest complete week: JUDGED_WEEK
    assert not problems(at), problems(at)
    assert at.selectbox(key="agreement.week").value == iso_week(JUDGED_WEEK)
    said = (f"No agreement for people in {iso_week(JUDGED_WEEK)}: their {rated} ratings that week are of items first "
            "rated in an earlier week, where agreement counts them.")
    assert said in _infos(at), _infos(at)


def test_the_agreement_tables_are_as_tall_as_their_rows_up_to_a_cap(demo_warehouse, app_env, monkeypatch):
    """Fixed heights left blank rows under a short table (the ratings of one item) and scrolled a long one."""
    import streamlit

    shown = []
    original = streamlit.dataframe

    def recording(data=None, *args, **kwargs):
        shown.append((len(data), kwargs.get("height")))
        return original(data, *args, **kwargs)

    monkeypatch.setattr(streamlit, "dataframe", recording)
    app_env(demo_warehouse.path)
    at = run_page("agreement")
    assert not problems(at), problems(at)
    assert len(shown) == 3, shown  # the dimensions, the flagged items, one item's ratings
    row, header_and_border = 35, 35 + 3
    (dimensions, dimensions_height), (flagged, flagged_height), (ratings, ratings_height) = shown
    assert dimensions <= 20 and dimensions_height == header_and_border + dimensions * row  # every dimension at once
    assert flagged > 15 and flagged_height == header_and_border + 15 * row  # scrolls past 15
    assert ratings < 10 and ratings_height == header_and_border + ratings * row  # no blank rows under it


def _captions_starting(writable_demo, app_env, *leads: str) -> list[str]:
    """The one caption of the Agreement page that starts with each lead, on the warehouse as it is now."""
    app_env(writable_demo.path)
    at = run_page("agreement")
    assert not problems(at), problems(at)
    said = [[c.value for c in at.caption if c.value.startswith(lead)] for lead in leads]
    assert all(len(one) == 1 for one in said), said
    return [one[0] for one in said]


def test_the_targets_and_flag_threshold_the_captions_give_are_the_ones_the_build_used(writable_demo, app_env):
    """The seed agreement_targets, as fct_rater_agreement.target and fct_item_disagreement.flag_below carry them, per
    dimension group: a team that sets its own reads them (the captions had "alpha 0.6 for quality dimensions, 0.8
    for safety" and "below 0.4" written in)."""
    leads = ("**Krippendorff's alpha**", "An item is flagged when the people's agreement on it")
    targets, flags = _captions_starting(writable_demo, app_env, *leads)
    assert "Targets: alpha 0.6 on quality dimensions and 0.8 on safety dimensions, met" in targets
    assert "expected disagreement among people) is below 0.4: the people who" in flags

    with duckdb.connect(str(writable_demo.path)) as con:
        con.execute("update marts.fct_item_disagreement set flag_below = 0.3 where dimension_group = 'safety'")
        con.execute("update marts.fct_rater_agreement set target = 0.7")
    targets, flags = _captions_starting(writable_demo, app_env, *leads)
    assert "Targets: alpha 0.7, met or not by **people**" in targets
    assert "is below 0.4 on quality dimensions and 0.3 on safety dimensions: the people" in flags

    with duckdb.connect(str(writable_demo.path)) as con:
        con.execute("update marts.fct_item_disagreement set flag_below = 0.3")
    _, flags = _captions_starting(writable_demo, app_env, *leads)
    assert "is below 0.3: the people" in flags
