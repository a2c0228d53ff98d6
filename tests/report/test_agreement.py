"""The report's agreement: its verdict is on the people's alpha (whether people read a rubric the same way), with all
raters' and the judges' alphas beside it, and a week with no people's alpha says so. In the demo's drifting-judge
week (2026-W45), all raters pooled fall below target on helpfulness while the people meet it."""

from __future__ import annotations

import datetime as dt
import math
from html import escape

import pandas as pd
import pytest

from evalhouse.report.document import Paragraph, Table
from evalhouse.report.sections import Context, agreement, judge_drift
from tests.report.conftest import LAST_WEEK, SHIFTED_WEEK, section_html

pytestmark = pytest.mark.slow


def _weekly(demo_warehouse, group: str) -> pd.DataFrame:
    frame = demo_warehouse.frame(
        "select dimension, week_start, n_units, alpha, percent_agreement, top_value_share, meets_target "
        "from marts.fct_rater_agreement where rater_group = ? and week_start is not null", [group])
    frame["week_start"] = pd.to_datetime(frame["week_start"]).dt.date
    return frame.set_index(["dimension", "week_start"])


def _same(got, expected) -> bool:
    missing = [v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA for v in (got, expected)]
    return all(missing) if any(missing) else abs(got - expected) <= 1e-12


def test_the_verdict_is_the_peoples_alpha_with_all_raters_and_judges_beside_it(demo_warehouse):
    report = demo_warehouse.frame("select * from marts.rpt_weekly_agreement")
    report["week_start"] = pd.to_datetime(report["week_start"]).dt.date
    people, pooled, judges = (_weekly(demo_warehouse, g) for g in ("human", "all", "llm_judge"))
    assert len(report) == len(pooled) > 100  # a row for every dimension anyone rated that week
    checked = 0
    for row in report.itertuples():
        key = (row.dimension, row.week_start)
        human = people.loc[key] if key in people.index else None
        expected = None if human is None else human.alpha
        assert _same(row.human_alpha, expected), key
        assert row.human_n_units == (0 if human is None else human.n_units), key
        assert _same(row.all_raters_alpha, pooled.loc[key].alpha), key
        assert _same(row.judge_alpha, judges.loc[key].alpha if key in judges.index else None), key
        if expected is None or pd.isna(expected):
            assert row.target_status == "undefined" and pd.isna(row.meets_target), key
        else:
            assert row.target_status == ("meets_target" if expected >= row.target else "below_target"), key
            assert _same(row.human_percent_agreement, human.percent_agreement), key
            checked += 1
        previous = (row.dimension, row.week_start - dt.timedelta(days=7))
        before = people.loc[previous].alpha if previous in people.index else None
        assert _same(row.previous_human_alpha, before), key
    assert checked > 100


def test_in_the_drifting_judges_week_people_meet_the_helpfulness_target_that_all_raters_miss(demo_warehouse):
    row = demo_warehouse.frame(
        "select * from marts.rpt_weekly_agreement where dimension = 'helpfulness' and week_start = ?",
        [SHIFTED_WEEK]).iloc[0]
    assert row.target_status == "meets_target" and row.human_alpha >= row.target
    assert row.all_raters_alpha < row.target and row.judge_alpha < row.all_raters_alpha


def test_the_shifted_weeks_section_gives_the_peoples_verdict_and_points_at_the_judge(shifted_week_html):
    section = section_html(shifted_week_html, agreement.ANCHOR)
    for header in ("Alpha, people [95% interval]", "Status, people", "Alpha, all raters (n items)",
                   "Alpha, judges (n items)"):
        assert f"<th>{escape(header)}</th>" in section, header
    helpfulness = section[section.index("<td>helpfulness</td>"):]
    helpfulness = helpfulness[:helpfulness.index("</tr>")]
    assert "meets target" in helpfulness and "below target" not in helpfulness
    # The pooled alpha's shortfall is put down to the judges, and the reader sent to the drift section.
    assert "People meet the target on helpfulness" in section and escape(judge_drift.TITLE) in section
    # Hazards only judges rated have no people's alpha, and the section says so.
    unrated = section[section.index(escape("No people's alpha for")):]
    assert "hazard.hate" in unrated[:unrated.index("</p>")]


