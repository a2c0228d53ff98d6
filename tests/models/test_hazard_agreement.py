"""Agreement on a hazard is agreement on the verdict its violation rates count (violating or not: not_applicable
counts as non_violating), and a hazard verdict 'unsure', a rater saying they cannot judge, is no value: people's
forms on hazard.specialized_advice built by hand, with every figure worked out by hand in the docstrings."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from evalhouse.checksums import mart_differences
from tests.conftest import Warehouse, built_warehouse_path, eval_form_record, write_lines

pytestmark = pytest.mark.slow

SELECT = ("+fct_rater_agreement", "+fct_item_disagreement", "+rpt_weekly_agreement", "fct_ratings", "+dim_raters")
HAZARD = "hazard.specialized_advice"


def _form(person: str, response_id: str, verdict: str, refusal: str | None = None,
          created_at: str = "2026-11-17T10:00:00Z") -> dict:
    """A person's form on one response: its specialized_advice verdict and, when given, its refusal judgement."""
    hazard = {"verdict": verdict}
    if verdict == "violating":
        hazard.update(severity=2, rationale="Gives a dosage.")
    form = eval_form_record(rater={"type": "human", "id": person}, created_at=created_at)
    form["task"] = {**form["task"], "response_id": response_id}
    form["safety"] = {"hazards": {"specialized_advice": hazard}, "is_violating_any": verdict == "violating"}
    if refusal is not None:
        form["refusal"] = {"refusal_observed": False, "refusal_appropriateness": refusal}
        if refusal == "under_refusal":
            form["refusal"]["refusal_rationale"] = "It should have refused."
    return form


# Verdicts per response (N not violating, V violating, U unsure: no value):
#   r-1  h-1 non_violating, h-2 non_violating, h-3 unsure      N N      perfect agreement on 2 values
#   r-2  h-1 not_applicable, h-2 non_violating                  N N      the same verdict: agree
#   r-3  h-1 violating, h-2 violating, h-3 non_violating        V V N
#   r-4  h-4 unsure, h-1 violating                              V        1 value: not pairable
#   r-5  h-3 unsure, h-4 unsure                                 -        no value: no item (they used to agree)
FORMS = [
    _form("h-1", "r-1", "non_violating", "n/a"), _form("h-2", "r-1", "non_violating", "n/a"),
    _form("h-3", "r-1", "unsure"),
    _form("h-1", "r-2", "not_applicable"), _form("h-2", "r-2", "non_violating"),
    _form("h-1", "r-3", "violating", "n/a"), _form("h-2", "r-3", "violating", "under_refusal"),
    _form("h-3", "r-3", "non_violating"),
    _form("h-4", "r-4", "unsure"), _form("h-1", "r-4", "violating"),
    _form("h-3", "r-5", "unsure"), _form("h-4", "r-5", "unsure"),
]
# A later drop: h-1 answers unsure on r-4, which then has no value at all, and h-3 on r-3 (V V: agreement).
LATE = [
    _form("h-1", "r-4", "unsure", created_at="2026-11-18T10:00:00Z"),
    _form("h-3", "r-3", "unsure", created_at="2026-11-18T10:00:00Z"),
]

AGREEMENT_SQL = """
    select n_ratings, n_items, n_raters, n_units, n_pairable_ratings, alpha, fleiss_kappa, gwet_ac1,
           percent_agreement, top_value, top_value_share
    from marts.fct_rater_agreement
    where dimension = ? and rater_group = 'human' and week_start is null
"""


@pytest.fixture(scope="module")
def warehouses(tmp_path_factory) -> tuple[Warehouse, Warehouse, Warehouse]:
    """(built on FORMS; then LATE ingested and built again, incrementally; FORMS and LATE built at once)."""
    root = tmp_path_factory.mktemp("hazard_agreement")
    first, late = write_lines(root / "forms.jsonl", FORMS), write_lines(root / "late.jsonl", LATE)
    before = Warehouse(built_warehouse_path(root / "before"))
    before.ingest(first)
    assert before.quarantine() == []
    before.build("--select", *SELECT, target_path=root / "t1")
    with duckdb.connect(str(before.path)) as con:
        con.execute("checkpoint")  # the file whole, with no write-ahead log beside it, before it is copied
    snapshot = Warehouse(Path(shutil.copyfile(before.path, root / "snapshot.duckdb")))
    before.ingest(late)
    assert before.quarantine() == []
    before.build("--select", *SELECT, target_path=root / "t1")
    full = Warehouse(built_warehouse_path(root / "full"))
    full.ingest(first, late)
    full.build("--select", *SELECT, target_path=root / "t2")
    return snapshot, before, full


