"""Inspect AI logs become records (ingest/readers_inspect.py): what each form yields and where each record sits,
and what happens to what cannot be read: a bare NaN, zstd members with and without the `zstandard` package, a
damaged member, a truncated archive, a truncated `.json` log."""

from __future__ import annotations

import json
import sys
import zipfile
from pathlib import Path

import pytest

from ingest.readers_inspect import is_json_log, read_eval_log, read_json_log
from ingest.sources import SourceError, read_records
from tests.conftest import FIXTURES
from tests.harness.archives import DEFLATED, ZSTD, members_of, rewrite, write_archive

INSPECT = FIXTURES / "inspect_ai"
STREAMING = INSPECT / "log_streaming.eval"
LIMIT = 16 * 1024 * 1024


def _parsed(records) -> list[dict]:
    return [json.loads(r.data) for r in records]


def _log_as_json(archive: Path, out: Path) -> Path:
    """The `.json` form of an `.eval` log, as `inspect log convert` writes it: the header's members, then samples
    (in id and epoch order), then reductions."""
    members = dict(members_of(archive))
    document = json.loads(members["header.json"])
    samples = sorted((json.loads(data) for name, data in members.items() if name.startswith("samples/")),
                     key=lambda s: (s["id"], s["epoch"]))
    document["samples"] = samples
    document["reductions"] = json.loads(members["reductions.json"])
    out.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return out


# --- .eval archives ----------------------------------------------------------------------------------------------


def test_an_eval_archive_gives_its_header_and_one_record_per_sample_epoch():
    records = list(read_eval_log(STREAMING, LIMIT))
    with zipfile.ZipFile(STREAMING) as archive:
        names = sorted(info.filename for info in archive.infolist())
    # line = the member's place in the sorted member list; the member's bytes as they are.
    assert [(r.line, names[r.line - 1]) for r in records] == [
        (3, "header.json"), (5, "samples/1_epoch_1.json"), (6, "samples/1_epoch_2.json"),
        (7, "samples/2_epoch_1.json"), (8, "samples/2_epoch_2.json")]
    with zipfile.ZipFile(STREAMING) as archive:
        assert [r.data for r in records] == [archive.read(names[r.line - 1]) for r in records]
        assert [r.offset for r in records] == [archive.getinfo(names[r.line - 1]).header_offset for r in records]


def test_an_unfinished_log_is_read_with_the_header_written_first(tmp_path):
    members = [(n, d, DEFLATED) for n, d in members_of(STREAMING) if n not in ("header.json", "reductions.json")]
    records = list(read_eval_log(write_archive(tmp_path / "running.eval", members), LIMIT))
    header = json.loads(records[0].data)
    assert "results" not in header and header["eval"]["task"] == "popularity"  # _journal/start.json
    assert len(records) == 5


def test_a_bare_nan_becomes_null_in_the_record_and_nowhere_else(tmp_path):
    path = rewrite(STREAMING, tmp_path / "nan.eval",
                   samples__1_epoch_1_json=(b'"value": "I"', b'"value": NaN'),
                   header_json=(b'"value": 0.25', b'"value": NaN'))
    records = {r.line: r for r in read_eval_log(path, LIMIT)}
    sample = json.loads(records[5].data)
    assert sample["scores"]["match"] == {"value": None, "answer": "No"}
    assert json.loads(records[3].data)["results"]["scores"][0]["metrics"]["stderr"]["value"] is None
    assert records[5].data.count(b"NaN") == 0 and b'"No"' in records[5].data


def test_zstd_members_are_read_with_the_zstandard_package(tmp_path):
    pytest.importorskip("zstandard", reason="zstandard is not installed: the quarantine test below covers this case")
    path = rewrite(STREAMING, tmp_path / "zstd.eval", method=ZSTD)
    assert {info.compress_type for info in zipfile.ZipFile(path).infolist()} == {ZSTD}
    assert _parsed(read_eval_log(path, LIMIT)) == _parsed(read_eval_log(STREAMING, LIMIT))