class _Reader:
    """Stands in for the warehouse: the agreement rows first, then the flagged tasks, then the flag threshold per
    dimension group (the seed's 0.4 for both unless given)."""

    def __init__(self, agreement_rows: list[dict], flagged_rows: list[dict],
                 flag_below: dict[str, float] | None = None) -> None:
        thresholds = flag_below or {"quality": 0.4, "safety": 0.4}
        self._answers = [agreement_rows, flagged_rows,
                         [{"dimension_group": g, "flag_below": v} for g, v in thresholds.items()]]

    def rows(self, sql: str, params=()) -> list[dict]:
        return self._answers.pop(0)


def _row(dimension: str, **values) -> dict:
    row = dict(dimension=dimension, dimension_group="quality", human_alpha=None, human_n_units=0, target=0.6,
               target_status="undefined", all_raters_alpha=None, judge_alpha=None, human_percent_agreement=None,
               human_top_value_share=None, previous_human_alpha=None, n_items_flagged=0, n_items_compared=0,
               all_raters_n_units=0, judge_n_units=0, previous_human_n_units=0, human_alpha_ci_low=None,
               human_alpha_ci_high=None, is_target_within_interval=None)
    return {**row, **values}


def _texts(part) -> list[str]:
    return [b.text for b in part.section.blocks if isinstance(b, Paragraph)]


def test_a_dimension_without_a_peoples_alpha_says_why_and_keeps_the_other_alphas():
    rows = [
        _row("helpfulness", human_alpha=0.7, human_n_units=10, target_status="meets_target", all_raters_alpha=0.5,
             all_raters_n_units=12, judge_alpha=0.3, judge_n_units=12),
        _row("faithfulness", human_n_units=4, all_raters_alpha=0.2,  # people's ratings all in one category
             all_raters_n_units=4),
        _row("hazard.hate"),  # only judges rated it
    ]
    part = agreement.build(Context(_Reader(rows, []), dt.date(2026, 11, 2)))
    texts = _texts(part)
    assert texts[0] == "People agree well enough on the only dimension with a people's alpha."
    assert any("People meet the target on helpfulness (people 0.700 on 10 items, all raters 0.500 on 12 items)"
               in t for t in texts)
    assert any(t.startswith("No people's alpha for 1 dimension") and "hazard.hate" in t for t in texts)
    assert any("undefined for 1 dimension" in t and "one category" in t and "faithfulness" in t for t in texts)
    table = next(b for b in part.section.blocks if isinstance(b, Table))
    shown = {r[0].text: r for r in table.rows}
    assert set(shown) == {"helpfulness", "faithfulness"}  # hazard.hate has no alpha of any group to show
    status = table.columns.index("Status, people")
    assert shown["faithfulness"][status].text == "no people's alpha"
    assert shown["faithfulness"][table.columns.index("Alpha, all raters (n items)")].text == "0.200 (4)"
    assert "people" in part.headline.text


def test_a_week_with_no_peoples_alpha_anywhere_says_so_in_the_headline():
    part = agreement.build(Context(_Reader([_row("hazard.hate")], []), dt.date(2026, 11, 2)))
    assert "no dimension has a people's alpha this week" in part.headline.text
    assert _texts(part)[0].startswith("No dimension has a people's alpha this week")


