"""Atomic publishing: the published warehouse changes only when a build passes, in one rename, and a reader
holding the old file keeps reading it whole; the next working copy is the file published before, brought up to
date in place, unless a reader still holds it."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time

import duckdb
import pytest

from evalhouse import publish as publishing
from evalhouse.cli import main
from evalhouse.operations import build, ingest
from evalhouse.publish import update_in_place, working_copy
from evalhouse.settings import Settings
from tests.conftest import CAUTIOUS, Warehouse, instance_record, write_lines
from tests.processes import children, running

pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def _small_builds(monkeypatch):
    """Publishing does not depend on which models are built: build only what fct_trials needs (seconds, not a
    minute), through the real dbt and the real publish."""
    from evalhouse import operations
    from evalhouse.build import run_dbt

    monkeypatch.setattr(operations, "build_warehouse", lambda db: run_dbt(
        db, ("build", "--select", "+fct_trials", *CAUTIOUS), quiet=True))


def test_ingest_changes_nothing_readers_see_until_a_build_publishes_it(tmp_path):
    settings = Settings(db_path=tmp_path / "w.duckdb", landing=tmp_path / "landing")
    ingest(settings, [write_lines(tmp_path / "a.jsonl", [instance_record(sample_id=str(i)) for i in range(3)])])
    assert not settings.db_path.exists()
    assert build(settings).ok
    published = Warehouse(settings.db_path)
    assert published.scalar("select count(*) from marts.fct_trials") == 3

    ingest(settings, [write_lines(tmp_path / "b.jsonl", [instance_record(sample_id="late")])])
    assert published.scalar("select count(*) from marts.fct_trials") == 3
    assert Warehouse(working_copy(settings.db_path)).scalar("select count(*) from raw.eee_instance") == 4
    assert build(settings).ok
    assert published.scalar("select count(*) from marts.fct_trials") == 4


def test_a_failed_build_leaves_the_published_warehouse_untouched(tmp_path, monkeypatch):
    settings = Settings(db_path=tmp_path / "w.duckdb", landing=tmp_path / "landing")
    ingest(settings, [write_lines(tmp_path / "a.jsonl", [instance_record()])])
    assert build(settings).ok
    before = settings.db_path.read_bytes()

    from evalhouse import operations
    from evalhouse.build import BuildResult

    failed = BuildResult(False, ("test.evalhouse.x: failed",), ("test.evalhouse.x",))
    monkeypatch.setattr(operations, "build_warehouse", lambda db: failed)
    ingest(settings, [write_lines(tmp_path / "b.jsonl", [instance_record(sample_id="b")])])
    result = build(settings)
    assert not result.ok and "failed" in result.failures[0]
    assert settings.db_path.read_bytes() == before


def test_a_reader_holding_the_old_file_keeps_reading_it_after_a_publish(tmp_path):
    settings = Settings(db_path=tmp_path / "w.duckdb", landing=tmp_path / "landing")
    ingest(settings, [write_lines(tmp_path / "a.jsonl", [instance_record()])])
    assert build(settings).ok
    reader = duckdb.connect(str(settings.db_path), read_only=True)
    try:
        ingest(settings, [write_lines(tmp_path / "b.jsonl", [instance_record(sample_id="b")])])
        assert build(settings).ok  # publishing while a reader holds the file: no lock error
        assert reader.execute("select count(*) from marts.fct_trials").fetchone()[0] == 1
    finally:
        reader.close()
    assert Warehouse(settings.db_path).scalar("select count(*) from marts.fct_trials") == 2


def test_the_next_working_copy_is_the_file_published_before_brought_up_to_date(tmp_path):
    settings = Settings(db_path=tmp_path / "w.duckdb", landing=tmp_path / "landing")
    ingest(settings, [write_lines(tmp_path / "a.jsonl", [instance_record()])])
    assert build(settings).ok
    first = os.stat(settings.db_path).st_ino
    ingest(settings, [write_lines(tmp_path / "b.jsonl", [instance_record(sample_id="b")])])
    assert build(settings).ok
    work = working_copy(settings.db_path)
    assert os.stat(work).st_ino == first  # no reader held it: reused, not copied
    assert os.stat(settings.db_path).st_ino != first
    assert work.read_bytes() == settings.db_path.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".w.duckdb")) == [".w.duckdb.chunks"]
    ingest(settings, [write_lines(tmp_path / "c.jsonl", [instance_record(sample_id="c")])])
    assert build(settings).ok
    assert Warehouse(settings.db_path).scalar("select count(*) from marts.fct_trials") == 3


def test_a_published_file_changed_after_publishing_is_compared_not_trusted_to_its_digests(tmp_path, monkeypatch):
    """Whoever writes into the published file (an analyst opening it read-write) makes its saved digests describe
    another file: the next publish must compare it, or a changed chunk that its digest calls unchanged would stay
    in the working copy."""
    monkeypatch.setattr(publishing, "CHUNK", 4096)
    db = tmp_path / "w.duckdb"
    settings = Settings(db_path=db, landing=tmp_path / "landing")
    ingest(settings, [write_lines(tmp_path / "a.jsonl", [instance_record()])])
    publishing.publish(db)
    ingest(settings, [write_lines(tmp_path / "b.jsonl", [instance_record(sample_id="b")])])
    publishing.publish(db)  # digests saved for the published file
    ingest(settings, [write_lines(tmp_path / "c.jsonl", [instance_record(sample_id="c")])])
    published, work = db.read_bytes(), working_copy(db).read_bytes()
    size = publishing.CHUNK
    unchanged = next(i for i in range(1, len(published) // size)
                     if published[i * size:(i + 1) * size] == work[i * size:(i + 1) * size]
                     and any(published[i * size:(i + 1) * size]))
    with db.open("r+b") as writer:  # a chunk the next publish will not change, changed behind its digest
        writer.seek(unchanged * size)
        writer.write(bytes(b ^ 0xFF for b in published[unchanged * size:unchanged * size + 16]))
    publishing.publish(db)
    assert working_copy(db).read_bytes() == db.read_bytes()
    assert Warehouse(working_copy(db)).scalar("select count(*) from raw.eee_instance") == 3


def test_a_file_a_reader_still_holds_is_not_made_the_working_copy(tmp_path):
    settings = Settings(db_path=tmp_path / "w.duckdb", landing=tmp_path / "landing")
    ingest(settings, [write_lines(tmp_path / "a.jsonl", [instance_record()])])
    assert build(settings).ok
    held = os.stat(settings.db_path).st_ino
    reader = duckdb.connect(str(settings.db_path), read_only=True)  # in this process: the lock check must see it
    try:
        ingest(settings, [write_lines(tmp_path / "b.jsonl", [instance_record(sample_id="b")])])
        assert build(settings).ok
        work = working_copy(settings.db_path)
        assert os.stat(work).st_ino != held
        assert work.read_bytes() == settings.db_path.read_bytes()
        assert reader.execute("select count(*) from marts.fct_trials").fetchone()[0] == 1
        ingest(settings, [write_lines(tmp_path / "c.jsonl", [instance_record(sample_id="c")])])
        assert build(settings).ok  # a third publish while the first file is still read
        assert reader.execute("select count(*) from marts.fct_trials").fetchone()[0] == 1
    finally:
        reader.close()
    assert Warehouse(settings.db_path).scalar("select count(*) from marts.fct_trials") == 3


_DIE_DURING_PUBLISH = """
import os, sys
from pathlib import Path
from evalhouse import publish