def test_zstd_members_without_the_package_are_quarantined_each_with_the_reason(tmp_path, warehouse, monkeypatch):
    monkeypatch.setitem(sys.modules, "zstandard", None)  # `import zstandard` now fails
    path = rewrite(STREAMING, tmp_path / "zstd.eval", method=ZSTD)
    summary = warehouse.ingest(path)
    assert summary.accepted == 0
    rows = warehouse.quarantine()
    assert [(r["source_line"], r["format"], r["error_kind"], r["error_pointer"]) for r in rows] == [
        (3, "inspect_log", "schema", "/inspect_unreadable_member/problem"),
        *((line, "inspect_sample", "schema", "/inspect_unreadable_member/problem") for line in (5, 6, 7, 8))]
    assert all("zstandard==0.25.0" in r["error_message"] and "ingest the file again" in r["error_message"]
               for r in rows)
    note = json.loads(rows[1]["raw_text"])["inspect_unreadable_member"]
    assert note["member"] == "samples/1_epoch_1.json" and note["problem"] == "zstd_unavailable"


def test_zstd_members_load_when_the_file_is_ingested_again_after_installing_zstandard(tmp_path, warehouse,
                                                                                       monkeypatch):
    pytest.importorskip("zstandard", reason="the retry needs the package")
    path = rewrite(STREAMING, tmp_path / "zstd.eval", method=ZSTD)
    with monkeypatch.context() as without:
        without.setitem(sys.modules, "zstandard", None)
        assert warehouse.ingest(path).quarantined == 5
        again = warehouse.ingest(path)  # still not installed: read again, nothing new, nothing added
        assert again.files[0].status == "already_loaded" and len(warehouse.quarantine()) == 5
    summary = warehouse.ingest(path)  # installed, as the reason advises
    assert (summary.files[0].status, summary.quarantined) == ("loaded", 0)
    assert warehouse.scalar("select count(*) from raw.inspect_sample") == 4
    assert warehouse.ingest(path).files[0].status == "already_loaded"


def test_a_log_copied_under_another_name_and_read_again_adds_no_row_twice(tmp_path, warehouse, monkeypatch):
    """A log whose members were refused is read again wherever it lies (a retry); under another name, its rows
    loaded before (the same bytes and place: the same record_id) and its refusals are not added twice."""
    pytest.importorskip("zstandard", reason="the retry needs the package")
    path = rewrite(STREAMING, tmp_path / "zstd.eval", method=ZSTD)
    copy = tmp_path / "elsewhere" / "copy.eval"
    copy.parent.mkdir()
    copy.write_bytes(path.read_bytes())
    with monkeypatch.context() as without:
        without.setitem(sys.modules, "zstandard", None)
        assert warehouse.ingest(path).quarantined == 5
        before = warehouse.row_counts()
        again = warehouse.ingest(copy)
        assert again.files[0].status == "already_loaded" and warehouse.row_counts() == before
    assert warehouse.ingest(copy).quarantined == 0  # installed: the copy's members load, once
    assert warehouse.scalar("select count(*) from raw.inspect_sample") == 4
    for table in ("inspect_sample", "inspect_log", "quarantine"):
        key = "quarantine_id" if table == "quarantine" else "record_id"
        assert warehouse.scalar(f"select count(*) - count(distinct {key}) from raw.{table}") == 0, table


def test_a_damaged_member_is_quarantined_and_the_others_load(tmp_path, warehouse):
    path = rewrite(STREAMING, tmp_path / "damaged.eval", method=DEFLATED)
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("samples/2_epoch_1.json")
    start = info.header_offset + 30 + len(info.filename)
    data[start + 10:start + 40] = bytes(30)  # inside its deflate stream
    path.write_bytes(bytes(data))
    warehouse.ingest(path)
    assert warehouse.scalar("select count(*) from raw.inspect_sample") == 3
    (row,) = warehouse.quarantine()
    assert row["source_line"] == 7 and row["format"] == "inspect_sample"
    assert "damaged" in row["error_message"] and "copy the log again" in row["error_message"]