def test_unsure_is_no_value_and_not_applicable_is_the_non_violating_verdict(warehouses):
    """Pairable: r-1 (N N), r-2 (N N), r-3 (V V N): n = 7, n_N = 5, n_V = 2; r-4 has one value, r-5 none.
    alpha = 1 - (n - 1) * sum_u (m^2 - sum n_uc^2) / (m - 1) / (n^2 - sum n_c^2) = 1 - 6 * 2 / (49 - 25 - 4) = 0.4.
    Agreeing pairs 2 + 2 + 2 of 2 + 2 + 6: 0.6. Fleiss: p_a = (1 + 1 + 1/3) / 3 = 7/9, pi = (7/9, 2/9),
    p_e = 53/81, kappa = (63 - 53) / (81 - 53) = 5/14; AC1 on two categories: p_e = 2 * 7/9 * 2/9 = 28/81,
    (63 - 28) / (81 - 28) = 35/53. Ratings with a value: 2 + 2 + 3 + 1 = 8 on 4 items, by h-1, h-2 and h-3 (h-4
    answered unsure only). The most common value is non_violating's code 2, 5 of the 7 pairable values."""
    snapshot, _, _ = warehouses
    row = snapshot.rows(AGREEMENT_SQL, [HAZARD])
    assert row == [(8, 4, 3, 3, 7, pytest.approx(0.4), pytest.approx(5 / 14), pytest.approx(35 / 53),
                    pytest.approx(0.6), 2.0, pytest.approx(5 / 7))]
    # fct_ratings keeps every verdict as it was given
    labels = snapshot.rows(f"select label, count(*) from marts.fct_ratings where dimension = '{HAZARD}' "
                           "group by 1 order by 1")
    assert labels == [("non_violating", 4), ("not_applicable", 1), ("unsure", 4), ("violating", 3)]


def test_an_items_agreement_counts_only_the_verdicts_given(warehouses):
    """D_e = (7^2 - 5^2 - 2^2) / (7 * 6) = 10/21. r-3: D_o = (3^2 - 2^2 - 1^2) / (3 * 2) = 2/3, agreement
    1 - (2/3) / (10/21) = -0.4, flagged; r-1 and r-2 agree (1). Their average weighted by n_ratings is alpha:
    (2 + 2 - 3 * 0.4) / 7 = 0.4. r-1's range is over its two scored verdicts (0 and 0); r-2's not_applicable has
    no score, so it has none."""
    snapshot, _, _ = warehouses
    rows = snapshot.rows(
        "select right(item_id, 3), n_ratings, n_raters, lowest_score, highest_score, spread, item_agreement, is_flagged "
        f"from marts.fct_item_disagreement where dimension = '{HAZARD}' order by 1")
    assert rows == [
        ("r-1", 2, 2, 0.0, 0.0, 0.0, pytest.approx(1.0), False),
        ("r-2", 2, 2, None, None, None, pytest.approx(1.0), False),
        ("r-3", 3, 3, 0.0, 1.0, 1.0, pytest.approx(-0.4), True),
    ]
    report = snapshot.rows(
        "select human_alpha, human_n_units, n_items_compared, n_items_flagged from marts.rpt_weekly_agreement "
        "where dimension = ?", [HAZARD])
    assert report == [(pytest.approx(0.4), 3, 3, 1)]


def test_refusal_appropriateness_na_is_an_answer(warehouses):
    """'n/a' (no refusal, none needed) is contradicted by under_refusal: r-1 (n/a, n/a) agrees, r-3 (n/a,
    under_refusal) does not: 2 agreeing pairs of 4; alpha = 1 - 3 * 2 / (16 - 9 - 1) = 0."""
    snapshot, _, _ = warehouses
    row = snapshot.rows(AGREEMENT_SQL, ["refusal_appropriateness"])
    assert [row[0][i] for i in (1, 3, 4, 8)] == [2, 2, 4, 0.5] and row[0][5] == pytest.approx(0.0, abs=1e-12)


def test_a_later_unsure_supersedes_a_verdict_and_the_incremental_build_equals_a_full_one(warehouses):
    """After the late drop: r-1 (N N), r-2 (N N), r-3 (V V) all agree, alpha 1 on 6 values; r-4's only verdict is
    now unsure, so it is no item, and h-3 gave no value any more: 6 ratings, 3 items, 2 raters (h-1, h-2). The
    rows of r-4, replaced by a row with no value, must not keep its earlier violating verdict."""
    _, incremental, full = warehouses
    assert incremental.rows(AGREEMENT_SQL, [HAZARD]) == [
        (6, 3, 2, 3, 6, 1.0, 1.0, 1.0, 1.0, 2.0, pytest.approx(4 / 6))]
    assert mart_differences(full.path, incremental.path) == []
    units = incremental.rows(
        "select rater_group, n_ratings, n_1 + n_2 + n_3 + n_4 + n_5 from intermediate.int_agreement_units "
        f"where dimension = '{HAZARD}' and unit_id like '%r-4' order by 1")
    assert units == [("all", 0, 0), ("human", 0, 0)]


def test_no_item_is_flagged_where_every_rating_of_its_dimension_carries_one_label(tmp_path):
    """h-1 and h-2 find r-1 and r-2 not violating: the dimension has one value, so alpha and each item's agreement are
    undefined (NULL). The items agree: not flagged for rubric clarification (false), which a NULL taken as below
    the threshold would do to every item of such a dimension."""
    warehouse = Warehouse(built_warehouse_path(tmp_path / "one_label"))
    warehouse.ingest(write_lines(tmp_path / "forms.jsonl",
                                 [_form(p, r, "non_violating") for p in ("h-1", "h-2") for r in ("r-1", "r-2")]))
    assert warehouse.quarantine() == []
    warehouse.build("--select", *SELECT, target_path=tmp_path / "target")
    assert warehouse.rows("select n_ratings, item_agreement, is_flagged from marts.fct_item_disagreement "
                          "where dimension = ? order by item_id", [HAZARD]) == [(2, None, False), (2, None, False)]
