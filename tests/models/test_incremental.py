"""Incremental builds give the marts a full build gives: `evalhouse build` runs only the models downstream of the
sources that received rows, staging, the ratings and the rating facts append only new ingest batches, the
agreement ratings recompute the items a batch touched, the trials add to or renumber only the (eval, model,
sample) groups that new records reach, and the rest of what is run is recomputed, so building after each drop of
data equals building once over all of it, row by row (floats to 1e-9: rows written in another order sum in
another order).

Both warehouses receive the files in the same order: which copy of a duplicated record is accepted depends on
arrival order (first seen wins, the demo's malformed file repeats a W46 form), and that is ingest's rule, not the
build's."""

from __future__ import annotations

import hashlib
import json
import uuid
from pathlib import Path

import pytest

from evalhouse.build import AS_OF_BUILD, build_in_process, plan_build, project_fingerprint
from evalhouse.checksums import mart_differences
from tests.conftest import Warehouse, built_warehouse_path

pytestmark = pytest.mark.slow


def _rerated(week_file: Path, out: Path) -> Path:
    """A late drop that touches items of an old week: 40 of its forms rated again in W47, half by the same rater
    with other scores and every hazard verdict 'unsure' (the new rating supersedes theirs, a verdict by no value), half
    by a rater new to the item (the item gains a rater)."""
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
        elif record.get("safety", {}).get("hazards"):
            record["safety"] = {"hazards": {key: {"verdict": "unsure"} for key in record["safety"]["hazards"]},
                                "is_violating_any": False}
    out.write_text("".join(json.dumps(r) + "\n" for r in records))
    return out


def _runs(demo_dir: Path) -> dict[str, list[tuple[Path, Path]]]:
    """{eval and model: [(instance file, its aggregate file), ...] oldest first} of the demo's Every Eval Ever runs.
    An aggregate names its run by evaluation_id or, where the demo makes the ids disagree, by the file's checksum."""
    aggregates = {}
    for path in demo_dir.glob("eee/aggregates/*.json"):
        record = json.loads(path.read_text())
        aggregates[record["evaluation_id"]] = aggregates[record["detailed_evaluation_results"]["checksum"]] = path
    runs: dict[str, list[tuple[Path, Path]]] = {}
    for instances in sorted(demo_dir.glob("eee/instances/*.jsonl"), key=lambda p: int(p.stem.rsplit("_", 1)[1])):
        evaluation_id = json.loads(instances.open().readline())["evaluation_id"]
        aggregate = aggregates.get(evaluation_id) or aggregates[hashlib.sha256(instances.read_bytes()).hexdigest()]
        runs.setdefault(instances.stem.rsplit("_", 1)[0], []).append((instances, aggregate))
    return runs


def test_building_after_each_drop_equals_one_full_build(demo_dir, tmp_path):
    weeks = sorted(demo_dir.glob("eval_forms/*.jsonl"))
    late = _rerated(weeks[1], tmp_path / "eval_forms_rerated.jsonl")
    runs = _runs(demo_dir)
    newest = [file for series in runs.values() for file in series[-1]]  # each series' last run: trials appended
    relinked = [aggregate for name, series in runs.items() if name.startswith("gsm8k")
                for _, aggregate in series[-2:-1]]  # their runs are loaded first, unlinked
    oldest = [file for name, series in runs.items() if name.startswith("mmlu") for file in series[0]]
    drops = [
        [weeks[-2], *newest],  # a week of forms, and the last week's runs with their aggregates
        [weeks[-1], *relinked],  # the runs loaded without these are linked late
        [late, *oldest, *sorted(demo_dir.glob("cognibench/*.jsonl"))[-1:]],  # old runs and re-ratings arrive late
    ]
    later = [path for drop in drops for path in drop]
    first = [p for p in demo_dir.rglob("*") if p.is_file() and p not in later]

    incremental = Warehouse(built_warehouse_path(tmp_path / "incremental"))
    incremental.ingest(*first)
    assert build_in_process(incremental.path, target_path=tmp_path / "t1", quiet=True).ok
    for drop in drops:
        incremental.ingest(*drop)
        assert build_in_process(incremental.path, target_path=tmp_path / "t1", quiet=True).ok
    # ... each building only what depends on the sources that received rows; then nothing new at all
    assert plan_build(incremental.path, project_fingerprint()).select == (AS_OF_BUILD,)
    assert build_in_process(incremental.path, target_path=tmp_path / "t1", quiet=True).ok

    full = Warehouse(built_warehouse_path(tmp_path / "full"))
    full.ingest(*first, *later)
    full.build(target_path=tmp_path / "t2")

    assert mart_differences(full.path, incremental.path) == []
    staged = "select count(*) from staging.stg_aif__eval_forms"
    assert incremental.scalar(staged) == full.scalar(staged) == full.scalar("select count(*) from raw.eval_form")
    rerated = "select count(*) from marts.fct_ratings where source_path like '%rerated%'"
    assert incremental.scalar(rerated) == full.scalar(rerated) > 200  # the late drop was loaded and counted
    # an old item now holds its re-rating, not the rating it superseded: each rater's agreement rating of it comes
    # from the re-rating's batch, whether the rater looked again or is new to the item
    superseded = """
        select count(*) filter (where a.batch_id = r.batch_id), count(*) filter (where a.batch_id <> r.batch_id),
            count(*) filter (where a.batch_id = r.batch_id and r.rater_id not like '%-second-look')
        from intermediate.int_agreement_ratings as a
        inner join marts.fct_ratings as r on a.unit_id = r.item_id and a.dimension = r.dimension
            and a.rater_id = r.rater_id
        where r.source_path like '%rerated%' and a.item_week < date '2026-11-16'
    """
    held, replaced_by_the_old, looked_again = incremental.rows(superseded)[0]
    assert (held, replaced_by_the_old, looked_again) == full.rows(superseded)[0]
    assert held > 100 and looked_again > 50 and replaced_by_the_old == 0
    # the trials that arrived late hold the places a full build gives them: the oldest runs come first in their
    # groups, and the runs linked late carry their aggregate's time
    oldest_first = f"""
        select count(*) from marts.fct_trials
        where trial_index = 1 and source_path in ({", ".join(f"'{p}'" for p in map(str, oldest[::2]))})
    """
    assert incremental.scalar(oldest_first) == full.scalar(oldest_first) > 0
    linked_late = "select count(*) from marts.fct_trials where evaluated_at_source = 'aggregate'"
    assert incremental.scalar(linked_late) == full.scalar(linked_late) == incremental.scalar(
        "select count(*) from marts.fct_trials where source_format = 'eee_instance'")
