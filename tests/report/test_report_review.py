"""The weekly report after the Monday sender's review: flags rest on enough changed samples, missing data is never
good news, safety counts responses per rater group, the ingest after the week is reported, z has two decimals,
decisions exclude specs without a threshold, and the changes table says what it compares."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager
from html import escape

import duckdb
import pytest

from evalhouse.report import fmt
from evalhouse.report.render_markdown import md_text
from evalhouse.report.sections import Context, judge_drift, model_scores, operations, promotions, safety
from evalhouse.report.warehouse import Reader
from tests.report.conftest import GENERATED_AT, LAST_WEEK, report_text, section_html

pytestmark = pytest.mark.slow

_RATER_GROUPS = {"human": "people", "llm_judge": "LLM judges", "hybrid": "people confirming a judge"}


@contextmanager
def copied_marts(source, tables: dict[str, str]) -> Iterator[Reader]:
    """An in-memory warehouse holding `tables` (name -> a where clause over the demo's rows of marts.<name>): the
    demo with some data taken away, read by the sections as the real one is."""
    con = duckdb.connect()
    try:
        con.execute(f"attach '{source}' as demo (read_only)")
        con.execute("create schema marts")
        for name, where in tables.items():
            con.execute(f"create table marts.{name} as select * from demo.marts.{name} where {where}")
        con.execute("detach demo")
        yield Reader(con)
    finally:
        con.close()


def _markdown_rows(md: str, heading: str) -> list[list[str]]:
    """The body rows of the first table after `heading`, as lists of cell texts."""
    lines = md[md.index(heading):].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("|")), len(lines))
    return [[cell.strip() for cell in line.strip("|").split(" | ")] for line in lines[start + 2:end]]


# ------------------------------------------------------------------------------------ model changes (1, 5, 8, 9)


def test_z_has_two_decimals_so_1_955_and_1_964_read_apart():
    assert fmt.z_score(1.9549) == "+1.95" and fmt.z_score(-1.964) == "-1.96"


def test_each_paired_row_shows_its_changed_samples_and_the_paired_difference(demo_warehouse):
    md = report_text(demo_warehouse.path, LAST_WEEK, "md")
    rows = {(r[0], r[1]): r for r in _markdown_rows(md, "## Did any model get worse this week?")}
    header = [h.strip() for h in md[md.index("| Model | Eval |"):].splitlines()[0].strip("|").split(" | ")]
    assert "Pass rate 2026-W47 \\[95% CI\\]" in header and not any(h.startswith("Accuracy") for h in header)
    # The verdict beside the model and eval it is about: last, it was off-screen in an 1100-pixel window.
    assert header[:3] == ["Model", "Eval", "Verdict"]
    with duckdb.connect(str(demo_warehouse.path), read_only=True) as con:
        facts = [r for r in Reader(con).rows(model_scores.CHANGES_SQL, [LAST_WEEK]) if r["comparison"] == "paired"]
    differing = 0
    for fact in facts:
        cells = rows[(md_text(fact["model_id"]), md_text(fact["eval_label"]))]
        assert cells[header.index("Changed samples")] == f"{fact['n_improved']} better, {fact['n_worsened']} worse"
        change = fmt.signed(fact["paired_mean_difference"])
        if fact["n_shared_samples"] < max(fact["n_samples"], fact["previous_n_samples"]):
            # the pass rates beside it moved by another amount: said, so the change does not seem to contradict them
            change += f" (means {fmt.signed(fact['accuracy_change'])})"
        assert cells[header.index("Change")] == md_text(change)
        differing += fmt.signed(fact["paired_mean_difference"]) != fmt.signed(fact["accuracy_change"])
        if fact["n_shared_samples"] < 3:
            assert cells[header.index("r")] == fmt.MISSING  # two points always correlate +-1
    assert differing >= 1  # the review's gpt-4.1-mini cognibench row: +0.11 between the means, 0.00 paired


def test_each_rows_pass_at_k_has_the_marts_interval(demo_warehouse):
    """pass@k with its 95% interval, as rpt_weekly_model_changes carries it (Wilson's on the effective number of
    tasks), as the pass rate beside it has its own: a bare pass@k of 1.00 read as certain on a dozen tasks."""
    md = report_text(demo_warehouse.path, LAST_WEEK, "md")
    rows = {(r[0], r[1]): r for r in _markdown_rows(md, "## Did any model get worse this week?")}
    header = [h.strip() for h in md[md.index("| Model | Eval |"):].splitlines()[0].strip("|").split(" | ")]
    column = header.index("pass@k \\[95% CI\\]")
    with duckdb.connect(str(demo_warehouse.path), read_only=True) as con:
        facts = Reader(con).rows(model_scores.CHANGES_SQL, [LAST_WEEK])
    shown = 0
    for fact in facts:
        cell = rows[(md_text(fact["model_id"]), md_text(fact["eval_label"]))][column]
        if fact["pass_k"] is None:
            assert cell == fmt.MISSING
            continue
        interval = fmt.interval(fact["pass_at_k_ci_low"], fact["pass_at_k_ci_high"])
        assert interval and cell == md_text(f"{fmt.num(fact['pass_at_k'])} (k = {fact['pass_k']}) {interval}")
        shown += 1
    assert shown >= 3


def test_the_three_change_groundedness_row_is_too_few_changed_samples_not_a_regression(demo_warehouse):
    md = report_text(demo_warehouse.path, LAST_WEEK, "md")
    row = next(r for r in _markdown_rows(md, "## Did any model get worse this week?")
               if r[0] == "meta-llama/Llama-3.1-8B-Instruct" and r[1] == "acme\\_groundedness\\_suite/groundedness")
    assert "0 better, 3 worse" in row and "(p = 0.25)" in row  # in brackets: not tested
    assert row[2] == "too few changed samples to test (3 changed)"  # the verdict, third
    glance = md[md.index("## This week at a glance"):md.index("## Did any model")]
    regressions = glance.split("\n- ")[1].split("Look at")[0]  # its untested drops are named apart, after
    assert "groundedness" not in regressions  # the regression headline names gsm8k alone
    assert "1 better, 17 worse" in glance


def test_a_pair_compared_last_week_without_a_result_this_week_is_listed(demo_warehouse):
    dropped = "evaluation_name like 'cognibench/%'"
    with copied_marts(demo_warehouse.path, {
            "rpt_weekly_model_changes": f"not (week_start = '{LAST_WEEK}' and {dropped})"}) as reader:
        part = model_scores.build(Context(reader, LAST_WEEK))
    expected = demo_warehouse.rows(
        f"select model_id from marts.rpt_weekly_model_changes where week_start = ? and {dropped} order by 1",
        [LAST_WEEK - dt.timedelta(days=7)])
    assert len(expected) == 4
    assert part.headline.tone == "warn" or part.headline.tone == "bad"
    assert "Not compared: 4 model and eval scores from 2026-W46 have no result in 2026-W47" in part.headline.text
    missing = [b for b in part.section.blocks if getattr(b, "tone", None) == "warn" and "no result in" in b.text]
    assert missing and all(f"{model} on cognibench" in missing[0].text for (model,) in expected)


# ----------------------------------------------------------------------------------- missing data is not good news


def test_a_week_without_ratings_says_hazards_and_drift_were_not_assessed(demo_warehouse):
    unrated = f"week_start <> '{LAST_WEEK}'"
    with copied_marts(demo_warehouse.path, {
            "rpt_weekly_hazard_violations": unrated, "fct_hazard_rates": unrated,
            "rpt_weekly_refusal_changes": unrated, "rpt_weekly_drift_alerts": unrated,
            "fct_judge_drift": unrated}) as reader:
        context = Context(reader, LAST_WEEK)
        safety_part = safety.build(context)
        drift_part = judge_drift.build(context)
    assert "not assessed: no ratings this week" in safety_part.headline.text
    assert safety_part.headline.tone == "warn" and "no hazard violations" not in safety_part.headline.text
    hazards = safety_part.section.subsections[0].blocks[0]
    assert hazards.text.startswith("Not assessed") and hazards.tone == "warn"
    assert drift_part.headline.text.startswith("Judge drift not assessed in 2026-W47: no ratings this week")
    assert drift_part.headline.tone == "warn"


# ------------------------------------------------------------------------------------------------------ safety (3)


def test_safety_headline_counts_violating_responses_per_rater_group(demo_warehouse, last_week_html):
    glance = section_html(last_week_html, "at-a-glance")
    line = next(item for item in glance.split("<li") if "Safety:" in item)
    assert "verdict" not in line
    rows = demo_warehouse.rows(
        "select model_id, hazard, rater_group, n_items_violating, n_items, n_violating "
        "from marts.rpt_weekly_hazard_violations where week_start = ?", [LAST_WEEK])
    assert rows and any(n_violating > n_items_violating for *_, n_items_violating, _, n_violating in rows)
    for model, hazard, group, n_items_violating, n_items, _ in rows:
        assert f"{escape(model)} on {hazard}" in line
        assert f"{n_items_violating} of {n_items} rated responses violating ({_RATER_GROUPS[group]})" in line
    people = [r for r in rows if r[2] == "human"]
    responses = demo_warehouse.scalar(
        "select count(distinct item_id) from marts.fct_ratings where scale = 'hazard_verdict' "
        "and label = 'violating' and rater_group = 'human' and week_start = ? and model_id = ?",
        [LAST_WEEK, people[0][0]])
    assert people[0][3] == responses


# --------------------------------------------------------------------------------------------------- quarantine (4)


def test_lines_refused_after_the_week_ended_are_reported_in_a_warning(demo_warehouse, last_week_html):
    end = dt.datetime.combine(LAST_WEEK + dt.timedelta(days=7), dt.time())
    later = demo_warehouse.scalar("select count(*) from marts.fct_quarantined_lines where quarantined_at >= ?",
                                  [end])
    assert later, "the demo is ingested after its last week ended (its end date is fixed in the past)"
    section = section_html(last_week_html, operations.ANCHOR)
    assert operations.LATER_TITLE in section
    assert f"refused {later:,} lines" in section
    glance = section_html(last_week_html, "at-a-glance")
    line = next(item for item in glance.split("<li") if "Review backlog" in item)
    assert f"{later:,} lines refused" in line and 'class="tone-warn"' in line


# ---------------------------------------------------------------------------------------------------- promotions (6)


def test_specs_without_a_threshold_are_not_counted_as_decisions(demo_warehouse, last_week_html):
    with_threshold, without = demo_warehouse.rows(
        "select n_decided, n_no_threshold from marts.rpt_weekly_promotions where week_start = ?", [LAST_WEEK])[0]
    assert without > 0
    glance = section_html(last_week_html, "at-a-glance")
    line = next(item for item in glance.split("<li") if "Promotions:" in item)
    assert f"Promotions: {with_threshold} decisions" in line
    assert "without a promotion threshold, never decidable" in line


def test_decisions_within_noise_of_their_threshold_are_marked_with_the_composites_interval(demo_warehouse,
                                                                                           last_week_html):
    rows = demo_warehouse.rows(
        "select spec_id, model_id, composite_score, composite_ci_low, composite_ci_high, "
        "is_within_noise and n_failing_components = 0 "
        "from marts.fct_promotion_decisions where week_start = ? and is_promoted is not null", [LAST_WEEK])
    within = [r for r in rows if r[5]]
    assert len(within) == demo_warehouse.scalar(
        "select n_decided_within_noise from marts.rpt_weekly_promotions where week_start = ?", [LAST_WEEK])
    assert within, "the demo's meta-llama on support_triage_v1 sits at its threshold"
    section = section_html(last_week_html, promotions.ANCHOR)
    for spec, model, score, low, high, noisy in rows:
        row = next(tr for tr in section.split("<tr")[1:] if f">{escape(spec)}<" in tr and f">{escape(model)}<" in tr)
        assert fmt.with_interval(score, low, high) in row
        assert ("(within noise)" in row) == bool(noisy)
    glance = section_html(last_week_html, "at-a-glance")
    line = next(item for item in glance.split("<li") if "Promotions:" in item)
    assert f"{len(within)} within noise of the threshold" in line


def test_a_composite_weighing_a_latency_percentile_says_it_has_no_interval(demo_warehouse, last_week_html):
    """The ADP acme suite weighs its p95 latency, which has no per-sample value: composite_se, the interval and
    is_within_noise are NULL in every week's row. A bare 0.87 against 0.85 read as certain; the report says why."""
    rows = demo_warehouse.rows(
        "select spec_id, model_id, composite_score, no_interval_reason, composite_ci_low from "
        "marts.fct_promotion_decisions where week_start = ? and composite_score is not null", [LAST_WEEK])
    latency = [r for r in rows if r[0] == "acme_groundedness_suite"]
    assert latency and all(r[3] == "latency percentile" and r[4] is None for r in latency)
    assert all(r[3] is None for r in rows if r[0] != "acme_groundedness_suite")
    section = section_html(last_week_html, promotions.ANCHOR)
    for spec, model, score, reason, _ in rows:
        row = next(tr for tr in section.split("<tr")[1:] if f">{escape(spec)}<" in tr and f">{escape(model)}<" in tr)
        assert ("(no interval: latency percentile)" in row) == (reason is not None)
    assert "No interval: latency percentile: a weighted latency percentile" in section


# --------------------------------------------------------------------------------------------------------- weeks (7)


def test_a_week_not_begun_says_so(demo_warehouse):
    html = report_text(demo_warehouse.path, dt.date.fromisocalendar(2026, 53, 1), generated_at=GENERATED_AT)
    assert "2026-W53 has not begun: it starts on Monday 28 December 2026" in html


def _refusal_row(model: str, n_items: int, previous_n_items: int, refusal: float, previous: float,
                 z: float | None, significant: bool | None) -> dict:
    row = {"model_id": model, "rater_group": "human", "week_start": LAST_WEEK, "n_rated": n_items,
           "n_items": n_items, "previous_n_items": previous_n_items, "has_significant_change": significant}
    for rate in ("refusal_rate", "over_refusal_rate", "under_refusal_rate"):
        # Only the refusal rate moved; the other two are 0 both weeks (SE 0: tested, no change) when tested at all.
        now, before, rate_z = (refusal, previous, z) if rate == "refusal_rate" else (0.0, 0.0, None)
        tested = significant if rate == "refusal_rate" or significant is None else False
        row |= {rate: now, f"{rate}_ci_low": 0.0, f"{rate}_ci_high": 1.0, f"previous_{rate}": before,
                f"{rate}_change": now - before, f"{rate}_change_z": rate_z, f"{rate}_change_is_significant": tested}
    return row


def test_a_refusal_change_on_too_few_responses_reads_not_tested_and_significance_comes_from_the_mart():
    """rpt_weekly_refusal_changes' verdicts (its unit test computes them): m1 3 of 10 against 0 of 10, pooled z 1.88,
    not significant; m2 8 of 20 against 1 of 20, z 2.65, significant; m3 5 of 6 against 0 of 6, not tested."""
    rows = [_refusal_row("m1", 10, 10, 0.3, 0.0, 1.8787, False), _refusal_row("m2", 20, 20, 0.4, 0.05, 2.6505, True),
            _refusal_row("m3", 6, 6, 5 / 6, 0.0, 3.1623, None)]
    con = duckdb.connect()
    try:
        con.execute("create schema marts")
        columns = list(rows[0])
        con.execute(f"create table marts.rpt_weekly_refusal_changes as select * from (values "
                    + ", ".join("(" + ", ".join("?" for _ in columns) + ")" for _ in rows)
                    + f") as t ({', '.join(columns)})", [row[c] for row in rows for c in columns])
        subsection, (line, tone) = safety._refusals(Context(Reader(con), LAST_WEEK))
    finally:
        con.close()
    texts = [block.text for block in subsection.blocks if hasattr(block, "text")]
    assert texts[0].startswith("m2, rated by people (n = 20 responses") and "rose from 0.05 to 0.40" in texts[0]
    assert not any(text.startswith("m1") or text.startswith("m3,") for text in texts)
    assert texts[1] == ("Not tested, too few responses (fewer than 10 in a week): m3 rated by people (6 responses this "
                        "week, 6 in 2026-W46).")
    assert (line, tone) == ("1 significant refusal change among 2 tested; 1 of 3 compared could not be tested (too "
                            "few responses). Look at 1 untested refusal move of 0.15 or more: m3 rated by people, "
                            "refusal rate 0.00 to 0.83 (n = 6 responses, 6 the week before).", "warn")
    table = subsection.blocks[-1]
    cells = {row[0].text: row[4] for row in table.rows}
    assert cells["m1"].tone is None and "z = +1.88" in cells["m1"].text
    assert cells["m2"].tone == "warn" and "z = +2.65" in cells["m2"].text
    assert cells["m3"].tone is None and "not tested: too few responses" in cells["m3"].text


def _one_row_marts(table: str, row: dict) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("create schema marts")
    columns = list(row)
    con.execute(f"create table marts.{table} as select * from (values ({', '.join('?' for _ in columns)})) "
                f"as t ({', '.join(columns)})", [row[c] for c in columns])
    return con


def test_safety_tables_say_what_they_count_in_words_a_reader_outside_the_team_reads_right():
    """The refusal table's "Forms" (our name for a rating record) read as nothing to a reader outside the team, and
    its over- and under-refusal columns held intervals their headers did not promise. The hazard table's last column,
    "Violating 2026-W46", held the week before's verdicts ("8 of 10") beside this week's responses ("3"): a fall
    from 8 to 3 that never happened."""
    con = _one_row_marts("rpt_weekly_refusal_changes", _refusal_row("m1", 10, 12, 0.3, 0.0, 1.8787, False))
    try:
        refusals, _ = safety._refusals(Context(Reader(con), LAST_WEEK))
    finally:
        con.close()
    table = refusals.blocks[-1]
    assert table.columns[3] == "Ratings" and "Forms" not in table.columns
    assert "share of its ratings" in table.caption and "forms" not in table.caption
    assert table.columns[5:7] == ("Over-refusal [95% CI] (change, z)", "Under-refusal [95% CI] (change, z)")
    # The changes are against the week before: its n is beside them, as the hazard table gives its verdicts.
    assert table.columns[-1] == "Responses, 2026-W46" and table.rows[0][-1].text == "12"

    hazard = dict(model_id="m1", hazard="specialized_advice", hazard_label="Specialized advice", rater_group="human",
                  week_start=LAST_WEEK, n_rated=11, n_items=4, n_items_violating=3, n_violating=9, n_unsure=0,
                  violation_rate=0.75, ci_low=0.30, ci_high=0.95, mean_severity=2.1, max_severity=3,
                  previous_n_rated=10, previous_n_items=4, previous_n_violating=8, previous_violation_rate=0.75)
    con = _one_row_marts("rpt_weekly_hazard_violations", hazard)
    try:
        hazards, _ = safety._hazards(Context(Reader(con), LAST_WEEK))
    finally:
        con.close()
    table = hazards.blocks[-1]
    assert table.columns[-1] == "Violating verdicts, 2026-W46" and table.rows[0][-1].text == "8 of 10"
    assert "Violating verdicts, 2026-W46: the verdicts of the week before, not its responses" in table.caption
