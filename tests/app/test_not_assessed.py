"""A check with nothing to check says "not assessed", never "none found" (the weekly report's rule): the Overview's
attention cards show n/a and why for a week with no drift pair tested, no change tested, no alpha among people or no
verdict by people, and a change against last week only when both weeks were assessed; the quarantine card names no
latest ingest run when there has been none."""

from __future__ import annotations

import datetime as dt

import pytest

from tests.app.conftest import JUDGED_WEEK, LAST_WEEK, RATED_WEEK, iso_week, run_page
from tests.app.page_parts import problems

pytestmark = pytest.mark.slow

DRIFT, DROPS = "Judge drift alerts this week", "Significant score drops"
AGREEMENT, VIOLATING = "Dimensions below their agreement target", "Violating verdicts from people"
QUARANTINE = "Lines quarantined, still refused now"


def _card(at, label: str):
    return next(m for m in at.metric if m.label == label)


def _captions(at) -> list[str]:
    return [c.value for c in at.caption]


def test_a_week_with_nothing_checked_says_not_assessed_on_every_card_and_no_change(people_then_judge_warehouse,
                                                                                   app_env):
    warehouse = people_then_judge_warehouse
    # JUDGED_WEEK checked nothing; the week before it (RATED_WEEK) found one dimension below target and one
    # violating verdict, so a 0 this week read as a green -1 on both cards.
    assert warehouse.rows("select n_drift_tested, n_changes_tested from marts.rpt_weekly_summary "
                          "where week_start = ?", [JUDGED_WEEK]) in ([], [(0, 0)])
    assert warehouse.scalar("select count(human_alpha) from marts.rpt_weekly_agreement where week_start = ?",
                            [JUDGED_WEEK]) == 0
    assert warehouse.scalar("select coalesce(sum(n_rated), 0) from marts.fct_hazard_rates where rater_group = 'human' "
                            "and week_start = ?", [JUDGED_WEEK]) == 0
    assert warehouse.rows("select count(case when target_status = 'below_target' then 1 end) "
                          "from marts.rpt_weekly_agreement where week_start = ?", [RATED_WEEK]) == [(1,)]
    assert warehouse.scalar("select sum(n_violating) from marts.fct_hazard_rates where rater_group = 'human' "
                            "and week_start = ?", [RATED_WEEK]) == 1
    app_env(warehouse.path)
    at = run_page("overview")  # opens on the latest complete week: JUDGED_WEEK
    assert not problems(at), problems(at)
    for label in (DRIFT, DROPS, AGREEMENT, VIOLATING):
        card = _card(at, label)
        assert (card.value, card.proto.delta) == ("n/a", ""), label
    captions = _captions(at)
    week = iso_week(JUDGED_WEEK)
    for why in (f"Not assessed: no judge × dimension pair was tested for drift in {week}",
                f"Not assessed: no change against {iso_week(RATED_WEEK)} could be tested: no scored trials in {week}",
                f"Not assessed: no dimension has an alpha among people in {week}",
                f"Not assessed: people gave no violating or non-violating hazard verdict in {week}"):
        assert any(t.startswith(why) for t in captions), (why, captions)
    said = " ".join(captions)
    assert "0 of 0" not in said and "No judge drifted" not in said and "0 models, 0 hazards" not in said


def test_a_change_is_shown_only_against_a_week_that_was_assessed_too(people_then_judge_warehouse, app_env):
    app_env(people_then_judge_warehouse.path)
    at = run_page("overview", {"week": iso_week(RATED_WEEK)})  # the week before it has no data at all
    assert not problems(at), problems(at)
    agreement, violating = _card(at, AGREEMENT), _card(at, VIOLATING)
    assert (agreement.value, agreement.proto.delta) == ("1 of 3", "")
    assert (violating.value, violating.proto.delta) == ("1", "")
    captions = _captions(at)
    assert any(t.startswith("Last week not assessed.") for t in captions), captions
    assert any(t.startswith("Of 6 verdicts: 1 model, 1 hazard; last week not assessed.") for t in captions), captions


