"""A build after the project changed is a full one: incremental models read only what is new since the last
build, which is right only if the project that built the rest is the same; otherwise a build runs only the models
downstream of the sources that received rows (evalhouse/build.py, the on-run-end hooks macros/build_state.sql).
tests/models/test_incremental.py holds the marts of such builds equal to one full build."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import duckdb
import pytest
import yaml

from evalhouse.build import AS_OF_BUILD, built_fingerprint, plan_build, project_fingerprint, run_dbt
from evalhouse.operations import build, ingest
from evalhouse.publish import working_copy
from evalhouse.settings import PROJECT_ROOT, Settings
from tests.conftest import UNIT_TESTS_OFF, built_once, eval_form_record, instance_record, write_lines

pytestmark = pytest.mark.slow

STAGED = "select count(*) from staging.stg_every_eval_ever__instances"


def _execute(path, sql: str):
    with duckdb.connect(str(path)) as con:
        con.execute(sql)


def _count(path) -> int:
    with duckdb.connect(str(path), read_only=True) as con:
        return con.execute(STAGED).fetchone()[0]


@pytest.fixture(scope="module")
def five_trials_built(tmp_path_factory) -> tuple[Path, int]:
    """A warehouse of five trials after its first build (everything: there was no earlier one), and how many nodes
    that build ran; built once per test session (the test workers share it: tests/conftest.py, built_once), each
    test works on a copy."""

    def first_build(root: Path) -> None:
        settings = Settings(db_path=root / "w.duckdb", landing=root / "landing")
        ingest(settings, [write_lines(root / "a.jsonl", [instance_record(sample_id=str(i)) for i in range(5)])])
        result = build(settings)
        assert result.ok, result.failures
        (root / "n_nodes").write_text(str(result.n_nodes))

    root = built_once(tmp_path_factory, "five_trials_built", first_build)
    return root, int((root / "n_nodes").read_text())


@pytest.fixture(scope="module")
def warehouse_dir(tmp_path_factory) -> Path:
    """Where each test's copy of the warehouse is: one directory for this module's tests, emptied before each. dbt
    reuses its saved parse of the project only for a warehouse at the same path (the path is part of its profile),
    so at a path of its own each test's first build parsed the whole project again (4 to 7 s)."""
    return tmp_path_factory.mktemp("build_state")


@pytest.fixture(scope="module")
def in_process_target(tmp_path_factory) -> Path:
    """dbt's target for the dbt commands these tests run in this process (on the warehouse in warehouse_dir): the
    first parses the project and the others reuse that parse. Not the session's target, where the builds saved
    their parse with the fingerprint among their vars: a run without it there would make dbt parse everything
    again, and so would the next build after it."""
    return tmp_path_factory.mktemp("in_process_target")


@pytest.fixture
def settings(five_trials_built, warehouse_dir) -> Settings:
    root, _ = five_trials_built
    shutil.rmtree(warehouse_dir)
    warehouse_dir.mkdir()
    for name in ("w.duckdb", "w.work.duckdb"):
        shutil.copyfile(root / name, warehouse_dir / name)
    return Settings(db_path=warehouse_dir / "w.duckdb", landing=warehouse_dir / "landing")


def test_a_build_after_the_project_changed_rebuilds_every_model_in_full(settings, capfd):
    work = working_copy(settings.db_path)
    assert built_fingerprint(work) == project_fingerprint()  # the first build recorded the project it was built with

    # A staged row lost behind dbt's back stays lost in an incremental build: its batch has been read ...
    _execute(work, "delete from staging.stg_every_eval_ever__instances where record_id in "
                   "(select min(record_id) from staging.stg_every_eval_ever__instances)")
    assert build(settings).ok
    assert _count(work) == 4
    assert "rebuilt in full" not in capfd.readouterr().out

    # ... and comes back when the warehouse was built by another project: every model is rebuilt from raw.
    _execute(work, "update main.evalhouse_build_state set fingerprint = 'an older project'")
    assert plan_build(work, project_fingerprint()).exclude_resource_types == ()  # unit tests run again
    assert build(settings).ok
    assert "changed since the last build: every model is rebuilt in full" in capfd.readouterr().out
    assert _count(work) == 5
    assert built_fingerprint(work) == project_fingerprint()


