"""Reading input: which files a path names, and how each kind of file becomes records with the right positions."""

from __future__ import annotations

import gzip
import io
import json

import pytest

from ingest.sources import InputError, RawRecord, _ArraySplitter, expand_paths, read_records
from tests.conftest import instance_record, write_lines


def test_folders_are_searched_recursively_for_supported_files_only(tmp_path):
    write_lines(tmp_path / "a.jsonl", [{}])
    write_lines(tmp_path / "sub" / "deeper" / "b.jsonl.gz", [{}])
    (tmp_path / "sub" / "c.json").write_text("{}")
    (tmp_path / "sub" / "notes.txt").write_text("ignore me")
    found = expand_paths([str(tmp_path)])
    assert [p.name for p in found] == ["a.jsonl", "c.json", "b.jsonl.gz"]


def test_globs_and_repeated_paths_give_each_file_once(tmp_path):
    write_lines(tmp_path / "x1.jsonl", [{}])
    write_lines(tmp_path / "x2.jsonl", [{}])
    found = expand_paths([str(tmp_path / "x*.jsonl"), str(tmp_path / "x1.jsonl")])
    assert [p.name for p in found] == ["x1.jsonl", "x2.jsonl"]


@pytest.mark.parametrize(
    ("arg", "message"),
    [("missing.jsonl", "no such file or folder"), ("nothing*.jsonl", "matches no"), ("notes.txt", "unsupported file type")],
)
def test_paths_that_name_no_input_are_a_clear_error(tmp_path, arg, message):
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(InputError, match=message):
        expand_paths([str(tmp_path / arg)])


def test_json_document_holding_one_record_is_line_1(tmp_path):
    path = tmp_path / "one.json"
    path.write_text(json.dumps({"a": 1}, indent=2))
    records = list(read_records(path))
    assert [(r.line, json.loads(r.data)) for r in records] == [(1, {"a": 1})]


def test_json_array_elements_are_numbered_by_position_from_1(tmp_path):
    path = tmp_path / "many.json"
    elements = [{"a": "x,y]}"}, {"b": ['"', "\\", "[{"]}, {"c": {"d": [1, 2, {"e": "}"}]}}]
    path.write_text(json.dumps(elements, indent=1))
    records = list(read_records(path))
    assert [r.line for r in records] == [1, 2, 3]
    assert [json.loads(r.data) for r in records] == elements


def test_json_array_is_split_across_chunk_boundaries(monkeypatch):
    # A tiny chunk size forces every element, string and escape to straddle reads.
    monkeypatch.setattr("ingest.sources._READ_CHUNK", 7)
    elements = [{"text": 'a "quoted" \\ value, with [brackets]'}, [1, 2, 3], "plain", 42, {"nested": {"deep": [{}]}}]
    data = json.dumps(elements).encode()
    handle = io.BytesIO(data)
    head = handle.read(7)
    records = list(_ArraySplitter(handle, head, 1_000_000).records())
    assert [json.loads(r.data) for r in records] == elements
    assert all(data[r.offset:r.offset + r.size] == r.data for r in records)


def test_an_oversized_array_element_keeps_only_a_preview_and_the_rest_still_splits(monkeypatch):
    monkeypatch.setattr("ingest.sources._READ_CHUNK", 1024)
    elements = [{"a": 1}, {"big": "x" * 50_000}, {"b": 2}]
    data = json.dumps(elements).encode()
    handle = io.BytesIO(data)
    records = list(_ArraySplitter(handle, handle.read(1024), 10_000).records())
    assert [r.line for r in records] == [1, 2, 3]
    assert records[1].oversized and records[1].size > 50_000 and len(records[1].data) < records[1].size
    assert json.loads(records[2].data) == {"b": 2}


def test_an_empty_array_has_no_records(tmp_path):
    path = tmp_path / "empty.json"
    path.write_text("[ ]")
    assert list(read_records(path)) == []


def test_gzip_lines_are_read_with_offsets_in_the_decompressed_stream(tmp_path):
    lines = [json.dumps(instance_record(sample_id=str(i))).encode() for i in range(3)]
    path = tmp_path / "x.jsonl.gz"
    path.write_bytes(gzip.compress(b"\n".join(lines) + b"\n"))
    records = list(read_records(path))
    assert [r.line for r in records] == [1, 2, 3]
    assert records[1].offset == len(lines[0]) + 1
    assert [r.data for r in records] == lines


def test_last_line_without_newline_is_marked_unterminated(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b": 2}')
    records = list(read_records(path))
    assert [(r.line, r.unterminated) for r in records] == [(1, False), (2, True)]


def test_a_line_over_the_limit_is_skipped_in_bounded_memory(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_bytes(b'{"a": 1}\n' + b"x" * 5000 + b'\n{"b": 2}\n')
    records = list(read_records(path, max_record_bytes=1000))
    assert [r.line for r in records] == [1, 2, 3]
    big: RawRecord = records[1]
    assert big.oversized and big.size == 5000 and big.offset == 9
    assert records[2].data == b'{"b": 2}' and records[2].offset == 9 + 5001
