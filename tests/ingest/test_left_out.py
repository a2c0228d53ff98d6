"""A folder or glob given to `evalhouse ingest` never drops a file silently: each file it does not read is named with
why and what to do (the table and the JSON's `left_out`), clutter such as `.DS_Store` aside; a folder with nothing
to read exits 2 as a glob matching nothing does; an `.ndjson` export is read as the JSON Lines it is."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from evalhouse.cli import main
from ingest.left_out import left_out, quietly_ignored
from ingest.sources import SUPPORTED_SUFFIXES, InputError, find_inputs
from tests.conftest import eval_form_record, write_lines


def _forms(n: int, start: int = 0) -> list[dict]:
    return [eval_form_record(eval_id=f"00000000-0000-4000-8000-{i:012d}") for i in range(start, start + n)]


def _lines(records: list[dict]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def _mixed_folder(root: Path) -> Path:
    """The reviewer's folder: FORMS.JSONL, forms.ndjson and forms.json.gz, 3 records each."""
    folder = root / "exports"
    write_lines(folder / "FORMS.JSONL", _forms(3))
    (folder / "forms.ndjson").write_bytes(_lines(_forms(3, 3)))
    (folder / "forms.json.gz").write_bytes(gzip.compress(_lines(_forms(3, 6))))
    return folder