def test_a_build_runs_only_the_models_downstream_of_the_sources_that_received_rows(
        five_trials_built, settings, tmp_path, capfd, monkeypatch):
    monkeypatch.delenv(UNIT_TESTS_OFF)  # so that the unit tests left out below are left out by the build's plan
    _, first_nodes = five_trials_built  # the first build ran everything
    work = working_copy(settings.db_path)
    assert plan_build(work, project_fingerprint()).select == (AS_OF_BUILD,)

    again = build(settings)  # nothing new: only the review queue, whose ages are measured at the build
    out, err = capfd.readouterr()
    assert again.ok and "nothing new since the last build" in out
    # The dbt process ends without the interpreter's teardown, but after its exit handlers: multiprocessing's
    # resource tracker would otherwise report dbt's semaphores as leaked.
    assert "leaked" not in err and "resource_tracker" not in err
    assert 0 < again.n_nodes < first_nodes / 10
    assert "model.evalhouse.rpt_build_settings" in again.nodes  # the settings of every build are its own

    ingest(settings, [write_lines(tmp_path / "forms.jsonl", [eval_form_record()])])
    plan = plan_build(work, project_fingerprint())
    assert "source:aif.eval_forms+" in plan.select and "source:ingest.ingest_files+" in plan.select
    assert not any(selector.startswith("source:every_eval_ever") for selector in plan.select)
    forms = build(settings)
    assert forms.ok and "new rows in aif.eval_forms, ingest.ingest_files" in capfd.readouterr().out
    assert again.n_nodes < forms.n_nodes < first_nodes
    with duckdb.connect(str(work), read_only=True) as con:
        assert con.execute("select count(*) from marts.fct_ratings").fetchone()[0] > 0  # the form was built
    assert _count(work) == 5  # the trials, untouched

    ingest(settings, [write_lines(tmp_path / "b.jsonl", [instance_record(sample_id=f"b{i}") for i in range(3)])])
    assert plan_build(work, project_fingerprint()).exclude_resource_types == ("unit_test",)
    trials = build(settings)
    assert trials.ok and "new rows in every_eval_ever.instances" in capfd.readouterr().out
    assert _count(work) == 8
    # The trials' models ran, and their unit tests did not: the project is the one whose last build passed them.
    assert "model.evalhouse.int_spec_composites" in trials.nodes
    assert not [node for node in trials.nodes if node.startswith("unit_test.")]
    # The views were left as they were (a view is read live; its SQL has not changed), and their tests ran.
    assert "model.evalhouse.fct_trials" not in trials.nodes and "model.evalhouse.stg_ingest__files" not in trials.nodes
    assert [node for node in trials.nodes if node.startswith("test.evalhouse.fct_trials_row_rules")]
    assert [node for node in trials.nodes if node.startswith("test.evalhouse.not_null_stg_ingest__files_batch_id")]
    with duckdb.connect(str(work), read_only=True) as con:
        assert con.execute("select count(*) from marts.fct_trials where sample_id like 'b%'").fetchone()[0] == 3
    # The new trials carry this build's stamp, which the passed build recorded for the next one's grain tests.
    with duckdb.connect(str(work), read_only=True) as con:
        stamps = dict(con.execute("select sample_id, written_in from intermediate.int_trials_unioned").fetchall())
        recorded = con.execute("select highest from main.evalhouse_build_stamps "
                               "where relation_name = 'intermediate.int_trials_unioned'").fetchone()[0]
    assert stamps["b0"] == recorded > stamps["0"] == 1

    # Everything, when the record cannot be compared: a table holding fewer rows than the build read (rows went
    # missing behind the ingester's back), or no record at all (a warehouse built before the counts were kept).
    _execute(work, "update main.evalhouse_build_sources set n_rows = n_rows + 1 where table_name = 'instances'")
    assert plan_build(work, project_fingerprint()).select is None
    _execute(work, "drop table main.evalhouse_build_sources")
    assert plan_build(work, project_fingerprint()).select is None