def test_an_alpha_just_below_its_target_does_not_read_as_the_target(demo_warehouse, last_week_html):
    """2026-W47: agent.plan_quality's people's alpha is 0.5976 against 0.6. At two decimals the row read "0.60",
    target "0.6", "below target". Now each alpha has its interval beside it, and a shortfall whose interval reaches
    the target reads "below target, but within its interval" (tone warn, not bad)."""
    rows = demo_warehouse.rows(
        "select dimension, human_alpha, target, human_alpha_ci_low, human_alpha_ci_high, is_target_within_interval "
        "from marts.rpt_weekly_agreement where week_start = ? and target_status = 'below_target'", [LAST_WEEK])
    section = section_html(last_week_html, agreement.ANCHOR)
    near = [r for r in rows if round(r[1], 2) == r[2]]
    assert near, "the demo's W47 has alphas a hair below their target"
    assert any(r[5] for r in rows) and not all(r[5] for r in rows)  # both kinds of shortfall this week
    for dimension, alpha, target, low, high, within in rows:
        row = section[section.index(f"<td>{escape(dimension)}</td>"):]
        row = row[:row.index("</tr>")]
        tone = "warn" if within else "bad"
        shown = row.split(f'<td class="num tone-{tone}">')[1].split("<")[0]
        assert shown == f"{alpha:.3f} [{low:.3f}, {high:.3f}]" and alpha < target, (dimension, shown)
        assert ("below target, but within its interval" in row) == bool(within), dimension


def test_a_shortfall_whose_interval_reaches_the_target_is_no_firm_failure():
    """rag.answer_relevance 0.55 on 10 items, interval [0.31, 0.74] against 0.6: it reads below target, but
    within its interval, and alone it turns the summary's tone from warn to neutral (not good: it is still below its
    target); a shortfall whose interval stays below the target still reads below target."""
    within = _row("rag.answer_relevance", human_alpha=0.55, human_n_units=10, target_status="below_target",
                  human_alpha_ci_low=0.31, human_alpha_ci_high=0.74, is_target_within_interval=True)
    part = agreement.build(Context(_Reader([within], []), dt.date(2026, 11, 16)))
    table = next(b for b in part.section.blocks if isinstance(b, Table))
    cells = {c: cell for c, cell in zip(table.columns, table.rows[0])}
    assert cells["Alpha, people [95% interval]"].text == "0.550 [0.310, 0.740]"
    assert cells["Status, people"].text == "below target, but within its interval"
    assert cells["Status, people"].tone == "warn"
    summary = part.section.blocks[0]
    assert "Its 95% interval reaches the target" in summary.text and summary.tone is None

    firm = _row("safety", human_alpha=0.40, human_n_units=60, target_status="below_target", target=0.8,
                human_alpha_ci_low=0.28, human_alpha_ci_high=0.52, is_target_within_interval=False)
    part = agreement.build(Context(_Reader([within, firm], []), dt.date(2026, 11, 16)))
    table = next(b for b in part.section.blocks if isinstance(b, Table))
    status = table.columns.index("Status, people")
    assert {r[0].text: r[status].text for r in table.rows} == {
        "rag.answer_relevance": "below target, but within its interval", "safety": "below target"}
    assert "On 1 of 2, the 95% interval reaches the target" in part.section.blocks[0].text
    assert part.section.blocks[0].tone == "warn" and part.headline.tone == "warn"

    met = _row("helpfulness", human_alpha=0.80, human_n_units=40, target_status="meets_target",
               human_alpha_ci_low=0.70, human_alpha_ci_high=0.88, is_target_within_interval=False)
    assert agreement.build(Context(_Reader([met], []), dt.date(2026, 11, 16))).section.blocks[0].tone == "good"


