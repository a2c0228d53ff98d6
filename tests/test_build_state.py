"""A build after the project changed is a full one: incremental models read only what is new since the last
build, which is right only if the project that built the rest is the same (evalhouse/build.py, the on-run-end
hook macros/build_state.sql)."""

from __future__ import annotations

import duckdb
import pytest

from evalhouse.build import built_fingerprint, project_fingerprint
from evalhouse.operations import build, ingest
from evalhouse.publish import working_copy
from evalhouse.settings import Settings
from tests.conftest import instance_record, write_lines

pytestmark = pytest.mark.slow

STAGED = "select count(*) from staging.stg_every_eval_ever__instances"


def _execute(path, sql: str):
    with duckdb.connect(str(path)) as con:
        con.execute(sql)


def _count(path) -> int:
    with duckdb.connect(str(path), read_only=True) as con:
        return con.execute(STAGED).fetchone()[0]


def test_a_build_after_the_project_changed_rebuilds_every_model_in_full(tmp_path, capsys):
    settings = Settings(db_path=tmp_path / "w.duckdb", landing=tmp_path / "landing")
    ingest(settings, [write_lines(tmp_path / "a.jsonl", [instance_record(sample_id=str(i)) for i in range(5)])])
    work = working_copy(settings.db_path)
    assert build(settings).ok
    assert built_fingerprint(work) == project_fingerprint()  # the build recorded the project it was built with

    # A staged row lost behind dbt's back stays lost in an incremental build: its batch has been read ...
    _execute(work, "delete from staging.stg_every_eval_ever__instances where record_id in "
                   "(select min(record_id) from staging.stg_every_eval_ever__instances)")
    assert build(settings).ok
    assert _count(work) == 4
    assert "rebuilt in full" not in capsys.readouterr().out

    # ... and comes back when the warehouse was built by another project: every model is rebuilt from raw.
    _execute(work, "update main.evalhouse_build_state set fingerprint = 'an older project'")
    assert build(settings).ok
    assert "changed since the last build: every model is rebuilt in full" in capsys.readouterr().out
    assert _count(work) == 5
    assert built_fingerprint(work) == project_fingerprint()


def test_the_fingerprint_follows_the_files_that_decide_what_models_compute(tmp_path, monkeypatch):
    from evalhouse import build as build_module

    for name in ("models", "macros", "seeds"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "a.sql").write_text("select 1")
    (tmp_path / "dbt_project.yml").write_text("name: x")
    monkeypatch.setattr(build_module, "PROJECT_ROOT", tmp_path)
    before = project_fingerprint()
    (tmp_path / "README.md").write_text("not part of the project's logic")
    assert project_fingerprint() == before
    (tmp_path / "seeds" / "a.sql").write_text("select 2")
    assert project_fingerprint() != before
