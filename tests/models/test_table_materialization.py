"""The project's table materialization (macros/materializations/table.sql) builds tables in place, in one transaction.

A small dbt project in a temporary folder runs the main project's macros. Its three models are a contracted
table, a view that reads it, and a model that is a view in one build and a table in the next. The project is
built three times: once, then again with new rows, then with rows that break the table's primary key. dbt runs
in a process of its own each time, with the file opened per statement and, as `evalhouse build` runs it, kept
open. The test holds that:
  - the table is replaced and the view over it follows;
  - a view turned table is replaced;
  - the contract's key and the comments come back with each rebuild;
  - a failed rebuild leaves the old table in place;
  - nothing is left under the names of dbt-duckdb's swap (`__dbt_tmp`, `__dbt_backup`), including tables such a
    swap left behind;
  - the table is never renamed (dbt's log of the statements).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from tests.conftest import DBT_FILE_LOG_LEVEL

MACROS = Path(__file__).resolve().parents[2] / "macros"

pytestmark = pytest.mark.slow

PROJECT = f"""\
name: evalhouse
version: "0.1.0"
config-version: 2
profile: materialization_probe
model-paths: ["models"]
macro-paths: ["{MACROS}"]
seed-paths: []
test-paths: []
flags:
  send_anonymous_usage_stats: false
  use_colors: false
models:
  evalhouse:
    +persist_docs:
      relation: true
      columns: true
"""

MODELS_YML = """\
version: 2
models:
  - name: scores
    description: One row per key.
    config:
      materialized: table
      contract:
        enforced: true
    columns:
      - name: k
        description: The key.
        data_type: integer
        constraints:
          - type: primary_key
      - name: label
        description: What the row says.
        data_type: varchar
"""

SCORES = """\
{% if var('duplicate', false) %}
select 7 as k, 'first' as label
union all
select 7 as k, 'second' as label
{% else %}
select {{ var('k') }} as k, 'row {{ var('k') }}' as label
{% endif %}
"""


# dbt in a process of its own, as `evalhouse build` runs it: with keep_open, the file is closed when it ends.
RUN_DBT = """
import json, sys
from dbt.cli.main import dbtRunner
result = dbtRunner().invoke(sys.argv[1:])
failures = [f"{r.node.unique_id}: {r.message}" for r in (result.result or [])
            if str(r.status) in ("error", "fail", "runtime error")]
if result.exception is not None:
    failures.append(str(result.exception))
print(json.dumps(failures))
"""


@pytest.fixture(params=[False, True], ids=["reopened", "kept_open"])
def project(request, tmp_path: Path) -> Path:
    """The probe project, its file opened per statement (the tests' profile) or kept open for the whole run (the
    `build` profile `evalhouse build` uses)."""
    (tmp_path / "models").mkdir()
    (tmp_path / "dbt_project.yml").write_text(PROJECT)
    (tmp_path / "models" / "_models.yml").write_text(MODELS_YML)
    (tmp_path / "models" / "scores.sql").write_text(SCORES)
    (tmp_path / "models" / "scores_view.sql").write_text(
        "{{ config(materialized='view') }}\nselect k, label from {{ ref('scores') }}\n")
    (tmp_path / "models" / "shape.sql").write_text(
        "{{ config(materialized=var('shape')) }}\nselect {{ var('k') }} as v\n")
    (tmp_path / "profiles.yml").write_text(
        "materialization_probe:\n  target: duckdb\n  outputs:\n    duckdb:\n      type: duckdb\n"
        f"      path: '{tmp_path / 'probe.duckdb'}'\n      keep_open: {str(request.param).lower()}\n      threads: 2\n")
    return tmp_path


def _build(project: Path, **variables) -> list[str]:
    """dbt build of the probe project; the failures (empty when every node passed)."""
    args = ["build", "--project-dir", str(project), "--profiles-dir", str(project),
            "--target-path", str(project / "target"), "--quiet", "--vars", json.dumps(variables)]
    done = subprocess.run([sys.executable, "-c", RUN_DBT, *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "DBT_LOG_PATH": str(project / "logs"),
                               DBT_FILE_LOG_LEVEL: "debug"})  # the statements dbt ran, which the test reads
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def _state(project: Path) -> dict:
    with duckdb.connect(str(project / "probe.duckdb"), read_only=True) as con:
        return {
            "scores": con.execute("select k, label from main.scores order by k, label").fetchall(),
            "view": con.execute("select k, label from main.scores_view order by k, label").fetchall(),
            "shape": con.execute("select table_type, (select v from main.shape) from information_schema.tables "
                                 "where table_schema = 'main' and table_name = 'shape'").fetchone(),
            "relations": sorted(name for (name,) in con.execute(
                "select table_name from information_schema.tables where table_schema = 'main'").fetchall()),
            "primary_key": con.execute(
                "select constraint_column_names from duckdb_constraints() where schema_name = 'main' "
                "and table_name = 'scores' and constraint_type = 'PRIMARY KEY'").fetchall(),
            "comments": con.execute(
                "select (select comment from duckdb_tables() where schema_name = 'main' and table_name = 'scores'), "
                "(select comment from duckdb_columns() where schema_name = 'main' and table_name = 'scores' "
                "and column_name = 'label')").fetchone(),
        }


def test_a_table_is_rebuilt_in_place_and_a_failed_rebuild_keeps_the_old_one(project):
    assert _build(project, k=1, shape="view") == []
    first = _state(project)
    assert first["scores"] == first["view"] == [(1, "row 1")]
    assert first["shape"] == ("VIEW", 1)

    # Tables a killed build of dbt-duckdb's own materialization leaves behind, under the names of its swap.
    with duckdb.connect(str(project / "probe.duckdb")) as con:
        con.execute("create table main.scores__dbt_tmp as select 1 as k")
        con.execute("create table main.scores__dbt_backup as select 1 as k")

    assert _build(project, k=2, shape="table") == []
    second = _state(project)
    assert second["scores"] == second["view"] == [(2, "row 2")]
    assert second["shape"] == ("BASE TABLE", 2)
    assert second["relations"] == ["scores", "scores_view", "shape"]
    assert second["primary_key"] == [(["k"],)]
    assert second["comments"] == ("One row per key.", "What the row says.")

    failures = _build(project, k=3, shape="table", duplicate=True)
    assert len(failures) == 1 and failures[0].startswith("model.evalhouse.scores:")
    assert "primary key" in failures[0].lower() or "duplicate key" in failures[0].lower(), failures
    after_failure = _state(project)
    assert after_failure["scores"] == after_failure["view"] == [(2, "row 2")]
    assert after_failure["relations"] == ["scores", "scores_view", "shape"]
    assert after_failure["primary_key"] == [(["k"],)]

    # In place: dbt-duckdb's materialization would have renamed the new table into place, and the old one aside.
    statements = (project / "logs" / "dbt.log").read_text()
    assert re.search(r'drop table if exists "\w+"\."main"\."scores" cascade', statements)  # the statements are logged
    assert not re.search(r'rename to "scores(__dbt_backup)?"', statements)  # (the view materialization renames)
