"""db.py, the app's only door to DuckDB: read-only, parameters bound, absent marts reported as missing, and the last
good result kept for the time a writer holds the file."""

from __future__ import annotations

import duckdb
import pytest

from tests.app.conftest import APP_DIR


@pytest.fixture
def db(monkeypatch, tmp_path):
    monkeypatch.syspath_prepend(str(APP_DIR))
    import db as module

    path = tmp_path / "w.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute("create schema marts")
        con.execute("create table marts.t as select * from (values ('a', 1), ('b''c', 2)) as v(name, n)")
    monkeypatch.setenv("EVALHOUSE_DB", str(path))
    module.clear_cache()
    yield module
    module.clear_cache()


def test_parameters_are_bound_not_spliced(db):
    result = db.query("select n from marts.t where name = ?", ["b'c"])
    assert list(result.frame["n"]) == [2]
    assert db.query("select n from marts.t where name = ?", ["' or 1=1 --"]).frame.empty


def test_a_mart_that_does_not_exist_yet_is_missing_not_an_error(db):
    result = db.query("select * from marts.not_built_yet")
    assert result.missing and result.frame.empty and "not_built_yet" in result.problem


def test_no_warehouse_file_is_missing(db, monkeypatch, tmp_path):
    monkeypatch.setenv("EVALHOUSE_DB", str(tmp_path / "absent.duckdb"))
    result = db.query("select 1")
    assert result.missing and "no warehouse file" in result.problem
    assert not (tmp_path / "absent.duckdb").exists()  # reading never creates the file


def test_connections_are_read_only(db):
    with pytest.raises(duckdb.InvalidInputException, match="read-only"):
        db.query("create table marts.u as select 1")
    with duckdb.connect(str(db.warehouse_path()), read_only=True) as con:
        assert con.execute("select count(*) from information_schema.tables where table_name = 'u'").fetchone() == (0,)


def test_a_result_is_read_again_only_when_the_file_changed(db):
    first = db.query("select count(*) as n from marts.t")
    with duckdb.connect(str(db.warehouse_path())) as con:
        con.execute("insert into marts.t values ('d', 4)")
        con.execute("checkpoint")
    second = db.query("select count(*) as n from marts.t")
    assert int(first.frame["n"][0]) == 2 and int(second.frame["n"][0]) == 3


def test_a_writer_started_while_the_review_page_reads_the_working_copy_waits_for_it_not_exits_busy(
        db, tmp_path, monkeypatch, capsys):
    """Rule 2: an open dashboard never breaks a build. The review page reads the working copy for moments; an
    `evalhouse ingest` without --wait that starts in that moment waits for the read, then loads."""
    import threading

    import evalhouse.lock
    from evalhouse.cli import EXIT_BUSY, main
    from tests.conftest import eval_form_record, write_lines

    first, second = eval_form_record(), eval_form_record()
    assert main(["ingest", str(write_lines(tmp_path / "first.jsonl", [first]))]) == 0
    reading, release, writer_waits = threading.Event(), threading.Event(), threading.Event()
    real_connect, real_try_lock = duckdb.connect, getattr(evalhouse.lock, "_try_lock", None)

    def connect_and_hold(*args, **kwargs):
        con = real_connect(*args, **kwargs)
        if threading.current_thread() is reader:  # the page's connection to the working copy stays open
            reading.set()
            release.wait(30)
        return con

    def try_lock(*args):
        got = real_try_lock(*args)
        if not got and args[2] == evalhouse.lock._READING:
            writer_waits.set()  # the writer found the page reading: let the page finish
            release.set()
        return got

    monkeypatch.setattr(duckdb, "connect", connect_and_hold)
    monkeypatch.setattr(evalhouse.lock, "_try_lock", try_lock, raising=False)  # absent before the reader lock
    found = []
    reader = threading.Thread(target=lambda: found.append(db.loaded_eval_forms([first["eval_id"]])))
    reader.start()
    try:
        assert reading.wait(30)
        code = main(["ingest", str(write_lines(tmp_path / "second.jsonl", [second]))])
    finally:
        release.set()
        reader.join()
    err = capsys.readouterr().err
    assert code != EXIT_BUSY and code == 0, err
    assert writer_waits.is_set()  # it did meet the reader, and waited for it
    assert found == [{first["eval_id"]}]  # the page's read was whole: what was loaded before the writer came
    assert db.loaded_eval_forms([first["eval_id"], second["eval_id"]]) == {first["eval_id"], second["eval_id"]}
