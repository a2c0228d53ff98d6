"""Hostile input: no SQL is built from user input (file names, CLI arguments, record content), and paths given to
ingest make it read, never write, outside the warehouse folder."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pyarrow as pa
import pytest

from evalhouse.cli import main
from ingest.load import RawStore
from tests.conftest import Warehouse, eval_form_record, instance_record, write_lines

HOSTILE = [
    "a'; drop table raw.quarantine; --",
    'b"); delete from raw.eee_instance; --',
    "c\\' or '1'='1",
    "d\u202e\u0000é中文🙂",
    "e --",
]


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_file_names_are_stored_verbatim_and_change_no_sql(tmp_path, name):
    safe_name = name.replace("\u0000", "") + ".jsonl"  # a file name cannot hold NUL
    path = write_lines(tmp_path / safe_name, [instance_record(), "{bad"])
    warehouse = Warehouse(tmp_path / "w.duckdb")
    warehouse.ingest(path)
    assert warehouse.rows("select source_path from raw.eee_instance") == [(str(path.resolve()),)]
    assert warehouse.rows("select source_path from raw.quarantine") == [(str(path.resolve()),)]
    assert set(warehouse.row_counts()) >= {"eee_instance", "quarantine", "ingest_files"}


def test_hostile_record_content_is_data_not_sql(tmp_path):
    form = eval_form_record()
    form["task"]["prompt"] = "'); drop table raw.eval_form; --"
    form["task"]["response"] = "<script>alert(1)</script><img src=x onerror=alert(1)>"
    warehouse = Warehouse(tmp_path / "w.duckdb")
    warehouse.ingest(write_lines(tmp_path / "forms.jsonl", [form]))
    stored = json.loads(warehouse.scalar("select record_json from raw.eval_form"))
    assert stored["task"]["prompt"] == form["task"]["prompt"]
    assert stored["task"]["response"] == form["task"]["response"]


def test_table_names_only_ever_come_from_the_format_registry(tmp_path):
    store = RawStore(tmp_path / "w.duckdb")
    try:
        with pytest.raises(ValueError, match="unknown format"):
            store.known_keys("eval_form; drop table raw.quarantine", ["k"])
        staging = store.staging("hostile")
        staging.append("quarantine --", pa.table({"record_id": ["x"]}))
        with pytest.raises(ValueError, match="unknown format"):
            store.load_staged(staging, "p", "sha", None, "batch")
        staging.remove()
    finally:
        store.close()


def test_a_hostile_format_argument_is_refused_before_anything_runs(tmp_path, capsys):
    path = write_lines(tmp_path / "a.jsonl", [instance_record()])
    with pytest.raises(SystemExit) as exit_info:
        main(["--db", str(tmp_path / "w.duckdb"), "ingest", "--format", "eval_form; drop table x", str(path)])
    assert exit_info.value.code == 2
    assert "invalid choice" in capsys.readouterr().err
    assert not (tmp_path / "w.duckdb").exists()


def _snapshot(root: Path, skip: Path) -> dict[str, float]:
    files = {}
    for dirpath, _, names in os.walk(root):
        if Path(dirpath).is_relative_to(skip):
            continue
        for name in names:
            path = Path(dirpath) / name
            files[str(path)] = path.stat().st_mtime_ns
    return files


def test_paths_given_to_ingest_make_it_read_never_write_outside_the_warehouse(tmp_path):
    inputs = tmp_path / "inputs"
    write_lines(inputs / "deep" / "a.jsonl", [instance_record()])
    (inputs / "link.jsonl").symlink_to(inputs / "deep" / "a.jsonl")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    warehouse_dir = tmp_path / "warehouse"
    before = _snapshot(tmp_path, warehouse_dir)
    cwd = os.getcwd()
    os.chdir(elsewhere)  # relative paths with '..' and a symlink, from a directory that must stay untouched
    try:
        code = main(["--db", str(warehouse_dir / "w.duckdb"), "ingest", "../inputs/deep/../deep/a.jsonl",
                     "../inputs/link.jsonl", str(inputs)])
    finally:
        os.chdir(cwd)
    assert code == 0
    assert _snapshot(tmp_path, warehouse_dir) == before