def _ingest(capsys, root: Path, *args: str) -> tuple[int, str, str]:
    code = main(["ingest", "--db", str(root / "w.duckdb"), "--landing", str(root / "landing"), *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_folder_ingest_names_each_file_it_leaves_out_with_why_in_the_table(tmp_path, capsys):
    folder = _mixed_folder(tmp_path)
    code, out, _ = _ingest(capsys, tmp_path, str(folder))
    assert code == 0
    assert "evalhouse ingest: 2 file(s), 1 left out (not read)" in out  # was "1 file(s)" and nothing else
    assert f"left out: {(folder / 'forms.json.gz').resolve()}: gzip-compressed JSON" in out
    assert "rename it to end in .jsonl.gz" in out and "`gunzip`" in out  # what to do
    assert "eval_form             2          6" in out  # FORMS.JSONL and forms.ndjson: 3 records each


def test_the_json_summary_lists_the_files_left_out_with_path_and_reason(tmp_path, capsys):
    folder = _mixed_folder(tmp_path)
    code, out, _ = _ingest(capsys, tmp_path, "--output", "json", str(folder))
    summary = json.loads(out)
    assert code == 0
    assert sorted(Path(f["path"]).name for f in summary["files"]) == ["FORMS.JSONL", "forms.ndjson"]
    (item,) = summary["left_out"]
    assert Path(item["path"]) == (folder / "forms.json.gz").resolve() and item["looks_like_data"] is True
    assert "gzip-compressed JSON" in item["reason"]


def test_fail_on_reject_fails_on_a_data_file_left_out_but_not_on_a_readme_beside_the_data(tmp_path, capsys):
    folder = _mixed_folder(tmp_path)
    code, out, _ = _ingest(capsys, tmp_path, "--fail-on-reject", str(folder))
    assert code == 1 and "1 file(s) left out look like data" in out
    (folder / "forms.json.gz").unlink()
    (folder / "README.md").write_text("# exports\n")
    code, out, _ = _ingest(capsys, tmp_path, "--fail-on-reject", str(folder))
    assert code == 0  # said, but a README is no data whose records are missing
    assert f"left out: {(folder / 'README.md').resolve()}: evalhouse reads only" in out


def test_an_ndjson_export_alone_in_a_folder_loads_as_json_lines(tmp_path, capsys):
    folder = tmp_path / "nightly"
    (folder / "forms.ndjson").parent.mkdir()
    (folder / "forms.ndjson").write_bytes(_lines(_forms(5)))
    (folder / "more.ndjson.gz").write_bytes(gzip.compress(_lines(_forms(2, 5))))
    code, out, _ = _ingest(capsys, tmp_path, "--fail-on-reject", "--output", "json", str(folder))
    summary = json.loads(out)
    assert code == 0 and summary["accepted"] == 7 and summary["left_out"] == []  # was "0 file(s)", exit 0


@pytest.mark.parametrize("contents", [[], [".DS_Store", ".hidden.jsonl.swp"]], ids=["empty", "only-hidden"])
def test_a_folder_with_nothing_to_read_exits_2_like_a_glob_matching_nothing(tmp_path, capsys, contents):
    folder = tmp_path / "landing-today"
    folder.mkdir()
    for name in contents:
        (folder / name).write_text("x")
    code, out, err = _ingest(capsys, tmp_path, "--fail-on-reject", str(folder))
    assert code == 2 and out == ""  # was "0 file(s)" and exit 0, even with --fail-on-reject
    assert f"{folder}: the folder holds no file (hidden files aside)" in err and ".jsonl" in err


def test_a_folder_holding_only_files_evalhouse_does_not_read_exits_2_naming_them(tmp_path, capsys):
    folder = tmp_path / "tables"
    folder.mkdir()
    (folder / "forms.csv").write_text("eval_id,score\n")
    (folder / "forms.jsonl.zst").write_bytes(b"\x28\xb5\x2f\xfd")
    code, _, err = _ingest(capsys, tmp_path, str(folder), str(_mixed_folder(tmp_path)))
    assert code == 2  # each path must name an input, as each glob must, before anything is read
    assert "the folder holds no" in err and "nothing was read; it leaves out 2 file(s)" in err
    assert "forms.csv: a table (.csv)" in err and "forms.jsonl.zst: JSON records compressed with zstd" in err


def test_a_glob_names_the_files_it_matches_but_does_not_read(tmp_path):
    folder = _mixed_folder(tmp_path)
    inputs = find_inputs([str(folder / "forms.*")])
    assert [p.name for p in inputs.files] == ["forms.ndjson"]
    assert [item.path.name for item in inputs.left_out] == ["forms.json.gz"]
    with pytest.raises(InputError, match="the pattern matches no .* file, so nothing was read; it leaves out 1"):
        find_inputs([str(folder / "*.gz")])


def test_hidden_files_and_editor_backups_are_ignored_quietly_but_data_looking_files_are_said(tmp_path):
    write_lines(tmp_path / "a.jsonl", _forms(1))
    for name in (".DS_Store", ".a.jsonl.swp", "a.jsonl~", "#a.jsonl#", "Thumbs.db", ".git/objects/ab/cdef"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    for name in ("b.json.gz", "c.jsonl.zst", "d.csv", "e.parquet", "f.jsonl.tmp", "g.jsonlines", "notes.txt"):
        (tmp_path / name).write_text("x")
    inputs = find_inputs([str(tmp_path)])
    assert [p.name for p in inputs.files] == ["a.jsonl"]
    said = {item.path.name: item.looks_like_data for item in inputs.left_out}
    assert said == {"b.json.gz": True, "c.jsonl.zst": True, "d.csv": True, "e.parquet": True, "f.jsonl.tmp": True,
                    "g.jsonlines": True, "notes.txt": False}


def test_hidden_files_with_a_readable_ending_are_still_read_as_before(tmp_path):
    write_lines(tmp_path / ".cache" / "x.jsonl", _forms(1))
    write_lines(tmp_path / "a.jsonl", _forms(1, 1))
    assert {p.name for p in find_inputs([str(tmp_path)]).files} == {"a.jsonl", "x.jsonl"}  # nothing lost


@pytest.mark.parametrize(("name", "says"), [
    ("forms.json.gz", "rename it to end in .jsonl.gz; otherwise decompress it (`gunzip`) to .json"),
    ("forms.jsonl.zst", "compressed with zstd (`zstd -d`)"),
    ("forms.jsonl.bz2", "compressed with bzip2 (`bunzip2`)"),
    ("forms.tsv", "export it as JSON Lines (.jsonl, one record per line)"),
    ("forms.jsonl.part", "its name ends in '.part' after .jsonl"),
    ("forms.jsonl.1", "rename it to end in .jsonl"),
    ("model.evaluation_notes.md", "evalhouse reads only .jsonl.gz"),  # ".eval" inside a name is not an ending
])
def test_each_reason_says_what_to_do(tmp_path, name, says):
    assert says in left_out(tmp_path / name, SUPPORTED_SUFFIXES).reason


def test_a_file_named_directly_says_why_it_is_not_read(tmp_path):
    (tmp_path / "forms.json.gz").write_bytes(gzip.compress(b"{}"))
    with pytest.raises(InputError, match=r"unsupported file type; gzip-compressed JSON"):
        find_inputs([str(tmp_path / "forms.json.gz")])


def test_quietly_ignored_looks_at_folders_below_the_one_given_only(tmp_path):
    inside = tmp_path / ".work" / "exports"
    assert not quietly_ignored(inside / "forms.csv", inside)  # a hidden folder above the one given is the user's
    assert quietly_ignored(inside / ".git" / "HEAD", inside)