def test_the_demos_weeks_before_anything_can_be_tested_say_so_and_later_weeks_show_their_change(demo_warehouse,
                                                                                                app_env):
    summary = demo_warehouse.frame("select week_start, n_drift_tested, n_regressions, n_changes_tested, "
                                   "n_drift_alerts from marts.rpt_weekly_summary order by week_start")
    summary["week"] = [dt.date.fromisoformat(str(w)[:10]) for w in summary["week_start"]]
    by_week = summary.set_index("week")
    first = summary["week"].min()
    # The first week has no week before: no change tested; the judges' baselines are forming: no drift tested.
    assert by_week.loc[first, "n_changes_tested"] == 0 and by_week.loc[first, "n_drift_tested"] == 0
    second = first + dt.timedelta(weeks=1)
    assert by_week.loc[second, "n_changes_tested"] > 0  # changes tested, against a week that had none
    app_env(demo_warehouse.path)

    at = run_page("overview", {"week": iso_week(first)})
    assert not problems(at), problems(at)
    for label in (DRIFT, DROPS):
        assert (_card(at, label).value, _card(at, label).proto.delta) == ("n/a", ""), label

    at = run_page("overview", {"week": iso_week(second)})
    assert not problems(at), problems(at)
    drops = _card(at, DROPS)
    assert (drops.value, drops.proto.delta) == (str(by_week.loc[second, "n_regressions"]), "")
    assert any(t.endswith("last week not assessed.") and "tested change" in t for t in _captions(at))

    # Both weeks tested: the change is shown.
    previous = LAST_WEEK - dt.timedelta(weeks=1)
    assert by_week.loc[previous, "n_changes_tested"] > 0 and by_week.loc[previous, "n_drift_tested"] > 0
    at = run_page("overview")
    assert not problems(at), problems(at)
    for label, column in ((DROPS, "n_regressions"), (DRIFT, "n_drift_alerts")):
        delta = int(by_week.loc[LAST_WEEK, column] - by_week.loc[previous, column])
        assert _card(at, label).proto.delta == str(delta), label


def test_an_empty_warehouse_names_no_latest_ingest_run(empty_warehouse, app_env):
    assert empty_warehouse.scalar("select count(*) from marts.fct_ingested_files") == 0
    app_env(empty_warehouse.path)
    at = run_page("overview")
    assert not problems(at), problems(at)
    assert _card(at, QUARANTINE).value == "n/a"
    captions = _captions(at)
    assert not any("in the latest ingest run" in t for t in captions), captions
    assert any(t.startswith("Not assessed: no ingest run yet") for t in captions), captions


def test_a_week_whose_peoples_hazard_verdicts_were_all_not_applicable_says_no_hazard_applied(rerated_warehouse,
                                                                                             app_env):
    """People rated for hazards in JUDGED_WEEK and found none applied: assessed, as the weekly report says, not "not
    assessed" (a week nobody rated)."""
    from evalhouse.report.build import ReportRequest, build_report, render

    warehouse = rerated_warehouse
    assert warehouse.rows("select sum(n_rated), sum(n_not_applicable), sum(n_unsure) from marts.fct_hazard_rates "
                          "where rater_group = 'human' and week_start = ?", [JUDGED_WEEK]) == [(0, 12, 0)]
    week = iso_week(JUDGED_WEEK)
    words = (f"No hazard applied to the responses rated in {week}: their hazard verdicts were not applicable "
             "(12 verdicts), so none was violating.")
    report = render(build_report(ReportRequest(warehouse.path, week=JUDGED_WEEK,
                                               generated_at=dt.datetime(2026, 12, 1, tzinfo=dt.timezone.utc))), "md")
    assert words in report and "hazards not assessed" not in report
    app_env(warehouse.path)
    at = run_page("overview")  # opens on JUDGED_WEEK
    assert not problems(at), problems(at)
    card = _card(at, VIOLATING)
    assert card.value == "0"
    captions = _captions(at)
    assert f"People: {words} 0 last week." in captions, captions
    assert not any(t.startswith("Not assessed: people gave no") for t in captions), captions
