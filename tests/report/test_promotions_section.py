"""The report's promotions section reads the marts' decisions and counts: a decision a failing component made is
not "within noise", an unmeasured threshold leaves the row undecided and is said so, results outside their scale
decide nothing, component gates within noise of their threshold are listed, and the headline's counts are
rpt_weekly_promotions' own (the report once counted 3 within noise in 2026-W43 where the mart and the app said 2,
and "10 decisions (... 1 undecided)" where the mart said 9 decided).

The marts here are written by hand, in memory: six rows of one week, the counts worked out below."""

from __future__ import annotations

import datetime as dt

import duckdb
import pytest

from evalhouse.report import fmt
from evalhouse.report.document import Table
from evalhouse.report.sections import Context, promotions
from evalhouse.report.warehouse import Reader

WEEK = dt.date(2026, 10, 19)
_COLUMNS = ("spec_id", "model_id", "composite_score", "composite_ci_low", "composite_ci_high", "promotion_threshold",
            "is_within_noise", "no_interval_reason", "is_promoted", "decision_status", "failing_components",
            "n_failing_components", "unmeasured_thresholds", "missing_components", "n_composite_samples",
            "out_of_scale_components", "gates_within_noise")
# gpt-mini: promoted, clear. llama: promoted, the threshold inside its interval: within noise. chat-7b: the
# threshold is inside its interval too, but label_accuracy misses its own threshold, so noise cannot flip the
# composite's half; label_accuracy's own threshold lies inside its interval: a gate within noise.
# m1: composite 1.0 above 0.5, safety's threshold never measured: undecided. math: no threshold at all.
# m2: a judge's results above its 1-5 scale make a composite of 1.125 that reached 0.8: out of scale, no decision.
_ROWS = [
    ("triage", "openai/gpt-mini", 0.9, 0.85, 0.95, 0.8, False, None, True, "promoted", "", 0, "", "", 12, "", ""),
    ("triage", "meta/llama", 0.82, 0.7, 0.9, 0.8, True, None, True, "promoted", "", 0, "", "", 12, "", ""),
    ("triage", "acme/chat-7b", 0.78, 0.65, 0.88, 0.8, True, None, False, "not promoted", "label_accuracy", 1, "", "",
     12, "", "label_accuracy"),
    ("gate", "rv/m1", 1.0, 0.72, 1.0, 0.5, False, None, None, "threshold not measured", "", 0, "safety", "safety",
     10, "", ""),
    ("math", "acme/chat-7b", 0.5, 0.3, 0.7, None, None, None, None, "no threshold", "", 0, "", "", 10, "", ""),
    ("scale", "rv/m2", 1.125, None, None, 0.8, None, "composite outside its scale", None, "out of scale", "", 0, "",
     "", 10, "judge", ""),
]
# What rpt_weekly_promotions holds for these rows: 3 decided (2 promoted, 1 not), 1 within noise (llama only),
# 1 with a gate within noise (chat-7b), 1 undecided out of scale, 1 for an unmeasured threshold, 1 row without a
# threshold.
_SUMMARY = (WEEK, 6, 3, 2, 1, 1, 1, 1, 1, 0, 1, 4, 1)
_SUMMARY_COLUMNS = ("week_start", "n_rows", "n_decided", "n_promoted", "n_not_promoted", "n_decided_within_noise",
                    "n_decided_with_gates_within_noise", "n_threshold_not_measured", "n_out_of_scale",
                    "n_no_composite", "n_no_threshold", "n_specs", "n_specs_without_threshold")


@pytest.fixture
def part():
    con = duckdb.connect()
    try:
        con.execute("create schema marts")
        con.execute("create table marts.fct_promotion_decisions (week_start date, spec_id varchar, model_id varchar, "
                    "composite_score double, composite_ci_low double, composite_ci_high double, "
                    "promotion_threshold double, is_within_noise boolean, no_interval_reason varchar, "
                    "is_promoted boolean, decision_status varchar, failing_components varchar, "
                    "n_failing_components bigint, unmeasured_thresholds varchar, missing_components varchar, "
                    "n_composite_samples bigint, out_of_scale_components varchar, gates_within_noise varchar)")
        con.executemany(f"insert into marts.fct_promotion_decisions (week_start, {', '.join(_COLUMNS)}) "
                        f"values (?, {', '.join('?' for _ in _COLUMNS)})", [(WEEK, *row) for row in _ROWS])
        con.execute("create table marts.rpt_weekly_promotions (week_start date, "
                    + ", ".join(f"{c} bigint" for c in _SUMMARY_COLUMNS[1:]) + ")")
        con.execute(f"insert into marts.rpt_weekly_promotions values ({', '.join('?' for _ in _SUMMARY)})",
                    list(_SUMMARY))
        yield promotions.build(Context(Reader(con), WEEK))
    finally:
        con.close()


def _decisions(part, column: str = "Decision") -> dict[tuple[str, str], str]:
    table = next(b for b in part.section.blocks if isinstance(b, Table))
    spec, model, decision = (table.columns.index(c) for c in ("Spec", "Model", column))
    return {(row[spec].text, row[model].text): row[decision].text for row in table.rows}


def test_a_decision_a_failing_component_made_is_not_within_noise(part):
    decisions = _decisions(part)
    assert decisions[("triage", "acme/chat-7b")] == "not promoted"
    assert decisions[("triage", "meta/llama")] == "promoted (within noise)"
    assert decisions[("triage", "openai/gpt-mini")] == "promoted"


def test_an_unmeasured_threshold_leaves_the_row_undecided_and_names_it(part):
    assert _decisions(part)[("gate", "rv/m1")] == "undecided: threshold not measured (safety)"


def test_the_headline_counts_are_the_marts(part):
    headline = part.headline.text
    assert headline.startswith(
        "Promotions: 3 decisions (2 promoted, 1 not promoted, 1 within noise of the threshold, 1 with a component "
        "gate within noise of its threshold); undecided: 1 (results outside their scale), 1 (a component's "
        "threshold not measured); not promoted: acme/chat-7b; ")
    assert "1 spec without a promotion threshold, never decidable (math: 1 model)" in headline


def test_results_outside_their_scale_decide_nothing_and_are_named(part):
    assert _decisions(part)[("scale", "rv/m2")] == "undecided: out of scale (judge)"
    texts = [b.text for b in part.section.blocks if not isinstance(b, Table)]
    assert any(t.startswith("rv/m2 under scale: no decision, judge has results outside its declared scale")
               for t in texts)
    assert part.headline.tone == "bad"


def test_component_gates_within_noise_of_their_threshold_are_listed(part):
    gates = _decisions(part, "Gates within noise of their threshold")
    assert gates[("triage", "acme/chat-7b")] == "label_accuracy"
    assert gates[("triage", "meta/llama")] == fmt.MISSING
    table = next(b for b in part.section.blocks if isinstance(b, Table))
    assert "A component gate within noise of its threshold" in table.caption


def test_n_is_the_samples_the_composite_is_over_and_the_caption_says_so(part):
    """The column was "n results": result records (12 samples x 3 metrics read 36), which a reader took for the n
    of the composite's interval. It is the composite's samples, and the caption defines it."""
    assert _decisions(part, "n samples") == {
        ("triage", "openai/gpt-mini"): "12", ("triage", "meta/llama"): "12", ("triage", "acme/chat-7b"): "12",
        ("gate", "rv/m1"): "10", ("math", "acme/chat-7b"): "10", ("scale", "rv/m2"): "10"}
    table = next(b for b in part.section.blocks if isinstance(b, Table))
    assert "n samples: the samples the composite and its interval are over." in table.caption