def test_a_refusal_resolved_by_a_skipped_file_alone_builds_the_quarantine_marts(settings, tmp_path, capfd):
    """A file whole, cut off (its last line refused), built; then whole again: skipped as loaded, the run adds a row
    to raw.quarantine_resolutions alone. The next build selects what depends on that table, and
    fct_quarantined_lines marks the refusal loaded later by that run. A warehouse an older version ingested into,
    without the table, builds too: the build creates the raw tables it lacks."""
    path = tmp_path / "f.jsonl"
    records = [json.dumps(instance_record(sample_id=f"f{i}")) for i in range(2)]
    path.write_text(f"{records[0]}\n{records[1]}\n")
    ingest(settings, [path])
    path.write_text(f"{records[0]}\n{records[1][:40]}")
    assert ingest(settings, [path]).quarantined == 1
    assert build(settings).ok
    path.write_text(f"{records[0]}\n{records[1]}\n")
    resolving = ingest(settings, [path])
    assert (resolving.accepted, resolving.resolved) == (0, 1)
    capfd.readouterr()

    work = working_copy(settings.db_path)
    assert plan_build(work, project_fingerprint()).select == ("source:ingest.quarantine_resolutions+", AS_OF_BUILD)
    resolved = build(settings)
    assert resolved.ok and "new rows in ingest.quarantine_resolutions" in capfd.readouterr().out
    assert "model.evalhouse.fct_quarantined_lines" in resolved.nodes
    query = "select loaded_later_batch_id, loaded_later_source_format from marts.fct_quarantined_lines"
    with duckdb.connect(str(work), read_only=True) as con:
        assert con.execute(query).fetchall() == [(resolving.batch_id, "eee_instance")]

    _execute(work, "drop table raw.quarantine_resolutions")
    assert build(settings).ok
    with duckdb.connect(str(work), read_only=True) as con:
        assert con.execute(query).fetchall() == [(None, None)]


def _built_settings(path) -> tuple:
    with duckdb.connect(str(path), read_only=True) as con:
        return con.execute("select built_at, drift_alert_z, drift_min_items from marts.rpt_build_settings").fetchone()


def test_a_build_after_marts_were_built_with_other_vars_rebuilds_every_model_with_the_projects(settings, capfd):
    """A dbt run given --vars (by hand: `evalhouse build` takes none) leaves marts built with them, which a build of
    what new data touches would keep beside a rpt_build_settings saying the project's."""
    work = working_copy(settings.db_path)
    first_built_at, alert_z, min_items = _built_settings(work)
    assert (alert_z, min_items) == (4.0, 10)
    _execute(work, "update marts.rpt_build_settings set drift_alert_z = 3.0, drift_min_items = 21")
    plan = plan_build(work, project_fingerprint())
    assert plan.full_refresh and plan.select is None
    assert plan.reason == ("the marts were built with other dbt vars than dbt_project.yml's (drift_min_items 21 where "
                           "dbt_project.yml has 10; drift_alert_z 3.0 where dbt_project.yml has 4.0): every model "
                           "is rebuilt in full")
    assert build(settings).ok
    assert "other dbt vars than dbt_project.yml's" in capfd.readouterr().out
    built_at, alert_z, min_items = _built_settings(work)
    assert (alert_z, min_items) == (4.0, 10) and built_at > first_built_at
    assert plan_build(work, project_fingerprint()).select == (AS_OF_BUILD,)  # agreed again: what is new, only


