"""Incremental builds give the marts a full build gives: `evalhouse build` runs only the models downstream of the
sources that received rows, staging, the ratings and the rating facts append only new ingest batches, the
agreement ratings recompute the items a batch touched, and the rest of what is run is recomputed, so building
after each drop of data equals building once over all of it, row by row (floats to 1e-9: rows written in another
order sum in another order).

Both warehouses receive the files in the same order: which copy of a duplicated record is accepted depends on
arrival order (first seen wins, the demo's malformed file repeats a W46 form), and that is ingest's rule, not the
build's."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from evalhouse.build import AS_OF_BUILD, build_in_process, plan_build, project_fingerprint, run_dbt
from evalhouse.checksums import mart_differences
from tests.conftest import Warehouse

pytestmark = pytest.mark.slow


def _rerated(week_file: Path, out: Path) -> Path:
    """A late drop that touches items of an old week: 40 of its forms rated again in W47, half by the same rater
    with other scores (the new rating supersedes theirs), half by a rater new to the item (the item gains a rater)."""
    records = [json.loads(line) for line in week_file.read_text().splitlines()[:40]]
    for i, record in enumerate(records):
        record["eval_id"] = str(uuid.uuid5(uuid.NAMESPACE_URL, f"rerated/{record['eval_id']}"))
        record["created_at"] = "2026-11-18T10:00:00Z"
        for dimension in record["universal"].values():
            if isinstance(dimension, dict) and dimension.get("score") is not None:
                dimension["score"] = 6 - dimension["score"]
                dimension["rationale"] = "A second look."  # the form asks for one at 3 or lower
        if i % 2:
            record["rater"]["id"] = f"{record['rater']['id']}-second-look"
    out.write_text("".join(json.dumps(r) + "\n" for r in records))
    return out


def test_building_after_each_drop_equals_one_full_build(demo_dir, tmp_path):
    weeks = sorted(demo_dir.glob("eval_forms/*.jsonl"))
    late = _rerated(weeks[1], tmp_path / "eval_forms_rerated.jsonl")
    later = [*weeks[-2:], late]
    first = [p for p in demo_dir.rglob("*") if p.is_file() and p not in later]

    incremental = Warehouse(tmp_path / "incremental.duckdb")
    incremental.ingest(*first)
    assert build_in_process(incremental.path, target_path=tmp_path / "t1", quiet=True).ok
    for drop in later:  # two more weeks of eval forms arrive, then the late re-ratings, a build after each ...
        incremental.ingest(drop)
        assert build_in_process(incremental.path, target_path=tmp_path / "t1", quiet=True).ok
    # ... each building only what depends on the eval forms and the ingest's own tables; then nothing new at all
    assert plan_build(incremental.path, project_fingerprint()).select == (AS_OF_BUILD,)
    assert build_in_process(incremental.path, target_path=tmp_path / "t1", quiet=True).ok

    full = Warehouse(tmp_path / "full.duckdb")
    full.ingest(*first, *later)
    assert run_dbt(full.path, target_path=tmp_path / "t2", quiet=True).ok

    assert mart_differences(full.path, incremental.path) == []
    staged = "select count(*) from staging.stg_aif__eval_forms"
    assert incremental.scalar(staged) == full.scalar(staged) == full.scalar("select count(*) from raw.eval_form")
    rerated = "select count(*) from marts.fct_ratings where source_path like '%rerated%'"
    assert incremental.scalar(rerated) == full.scalar(rerated) > 200  # the late drop was loaded and counted
    # an old item now holds its re-rating, not the rating it superseded
    superseded = """
        select count(*) from intermediate.int_agreement_ratings as a
        inner join marts.fct_ratings as r on a.unit_id = r.item_id and a.dimension = r.dimension
            and a.rater_id = r.rater_id
        where r.source_path like '%rerated%' and a.value = r.value and a.item_week < date '2026-11-16'
    """
    assert incremental.scalar(superseded) == full.scalar(superseded) > 100