def test_every_alpha_shows_the_items_it_is_over_which_differ_between_groups_and_weeks():
    """2026-W47's chat.consistency_across_turns: people's alpha on 31 items, all raters' and the judges' on 40, the
    week before's on 30. Shown bare, the pooled alpha read as if on the people's 31 items, and a move from the week
    before as if on the same number."""
    rows = [_row("chat.consistency_across_turns", human_alpha=0.711, human_n_units=31, target_status="meets_target",
                 all_raters_alpha=0.590, all_raters_n_units=40, judge_alpha=0.616, judge_n_units=40,
                 previous_human_alpha=0.689, previous_human_n_units=30)]
    part = agreement.build(Context(_Reader(rows, []), dt.date(2026, 11, 16)))
    table = next(b for b in part.section.blocks if isinstance(b, Table))
    cells = dict(zip(table.columns, (c.text for c in table.rows[0])))
    assert cells["n items, people"] == "31"
    assert cells["Alpha, all raters (n items)"] == "0.590 (40)"
    assert cells["Alpha, judges (n items)"] == "0.616 (40)"
    assert cells["Alpha, people, 2026-W46 (n items)"] == "0.689 (30)"
    assert any("(people 0.711 on 31 items, all raters 0.590 on 40 items)" in t for t in _texts(part))


def _flagged(task: str, n_items_flagged: int, n_flags: int, lowest: float) -> dict:
    return dict(task_id=task, prompt=f"prompt of {task}", n_items_compared=4, n_items_flagged=n_items_flagged,
                n_flags=n_flags, n_dimensions_flagged=n_flags, dimensions_flagged="a, b", min_item_agreement=lowest,
                example_response=None)


def test_the_flagged_tasks_show_the_flags_they_are_ordered_by():
    """2026-W47: rag-kb-0003 (3 of 4 items flagged, 6 flags) sat above support-0002 (4 of 4, 4 flags): ordered by
    flags, which the table did not show, it read as out of order."""
    rows = [_row("helpfulness", human_alpha=0.7, human_n_units=10, target_status="meets_target")]
    flagged = [_flagged("rag-kb-0003", 3, 6, -1.10), _flagged("support-0002", 4, 4, -1.78)]
    part = agreement.build(Context(_Reader(rows, flagged), dt.date(2026, 11, 16)))
    table = next(b for b in part.section.subsections[0].blocks if isinstance(b, Table))
    flags = table.columns.index("Flags")
    assert [(r[0].text, r[2].text, r[flags].text) for r in table.rows] == [
        ("rag-kb-0003", "3 of 4", "6"), ("support-0002", "4 of 4", "4")]
    assert table.caption.startswith("Flags: the task's items below 0.4, counted once per dimension")


def test_the_targets_and_the_flag_threshold_are_the_ones_the_build_used():
    """The seed agreement_targets, as rpt_weekly_agreement.target and fct_item_disagreement.flag_below carry them:
    the section had "Targets: 0.6 on quality, 0.8 on safety" and "below 0.4" written in, stale for a team that sets
    its own."""
    rows = [_row("helpfulness", human_alpha=0.7, human_n_units=10, target_status="meets_target", target=0.65),
            _row("safety", dimension_group="safety", human_alpha=0.9, human_n_units=10, target_status="meets_target",
                 target=0.85)]
    flagged = [_flagged("rag-kb-0003", 3, 6, -1.10)]
    part = agreement.build(Context(_Reader(rows, flagged, {"quality": 0.4, "safety": 0.3}), dt.date(2026, 11, 16)))
    table = next(b for b in part.section.blocks if isinstance(b, Table))
    assert "Targets: 0.65 on quality dimensions and 0.85 on safety dimensions." in table.caption
    flagged_section = part.section.subsections[0]
    lead = next(b for b in flagged_section.blocks if isinstance(b, Paragraph))
    assert "below 0.4 on quality dimensions and 0.3 on safety dimensions on at least one dimension" in lead.text
    tasks = next(b for b in flagged_section.blocks if isinstance(b, Table))
    assert tasks.caption.startswith("Flags: the task's items below 0.4 on quality dimensions and 0.3 on safety")

    nothing = agreement.build(Context(_Reader(rows, [], {"quality": 0.3, "safety": 0.3}), dt.date(2026, 11, 16)))
    assert "(people's item agreement 0.3)" in nothing.section.subsections[0].blocks[0].text
