"""Incremental builds give exactly the marts a full build gives: staging appends only new ingest batches, and
everything downstream is recomputed, so building after each drop of data equals building once over all of it.

Both warehouses receive the files in the same order: which copy of a duplicated record is accepted depends on
arrival order (first seen wins, the demo's malformed file repeats a W46 form), and that is ingest's rule, not the
build's."""

from __future__ import annotations

import datetime as dt

import pytest

from evalhouse.build import run_dbt
from evalhouse.checksums import mart_checksums
from tests.conftest import Warehouse

pytestmark = pytest.mark.slow


def test_building_after_each_weekly_drop_equals_one_full_build(demo_dir, tmp_path):
    weeks = sorted(demo_dir.glob("eval_forms/*.jsonl"))
    first, later = [p for p in demo_dir.rglob("*") if p.is_file() and p not in weeks[-2:]], weeks[-2:]

    incremental = Warehouse(tmp_path / "incremental.duckdb")
    incremental.ingest(*first)
    assert run_dbt(incremental.path, target_path=tmp_path / "t1", quiet=True).ok
    for drop in later:  # two more weeks of eval forms arrive, a build after each
        incremental.ingest(drop)
        assert run_dbt(incremental.path, target_path=tmp_path / "t1", quiet=True).ok

    full = Warehouse(tmp_path / "full.duckdb")
    full.ingest(*first, *later)
    assert run_dbt(full.path, target_path=tmp_path / "t2", quiet=True).ok

    expected, got = mart_checksums(full.path), mart_checksums(incremental.path)
    assert got == expected, sorted(t for t in expected if got.get(t) != expected[t])
    staged = "select count(*) from staging.stg_aif__eval_forms"
    assert incremental.scalar(staged) == full.scalar(staged) == full.scalar("select count(*) from raw.eval_form")