def test_every_var_the_models_read_is_one_the_plan_compares(empty_warehouse):
    """plan_build tells marts built with other vars by marts.rpt_build_settings' columns: a var added to
    dbt_project.yml without a column there would go unnoticed, and a build after `dbt run --vars` would keep marts
    computed with it. project_fingerprint is the build's own (plan_build compares it first)."""
    declared = set(yaml.safe_load((PROJECT_ROOT / "dbt_project.yml").read_text())["vars"])
    read = {name for path in [*PROJECT_ROOT.glob("models/**/*.sql"), *PROJECT_ROOT.glob("macros/**/*.sql")]
            for name in re.findall(r"""\bvar\(\s*['"](\w+)['"]""", path.read_text())}
    columns = {name for (name,) in empty_warehouse.rows(
        "select column_name from information_schema.columns "
        "where table_schema = 'marts' and table_name = 'rpt_build_settings'")}
    assert read - {"project_fingerprint"} <= declared  # dbt fails on an undeclared var without a default anyway
    assert (read | declared) - {"project_fingerprint"} <= columns


def test_the_build_process_reports_a_warehouse_file_it_could_not_close(monkeypatch):
    """Closing the file dbt kept open writes the build's last changes into it (DuckDB's checkpoint); when that
    fails, the build fails with the reason, so nothing is published."""
    from dbt.adapters.duckdb.connections import DuckDBConnectionManager

    from evalhouse.build import _close_kept_open

    class FullDisk:
        def close(self):
            raise OSError("No space left on device")

    class Held:  # the build process's own connection (build._hold): dbt's, when there is one, closes last
        def close(self):
            pass

    class HeldOnAFullDisk:  # the last connection when dbt never connected
        def close(self):
            raise duckdb.IOException("No space left on device")

    monkeypatch.setattr(DuckDBConnectionManager, "env", classmethod(lambda cls: FullDisk()))
    assert _close_kept_open(Held()) == ("the warehouse file could not be closed after the build (DuckDB's "
                                        "checkpoint failed): No space left on device")

    def never_connected(cls):
        raise Exception("DuckDBConnectionManager environment requested before creation!")

    monkeypatch.setattr(DuckDBConnectionManager, "env", classmethod(never_connected))
    assert _close_kept_open(Held()) is None
    assert _close_kept_open(HeldOnAFullDisk()).endswith("(DuckDB's checkpoint failed): No space left on device")


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


def test_a_full_refresh_of_the_counted_ratings_alone_has_every_item_recounted(settings, tmp_path, in_process_target):
    """int_agreement_units recounts the items int_agreement_ratings stamped after its last read (counted_in). A
    full refresh of int_agreement_ratings on its own continues the stamps, so every item is recounted, including
    one whose new rating reached fct_ratings while the agreement models were not built."""
    work = working_copy(settings.db_path)
    first = write_lines(tmp_path / "first.jsonl", [eval_form_record()])  # h-ana on the item
    ingest(settings, [first])
    assert build(settings).ok

    def all_raters_of_the_item() -> list[tuple]:
        with duckdb.connect(str(work), read_only=True) as con:
            return con.execute("select distinct n_ratings from intermediate.int_agreement_units "
                               "where rater_group = 'all'").fetchall()

    def stamps(table: str) -> tuple:
        with duckdb.connect(str(work), read_only=True) as con:
            return con.execute(f"select min(counted_in), max(counted_in) from intermediate.{table}").fetchone()

    assert all_raters_of_the_item() == [(1,)]
    before = stamps("int_agreement_ratings")[1]

    second = eval_form_record(rater={"type": "human", "id": "h-ben"})  # a second person on the same item
    ingest(settings, [write_lines(tmp_path / "second.jsonl", [second])])
    run = dict(command=("run",), target_path=in_process_target, quiet=True)  # models only: the others stay as they were
    assert run_dbt(work, select=["+fct_ratings"], **run).ok  # the new rating, not yet counted
    assert run_dbt(work, select=["int_agreement_ratings"], full_refresh=True, **run).ok
    assert stamps("int_agreement_ratings") == (before + 1, before + 1)  # numbering continued, every row restamped
    assert run_dbt(work, select=["int_agreement_units"], **run).ok
    assert all_raters_of_the_item() == [(2,)]  # recounted: both people
    assert stamps("int_agreement_units") == (before + 1, before + 1)