def test_a_member_over_the_size_limit_keeps_a_preview_and_is_quarantined_as_too_large(tmp_path, warehouse):
    records = {r.line: r for r in read_eval_log(STREAMING, 5000)}
    with zipfile.ZipFile(STREAMING) as archive:
        big = archive.getinfo("samples/1_epoch_1.json")
    assert records[5].oversized and records[5].size == big.file_size and len(records[5].data) <= big.file_size
    assert not records[3].oversized  # header.json is under the limit
    warehouse.ingest(STREAMING, max_record_bytes=5000)
    assert {r["error_kind"] for r in warehouse.quarantine()} == {"too_large"}


def test_a_truncated_archive_is_unreadable_with_what_to_do(tmp_path, warehouse):
    path = tmp_path / "cut.eval"
    path.write_bytes(STREAMING.read_bytes()[:5000])
    with pytest.raises(SourceError) as raised:
        list(read_records(path))
    assert raised.value.kind == "not_zip"
    warehouse.ingest(path)
    (row,) = warehouse.quarantine()
    assert row["error_kind"] == "not_zip" and "copy it again" in row["error_message"]
    assert warehouse.scalar("select status from raw.ingest_files") == "unreadable"


def test_a_zip_that_is_not_an_inspect_log_loads_nothing(tmp_path, warehouse):
    path = write_archive(tmp_path / "other.eval", [("data.json", b'{"a": 1}', DEFLATED)])
    warehouse.ingest(path)
    (row,) = warehouse.quarantine()
    assert row["error_kind"] == "not_inspect_log"


# --- .json logs --------------------------------------------------------------------------------------------------


def test_a_json_log_streams_its_samples_then_gives_its_header():
    path = INSPECT / "log_read_sample.json"
    records = list(read_json_log(path, LIMIT))
    assert [r.line for r in records] == [1, 2]  # the one sample, then the header (samples + 1)
    document = json.loads(path.read_bytes())
    assert json.loads(records[0].data) == document["samples"][0]
    assert path.read_bytes()[records[0].offset:records[0].offset + records[0].size] == records[0].data
    header = json.loads(records[1].data)
    assert header == {k: v for k, v in document.items() if k != "samples"}


def test_both_forms_of_one_log_give_the_same_records(tmp_path):
    as_json = _log_as_json(STREAMING, tmp_path / "log_streaming.json")
    from_eval, from_json = _parsed(read_eval_log(STREAMING, LIMIT)), _parsed(read_json_log(as_json, LIMIT))
    assert from_json[:-1] == from_eval[1:]  # the samples, in the same order
    assert {k: v for k, v in from_json[-1].items() if k != "reductions"} == from_eval[0]


def test_json_logs_are_told_from_other_json_documents_by_their_first_members(tmp_path):
    assert is_json_log(INSPECT / "log_read_sample.json")
    for path in (*(FIXTURES / "every_eval_ever").glob("*.json"), *(FIXTURES / "lm_eval").rglob("*.json")):
        assert not is_json_log(path), path
    other = tmp_path / "other.json"
    other.write_text('{"version": 2, "eval": "not an object"}')
    assert not is_json_log(other)
    array = tmp_path / "array.json"
    array.write_text('[{"version": 2, "eval": {}}]')
    assert not is_json_log(array)


def test_a_truncated_json_log_keeps_what_was_read_and_says_so(tmp_path, warehouse):
    source = (INSPECT / "log_read_sample.json").read_bytes()
    path = tmp_path / "cut.json"
    path.write_bytes(source[:source.index(b'"reductions"') - 200])  # inside the last sample
    warehouse.ingest(path)
    kinds = sorted((r["source_line"], r["error_kind"]) for r in warehouse.quarantine())
    assert kinds == [(1, "truncated"), (3, "truncated")]  # the cut sample; then the file: "ends before..."
    assert all("ingest it again" in r["error_message"] for r in warehouse.quarantine())  # each says what to do
    assert warehouse.scalar("select count(*) from raw.inspect_log") == 1  # the header written before the cut
