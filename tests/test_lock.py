"""The warehouse's locks: one writer at a time, and readers of the working copy that a writer waits out, never
exits busy over, and that cannot starve a writer."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest

import evalhouse.lock
from evalhouse.lock import WarehouseBusy, reader_lock, writer_lock


@pytest.fixture
def writer_waits(monkeypatch):
    """An event set when a writer finds readers reading and starts waiting for them."""
    waiting = threading.Event()
    real = evalhouse.lock._try_lock

    def try_lock(*args):
        got = real(*args)
        if not got and args[2] == evalhouse.lock._READING:
            waiting.set()
        return got

    monkeypatch.setattr(evalhouse.lock, "_try_lock", try_lock)
    return waiting


def _in_thread(target) -> threading.Thread:
    thread = threading.Thread(target=target)
    thread.start()
    return thread


def test_a_writer_in_another_process_makes_a_second_writer_exit_busy_saying_who(tmp_path):
    db = tmp_path / "w.duckdb"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys; from pathlib import Path; from evalhouse.lock import writer_lock\n"
                               f"with writer_lock(Path({str(db)!r}), 'build'):\n"
                               "    print('held', flush=True); sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(WarehouseBusy, match=rf"another ingest or build is running since .*: build \(pid "
                                                rf"{holder.pid}\)"):
            with writer_lock(db, "ingest"):
                pass
        with pytest.raises(WarehouseBusy, match="an ingest or build"):  # and a reader keeps off
            with reader_lock(db):
                pass
    finally:
        holder.communicate("")
    with writer_lock(db, "ingest"):  # its end let the lock go
        pass


def test_readers_share_the_working_copy(tmp_path):
    db = tmp_path / "w.duckdb"
    with reader_lock(db), reader_lock(db):
        pass


def test_no_reader_starts_while_a_writer_waits_for_the_readers_before_it_nor_while_it_writes(tmp_path, writer_waits):
    db = tmp_path / "w.duckdb"
    reading, release_reader, writing, release_writer = (threading.Event() for _ in range(4))

    def read():
        with reader_lock(db):
            reading.set()
            release_reader.wait(30)

    def write():
        with writer_lock(db, "build"):
            writing.set()
            release_writer.wait(30)

    reader = _in_thread(read)
    assert reading.wait(30)
    writer = _in_thread(write)
    try:
        assert writer_waits.wait(30)
        assert not writing.is_set()
        # A stream of readers would starve the writer if they could start now: each one is told busy instead.
        with pytest.raises(WarehouseBusy, match="holds .* or is about to"):
            with reader_lock(db):
                pass
        release_reader.set()
        assert writing.wait(30)
        with pytest.raises(WarehouseBusy):
            with reader_lock(db):
                pass
    finally:
        release_reader.set()
        release_writer.set()
        reader.join()
        writer.join()
    with reader_lock(db):
        pass


def test_a_reader_that_does_not_let_go_makes_the_writer_busy_saying_so_and_lets_the_next_writer_in(
        tmp_path, monkeypatch):
    db = tmp_path / "w.duckdb"
    monkeypatch.setattr(evalhouse.lock, "READERS_GRACE_SECONDS", 0)  # waited out at once: the reader is stuck
    with reader_lock(db):
        with pytest.raises(WarehouseBusy, match="a reader of .*w.duckdb's working copy .* has held it"):
            with writer_lock(db, "build"):
                pass
        # The writer that gave up holds nothing: the next one meets the reader again, not a writer.
        with pytest.raises(WarehouseBusy, match="a reader of"):
            with writer_lock(db, "ingest"):
                pass
    with writer_lock(db, "ingest"):
        pass