def _failed_tests(result) -> list[str]:
    """The names of the data tests that failed (dbt's unique ids without the project and hash)."""
    return [failure.split(":")[0].split(".")[2] for failure in result.failures if failure.startswith("test.")]


def _form(response_id: str, rater_id: str) -> dict:
    """An eval form by a person on the fixture's task, for the response `response_id` (each response an item)."""
    record = eval_form_record(rater={"type": "human", "id": rater_id})
    record["task"] = {**record["task"], "response_id": response_id}
    return record


def test_a_uniqueness_test_scoped_to_new_batches_checks_them_until_a_build_passes(settings, tmp_path):
    """stg_every_eval_ever__instances' record_id test checks, in an incremental build, the rows of the batches the
    last passed build had not read, against every row: a new row repeating an old key fails the build, and so
    does the next build, since a failed build records nothing."""
    work = working_copy(settings.db_path)
    ingest(settings, [write_lines(tmp_path / "b.jsonl", [instance_record(sample_id="b")])])
    new_batches = "select batch_id from raw.ingest_files except select batch_id from main.evalhouse_build_batches"
    # The ingester never loads a record twice; a model that repeated one would write this.
    _execute(work, "update raw.eee_instance set record_id = (select min(record_id) from raw.eee_instance) "
                   f"where batch_id in ({new_batches})")
    scoped = "unique_combination_stg_every_eval_ever__instances_record_id__batch_id"

    for _ in range(2):
        result = build(settings)
        assert not result.ok and [name for name in _failed_tests(result) if name.startswith(scoped)]
    with duckdb.connect(str(work), read_only=True) as con:
        assert con.execute(f"select count(*) from ({new_batches})").fetchone()[0] == 1  # still unread


def test_a_uniqueness_test_scoped_by_stamp_checks_the_rows_stamped_after_the_last_passed_build(
        settings, tmp_path, in_process_target):
    """int_agreement_ratings' grain test checks the rows stamped (counted_in) above the highest stamp the table
    held when the last build passed, against every row. A repeated row carrying an old stamp was checked by the
    build that wrote it and is not looked at again; one carrying a newer stamp fails the build. Without a record
    of a passed build every row is checked."""
    work = working_copy(settings.db_path)
    ingest(settings, [write_lines(tmp_path / "a.jsonl", [_form("r-91", "h-ana")])])
    assert build(settings).ok
    with duckdb.connect(str(work), read_only=True) as con:
        assert con.execute("select highest from main.evalhouse_build_stamps "
                           "where relation_name = 'intermediate.int_agreement_ratings'").fetchone()[0] >= 1
    scoped = "unique_combination_int_agreement_ratings_dimension__unit_id__rater_id__counted_in"
    repeat = ("insert into intermediate.int_agreement_ratings "
              "select * replace (counted_in + {shift} as counted_in) from intermediate.int_agreement_ratings "
              "where unit_id like '%r-91' and dimension = 'helpfulness'")

    _execute(work, repeat.format(shift=0))  # as if a passed build had written it
    ingest(settings, [write_lines(tmp_path / "b.jsonl", [_form("r-92", "h-ben")])])  # another item: r-91 is kept
    assert build(settings).ok

    _execute(work, repeat.format(shift=100))  # as if a build after the last passed one had written it
    ingest(settings, [write_lines(tmp_path / "c.jsonl", [_form("r-93", "h-cy")])])
    result = build(settings)
    assert not result.ok and [name for name in _failed_tests(result) if name.startswith(scoped)]

    test = dict(command=("test",), select=["int_agreement_ratings"], target_path=in_process_target, quiet=True)
    _execute(work, "delete from intermediate.int_agreement_ratings where counted_in > 100")
    assert run_dbt(work, **test).ok  # the repeat with the old stamp is not looked at
    _execute(work, "drop table main.evalhouse_build_stamps")
    unscoped = run_dbt(work, **test)
    assert not unscoped.ok and [name for name in _failed_tests(unscoped) if name.startswith(scoped)]