def die(*args, **kwargs):
    if sys.argv[2] == "mid-update":  # one chunk of the old file overwritten with zeros, the rest not yet
        os.pwrite(args[0], bytes(publish.CHUNK), 0)
    os._exit(9)

setattr(publish, {"after the rename": "fsync_directory", "mid-update": "_update_chunks",
                  "before the digests": "_save_digests"}[sys.argv[2]], die)
publish.publish(Path(sys.argv[1]))
"""


@pytest.mark.parametrize("when", ["after the rename", "mid-update", "before the digests"])
def test_a_publish_killed_half_way_leaves_a_whole_published_file_and_the_next_writer_goes_on(tmp_path, when):
    """A kill during publishing (os._exit: no cleanup runs, as under SIGKILL) leaves the published file whole,
    old or new, and the next ingest and publish end with a working copy equal to what is published."""
    db = tmp_path / "w.duckdb"
    settings = Settings(db_path=db, landing=tmp_path / "landing")
    ingest(settings, [write_lines(tmp_path / "a.jsonl", [instance_record()])])
    publishing.publish(db)
    ingest(settings, [write_lines(tmp_path / "b.jsonl", [instance_record(sample_id="b")])])
    publishing.publish(db)  # the file published before is now the working copy, with digests saved
    ingest(settings, [write_lines(tmp_path / "c.jsonl", [instance_record(sample_id="c")])])

    died = subprocess.run([sys.executable, "-c", _DIE_DURING_PUBLISH, str(db), when], capture_output=True, text=True)
    assert died.returncode == 9, died.stderr
    assert Warehouse(db).scalar("select count(*) from raw.eee_instance") == 3  # the new file, whole

    ingest(settings, [write_lines(tmp_path / "d.jsonl", [instance_record(sample_id="d")])])
    publishing.publish(db)
    assert Warehouse(db).scalar("select count(*) from raw.eee_instance") == 4
    assert working_copy(db).read_bytes() == db.read_bytes()
    ingest(settings, [write_lines(tmp_path / "e.jsonl", [instance_record(sample_id="e")])])
    publishing.publish(db)
    assert working_copy(db).read_bytes() == db.read_bytes()
    assert Warehouse(working_copy(db)).scalar("select count(*) from raw.eee_instance") == 5


def test_update_in_place_writes_only_the_chunks_that_differ(tmp_path, monkeypatch):
    monkeypatch.setattr(publishing, "CHUNK", 1024)
    source, target = tmp_path / "source", tmp_path / "target"
    old = bytes(range(256)) * 20  # 5 chunks
    new = bytearray(old)
    new[1500] ^= 0xFF  # the second chunk differs
    source.write_bytes(bytes(new) + b"tail")
    target.write_bytes(old)
    assert update_in_place(target, source).written == 1024 + 4  # the second chunk and the part beyond the old end
    assert target.read_bytes() == source.read_bytes()
    assert update_in_place(target, source).written == 0
    source.write_bytes(bytes(new[:2000]))  # shorter: the rest is cut off
    assert update_in_place(target, source).written == 0
    assert target.read_bytes() == source.read_bytes()


def test_update_in_place_with_the_targets_digests_does_not_read_it(tmp_path, monkeypatch):
    monkeypatch.setattr(publishing, "CHUNK", 1024)
    source, target = tmp_path / "source", tmp_path / "target"
    old = bytes(range(256)) * 20
    target.write_bytes(old)
    known = update_in_place(target, target).digests  # a file's own digests, as publishing saves them
    new = bytearray(old)
    new[3000] ^= 0xFF
    source.write_bytes(bytes(new[:4500]))
    real_preadv = os.preadv

    def preadv(fd, buffers, offset):
        assert os.readlink(f"/proc/self/fd/{fd}") != str(target), "the target was read"
        return real_preadv(fd, buffers, offset)

    monkeypatch.setattr(publishing.os, "preadv", preadv)
    update = update_in_place(target, source, known)
    assert update.written == 1024 + (4500 - 4096)  # the third chunk, and the last one, shorter than before
    assert target.read_bytes() == source.read_bytes()
    data = source.read_bytes()
    assert update.digests == [hashlib.sha256(data[i:i + 1024]).digest() for i in range(0, len(data), 1024)]


@pytest.mark.parametrize("where", ["this process", "another process"])
def test_update_in_place_leaves_a_file_a_duckdb_reader_holds(tmp_path, where):
    target, source = tmp_path / "held.duckdb", tmp_path / "new.duckdb"
    duckdb.connect(str(target)).execute("create table t as select 1 as a").close()
    source.write_bytes(b"anything else")
    before = target.read_bytes()
    if where == "this process":
        with duckdb.connect(str(target), read_only=True):
            assert update_in_place(target, source) is None
    else:
        holder = subprocess.Popen([sys.executable, "-c", "import duckdb, sys; c = duckdb.connect(sys.argv[1], "
                                   "read_only=True); print('open', flush=True); sys.stdin.read()", str(target)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            assert holder.stdout.readline().strip() == "open"
            assert update_in_place(target, source) is None
        finally:
            holder.communicate("")
    assert target.read_bytes() == before


def test_update_in_place_waits_a_moment_for_a_reader_to_let_go(tmp_path):
    """A dashboard's connections last milliseconds: publishing waits for them rather than copy the whole file."""
    target, source = tmp_path / "held.duckdb", tmp_path / "new.duckdb"
    duckdb.connect(str(target)).execute("create table t as select 1 as a").close()
    source.write_bytes(b"anything else")
    reader = subprocess.Popen([sys.executable, "-c", "import duckdb, sys, time; c = duckdb.connect(sys.argv[1], "
                               "read_only=True); print('open', flush=True); time.sleep(0.5)", str(target)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert reader.stdout.readline().strip() == "open"
        assert update_in_place(target, source, wait_seconds=0) is None
        assert update_in_place(target, source, wait_seconds=10) is not None
    finally:
        reader.communicate()
    assert target.read_bytes() == b"anything else"


def test_duckdb_cannot_open_a_file_while_it_is_brought_up_to_date(tmp_path):
    target = tmp_path / "w.duckdb"
    duckdb.connect(str(target)).execute("create table t as select 1 as a").close()
    fd = os.open(target, os.O_RDWR)
    try:
        assert publishing._lock_if_unheld(fd)
        with pytest.raises(duckdb.IOException, match="lock"):
            duckdb.connect(str(target), read_only=True)
    finally:
        os.close(fd)
    duckdb.connect(str(target), read_only=True).close()


def test_the_real_build_runs_dbt_in_its_own_process_and_holds_no_lock_after(tmp_path, monkeypatch):
    import subprocess
    import sys

    monkeypatch.undo()  # the real build_warehouse: dbt in a process of its own, keep_open for the whole run
    settings = Settings(db_path=tmp_path / "w.duckdb", landing=tmp_path / "landing")
    ingest(settings, [write_lines(tmp_path / "a.jsonl", [instance_record(sample_id=str(i)) for i in range(5)])])
    assert build(settings).ok
    assert Warehouse(settings.db_path).scalar("select count(*) from marts.fct_trials") == 5
    for path in (settings.db_path, working_copy(settings.db_path)):
        other = subprocess.run([sys.executable, "-c", f"import duckdb; duckdb.connect({str(path)!r}, read_only=True)"],
                               capture_output=True, text=True)
        assert other.returncode == 0, other.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc and relies on PR_SET_PDEATHSIG")
def test_a_killed_build_leaves_no_dbt_process_holding_the_working_copy(tmp_path):
    """SIGKILL to `evalhouse build` takes its dbt process with it: the next writer opens the working copy at once
    (make crashtest found a dbt process left running, the next ingest meeting DuckDB's lock)."""
    db = tmp_path / "w.duckdb"
    assert main(["--db", str(db), "ingest", str(write_lines(tmp_path / "a.jsonl", [instance_record()]))]) == 0
    scratch = tmp_path / "tmp"  # the killed process cannot remove its scratch folder: keep it out of /tmp
    scratch.mkdir()
    build_process = subprocess.Popen([sys.executable, "-m", "evalhouse.cli", "--db", str(db), "build"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     env={**os.environ, "TMPDIR": str(scratch)})
    deadline = time.monotonic() + 60
    dbt_pids: list[int] = []
    while not dbt_pids and time.monotonic() < deadline and build_process.poll() is None:
        dbt_pids = children(build_process.pid)
        time.sleep(0.05)
    assert dbt_pids, "the build never started its dbt process"
    time.sleep(1.0)  # dbt is under way: parsing, or holding the file
    build_process.send_signal(signal.SIGKILL)
    build_process.wait()
    deadline = time.monotonic() + 10
    while any(running(pid) for pid in dbt_pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(running(pid) for pid in dbt_pids), "the dbt process outlived the killed build"
    duckdb.connect(str(working_copy(db))).close()  # no lock left behind
    assert main(["--db", str(db), "ingest", str(write_lines(tmp_path / "b.jsonl", [instance_record(sample_id="2")]))]) == 0
