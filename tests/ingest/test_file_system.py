"""Inputs the file system shapes, not their records: a name that is not UTF-8, a file or folder this user may not
read, a symbolic link (to a folder, back up the tree, or to nothing), a file appended to or rewritten while it is
read. Each loads, or is named as left out with why, and the rest of the run goes on.

Unreadable paths are simulated (the `unreadable` fixture): the tests run as root in CI, and root reads a mode-000
file and lists a mode-000 folder."""

from __future__ import annotations

import builtins
import errno
import hashlib
import io
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import duckdb
import pytest

from evalhouse.cli import main
from evalhouse.publish import working_copy
from ingest import pipeline
from ingest.path_text import path_from_text, path_text
from ingest.pipeline import IngestOptions, ingest_paths
from tests.conftest import LM_EVAL_SAMPLES, instance_record, write_lines


def _ingest(capsys, root: Path, *args: str) -> tuple[int, str, str]:
    code = main(["ingest", "--db", str(root / "w.duckdb"), "--landing", str(root / "landing"), *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _rows(root: Path, sql: str, *, db: Path | None = None) -> list[tuple]:
    """Rows of the working copy `evalhouse ingest` wrote under `root`, or of `db`, as ingest_paths wrote it."""
    with duckdb.connect(str(db or working_copy(root / "w.duckdb")), read_only=True) as con:
        return con.execute(sql).fetchall()


def _record(name: str) -> dict:
    return instance_record(sample_id=name)


@pytest.fixture
def unreadable(monkeypatch) -> Callable[..., None]:
    """`unreadable(path, ...)`: opening one of these files or listing one of these folders fails with
    PermissionError, as it does for a user without read permission (and not for root, whom CI runs as)."""
    closed: set[str] = set()
    real_open, real_scandir = io.open, os.scandir

    def refuse(path) -> None:
        if isinstance(path, (str, bytes, os.PathLike)) and os.path.realpath(os.fsdecode(path)) in closed:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fsdecode(path))

    def guarded_open(file, *args, **kwargs):
        refuse(file)
        return real_open(file, *args, **kwargs)

    def guarded_scandir(path="."):
        refuse(path)
        return real_scandir(path)

    monkeypatch.setattr(io, "open", guarded_open)
    monkeypatch.setattr(builtins, "open", guarded_open)
    monkeypatch.setattr(os, "scandir", guarded_scandir)

    def close(*paths: Path) -> None:
        closed.update(os.path.realpath(p) for p in paths)

    return close


# -- a name that is not UTF-8 ----------------------------------------------------------------------------------------

def test_a_file_name_that_is_not_utf8_loads_under_its_name_with_the_byte_escaped_and_once(tmp_path, capsys):
    folder = tmp_path / "share"
    write_lines(folder / "a.jsonl", [_record("a")])
    odd = Path(os.fsdecode(os.fsencode(folder) + b"/x\xe9y.jsonl"))  # Latin-1 "xéy.jsonl", from a Windows share
    write_lines(odd, [_record("b")])
    write_lines(folder / "z.jsonl", [_record("c")])
    code, out, err = _ingest(capsys, tmp_path, "--output", "json", str(folder))
    assert code == 0, err  # was 4, "a bug in evalhouse": a str with surrogates sent to DuckDB; z.jsonl never loaded
    shown = f"{folder.resolve()}/x\\xe9y.jsonl"
    summary = json.loads(out)
    assert summary["accepted"] == 3 and [f["path"] for f in summary["files"]][1] == shown
    assert _rows(tmp_path, "select source_path from raw.eee_instance where source_path like '%y.jsonl'") == [(shown,)]
    assert _rows(tmp_path, "select source_path from raw.ingest_files where source_path like '%y.jsonl'") == [(shown,)]
    code, out, err = _ingest(capsys, tmp_path, str(folder))  # the table too prints the name readably
    assert code == 0 and "3 file(s) already loaded with the same content: nothing added." in out, out + err
    assert path_text(odd) == shown and path_from_text(shown) == odd.resolve()  # a rebuild finds the file again


# -- unreadable files and folders, symbolic links ------------------------------------------------------------------

def test_an_unreadable_file_is_left_out_with_why_and_the_files_after_it_load(tmp_path, capsys, unreadable):
    folder = tmp_path / "data"
    write_lines(folder / "a_secret.jsonl", [_record("a")])
    write_lines(folder / "ok.jsonl", [_record("b")])
    unreadable(folder / "a_secret.jsonl")
    code, out, err = _ingest(capsys, tmp_path, str(folder))
    assert code == 0, err  # was 4, with advice about writing; ok.jsonl, after it, never loaded
    assert f"left out: {(folder / 'a_secret.jsonl').resolve()}: cannot be read (Permission denied)" in out
    assert "give this user read permission" in out
    assert _rows(tmp_path, "select count(*) from raw.eee_instance") == [(1,)]
    code, out, _ = _ingest(capsys, tmp_path, "--fail-on-reject", str(folder))
    assert code == 1 and "1 file(s) left out look like data" in out  # its records are not in the warehouse


def test_an_unreadable_folder_is_left_out_with_why(tmp_path, capsys, unreadable):
    folder = tmp_path / "data"
    write_lines(folder / "ok.jsonl", [_record("a")])
    write_lines(folder / "closed" / "b.jsonl", [_record("b")])
    unreadable(folder / "closed")
    code, out, _ = _ingest(capsys, tmp_path, "--fail-on-reject", "--output", "json", str(folder))
    summary = json.loads(out)
    assert code == 1 and summary["accepted"] == 1  # was 0, the folder skipped without a word
    (item,) = summary["left_out"]
    assert Path(item["path"]) == (folder / "closed").resolve() and item["looks_like_data"] is True
    assert item["reason"].startswith("a folder that cannot be listed (Permission denied)")


def test_a_file_that_cannot_be_read_when_its_turn_comes_is_left_out_and_the_run_goes_on(tmp_path, unreadable):
    """Readable when the folder was searched, not when it is read (its permissions changed, it was moved away)."""
    folder = tmp_path / "data"
    write_lines(folder / "a.jsonl", [_record("a")])
    write_lines(folder / "b.jsonl", [_record("b")])
    write_lines(folder / "c.jsonl", [_record("c")])
    summary = ingest_paths([folder], tmp_path / "w.duckdb", IngestOptions(workers=0),
                           loaded=lambda outcome: unreadable(folder / "b.jsonl"))
    assert [f.path.name for f in summary.files] == ["a.jsonl", "c.jsonl"] and summary.accepted == 2
    (item,) = summary.left_out
    assert item.path == (folder / "b.jsonl").resolve() and item.looks_like_data
    assert item.reason.startswith("cannot be read (Permission denied)")


def test_a_dangling_symlink_is_left_out_naming_what_it_points_to(tmp_path, capsys):
    folder = tmp_path / "tree"
    write_lines(folder / "ok.jsonl", [_record("a")])
    (folder / "dangling.jsonl").symlink_to(tmp_path / "nonexistent")
    (folder / ".#ok.jsonl").symlink_to("root@host.1234:1700000000")  # an editor's lock file: clutter, not said
    code, out, _ = _ingest(capsys, tmp_path, "--fail-on-reject", str(folder))
    assert code == 1  # was 0: skipped without a word
    assert (f"left out: {folder.resolve()}/dangling.jsonl: a symbolic link to {tmp_path / 'nonexistent'}, which "
            "does not exist") in out
    assert ".#ok.jsonl" not in out


def test_a_symlinked_folder_is_searched_and_a_loop_is_searched_once(tmp_path, capsys):
    other = tmp_path / "otherdata"
    write_lines(other / "b.jsonl", [_record("b")])
    folder = tmp_path / "tree"
    write_lines(folder / "x" / "a.jsonl", [_record("a")])
    (folder / "x" / "linked_dir").symlink_to(other)
    (folder / "x" / "up").symlink_to(folder)  # a loop
    code, out, err = _ingest(capsys, tmp_path, "--fail-on-reject", "--output", "json", str(folder))
    summary = json.loads(out)
    assert code == 0, err
    assert sorted(Path(f["path"]) for f in summary["files"]) == sorted([(folder / "x" / "a.jsonl").resolve(),
                                                                         (other / "b.jsonl").resolve()])
    assert summary["accepted"] == 2 and summary["left_out"] == []  # was 1: linked_dir not read, not said
    only_link = tmp_path / "onlylink"
    only_link.mkdir()
    (only_link / "linked_dir").symlink_to(other)
    code, out, err = _ingest(capsys, tmp_path, str(only_link))
    assert code == 0 and "already loaded" in out, err  # was 2, "the folder holds no file"


# -- a file appended to, or rewritten, while it is read ---------------------------------------------------------------

@pytest.fixture
def written_after_hashing(monkeypatch) -> Iterator[dict[Path, bytes]]:
    """{path: bytes}: right after the ingest hashes `path`, `bytes` are appended to it (a harness still writing)."""
    appends: dict[Path, bytes] = {}
    real = pipeline.file_sha256

    def hash_then_write(path: Path) -> tuple[str, int]:
        checksum = real(path)
        more = appends.pop(path.resolve(), None)
        if more is not None:
            with path.open("ab") as handle:
                handle.write(more)
        return checksum

    monkeypatch.setattr(pipeline, "file_sha256", hash_then_write)
    yield appends


def test_a_file_appended_to_while_it_is_read_loads_the_bytes_it_hashed_and_the_rest_next_time(
        tmp_path, written_after_hashing):
    path = write_lines(tmp_path / "g.jsonl", [_record(f"s{i}") for i in range(3)])
    hashed = path.read_bytes()
    written_after_hashing[path.resolve()] = b"".join(json.dumps(_record(f"t{i}")).encode() + b"\n" for i in range(2))
    db = tmp_path / "w.duckdb"
    assert ingest_paths([path], db, IngestOptions(workers=0)).accepted == 3  # was 5
    sha = hashlib.sha256(hashed).hexdigest()
    manifest = "select file_sha256, file_bytes, n_lines from raw.ingest_files"
    assert _rows(tmp_path, manifest, db=db) == [(sha, len(hashed), 3)]
    assert _rows(tmp_path, "select distinct file_sha256 from raw.eee_instance", db=db) == [(sha,)]
    again = ingest_paths([path], db, IngestOptions(workers=0))
    assert again.accepted == 2  # the appended lines, as for any file appended to
    assert _rows(tmp_path, "select max(source_line), count(*) from raw.eee_instance", db=db) == [(5, 5)]


def test_a_document_rewritten_while_it_is_read_is_left_out_and_loads_next_time(tmp_path, written_after_hashing):
    """A `.json` array is one document, not lines: read after it changed, it is not what was hashed, so nothing of
    it loads this time, and it says so."""
    path = tmp_path / "a.json"
    path.write_text(json.dumps([_record("a")]))
    written_after_hashing[path.resolve()] = b"\n"
    db = tmp_path / "w.duckdb"
    summary = ingest_paths([path], db, IngestOptions(workers=0))
    assert summary.files == [] and summary.accepted == 0
    (item,) = summary.left_out
    assert item.looks_like_data and "changed while it was read" in item.reason and "ingest it again" in item.reason
    assert ingest_paths([path], db, IngestOptions(workers=0)).accepted == 1


def test_an_lm_eval_samples_file_appended_to_while_it_is_read_loads_the_lines_it_hashed(
        tmp_path, written_after_hashing):
    """lm-eval's samples files are JSON Lines written line by line as the harness runs: read as far as their
    checksum went, as other JSON Lines are, not left out."""
    lines = LM_EVAL_SAMPLES.read_bytes().splitlines(keepends=True)
    path = tmp_path / "run" / LM_EVAL_SAMPLES.name
    path.parent.mkdir()
    path.write_bytes(b"".join(lines[:6]))
    written_after_hashing[path.resolve()] = b"".join(lines[6:])
    db = tmp_path / "w.duckdb"
    summary = ingest_paths([path], db, IngestOptions(workers=0))
    assert summary.left_out == [] and summary.accepted == 6
    assert ingest_paths([path], db, IngestOptions(workers=0)).accepted == len(lines) - 6
