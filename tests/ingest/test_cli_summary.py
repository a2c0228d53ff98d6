"""`evalhouse ingest`'s summary of a file whose path held other bytes before: what is still refused, what is in the
warehouse though the file on disk holds it cut off or refused again, and what --fail-on-reject makes of each."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import duckdb

from evalhouse.cli import main
from evalhouse.publish import working_copy
from tests.conftest import instance_record


def _ingest(capsys, db: Path, path: Path, *options: str) -> tuple[int, str]:
    code = main(["ingest", "--db", str(db), "--fail-on-reject", *options, str(path)])
    return code, capsys.readouterr().out


def _ingest_each(capsys, db: Path, path: Path, *contents: str) -> list[int]:
    """Write each of `contents` to `path` in turn and ingest it: the exit codes (a file's history of edits)."""
    codes = []
    for content in contents:
        path.write_text(content)
        codes.append(_ingest(capsys, db, path)[0])
    return codes


def _rows(db: Path, sql: str) -> list[tuple]:
    with duckdb.connect(str(working_copy(db)), read_only=True) as con:
        return con.execute(sql).fetchall()


def _records(n: int) -> list[str]:
    return [json.dumps(instance_record(sample_id=f"s{i}")) for i in range(n)]


def _whole_and_cut_off() -> tuple[str, str]:
    """A file of two records, whole, and with its last line cut off (as a write interrupted, or a copy in progress)."""
    records = _records(2)
    return f"{records[0]}\n{records[1]}\n", f"{records[0]}\n{records[1][:40]}"


def test_a_file_reverted_to_its_cut_off_bytes_after_it_loaded_whole_is_not_still_refused(tmp_path, capsys):
    """Cut off (its last line refused), completed (the line loads: the refusal is loaded later), then reverted to
    the cut-off bytes, which are skipped as loaded before: the line's record is in the warehouse, so the run neither
    counts it still refused nor fails on it, and says that the file on disk holds it cut off again."""
    db, path = tmp_path / "w.duckdb", tmp_path / "f.jsonl"
    whole, cut = _whole_and_cut_off()
    assert _ingest_each(capsys, db, path, cut, whole) == [1, 0]
    path.write_text(cut)

    code, out = _ingest(capsys, db, path)
    assert code == 0
    assert "still refused: an earlier run quarantined" not in out
    assert "1 line(s) of these inputs (cut off) do not load as the files hold them now, but their records are in the " \
           "warehouse" in out
    assert f"already_loaded: {path}: same content already loaded at " in out  # the file's own line says which
    code, out = _ingest(capsys, db, path, "--output", "json")
    answer = json.loads(out)
    (skipped,) = answer["files"]
    assert code == 0
    assert (answer["quarantined"], answer["still_refused"], answer["loaded_before"], answer["cut_off_again"]) == (
        0, 0, 1, 1)
    assert (skipped["status"], skipped["still_refused"], skipped["loaded_before"], skipped["cut_off_again"]) == (
        "already_loaded", 0, 1, 1)
    assert "1 line cut off as the file holds it now is in the warehouse whole" in skipped["message"]
    # The raw tables say the same: one refusal of line 2, and a record of line 2 of the path loaded after it
    # (marts.fct_quarantined_lines marks that refusal loaded later).
    assert _rows(db, "select source_line, error_kind from raw.quarantine") == [(2, "truncated")]
    assert _rows(db, "select count(*) from raw.eee_instance, raw.quarantine where eee_instance.source_line = 2 "
                     "and eee_instance.source_path = quarantine.source_path "
                     "and eee_instance.ingested_at > quarantine.quarantined_at") == [(1,)]


def test_a_copy_cut_inside_a_character_of_several_bytes_names_the_record_loaded_too(tmp_path, capsys):
    """The cut falls inside '€' (e2 82 ac): the line is truncated, and the record the first run loaded from it begins
    with the text before that character (its first two bytes, kept escaped in raw_text, are not compared)."""
    db, path = tmp_path / "w.duckdb", tmp_path / "f.jsonl"
    euro = json.dumps(instance_record(sample_id="s1", input={"raw": "2 € + 3 €?", "reference": ["5 €"]}),
                      ensure_ascii=False).encode()
    first = _records(1)[0].encode()
    path.write_bytes(first + b"\n" + euro + b"\n")
    code, out = _ingest(capsys, db, path, "--output", "json")
    first_run = json.loads(out)["batch_id"]
    path.write_bytes(first + b"\n" + euro[:euro.index("€".encode()) + 2])

    code, out = _ingest(capsys, db, path, "--output", "json")
    (read,) = json.loads(out)["files"]
    assert code == 1
    assert _rows(db, "select source_line, error_kind from raw.quarantine") == [(2, "truncated")]
    assert (f"line 2, cut off (the file ends inside it) and quarantined as truncated, begins the record loaded from "
            f"that line of this path by run {first_run} at ") in read["message"]


def test_a_cut_off_copy_of_a_file_that_loaded_whole_is_quarantined_and_names_the_record_loaded(tmp_path, capsys):
    """Loaded whole, then cut off (a copy reverted, or read while being rewritten): the cut-off last line fails
    validation, so it is quarantined as truncated and --fail-on-reject fails on it, as any cut-off line; the file's
    message adds that it begins the record the first run loaded from that line, so nothing of that record is missing.
    Whole again, then cut off again: both skipped as loaded. The whole bytes hold the line loaded, so that run
    resolves the refusal (raw.quarantine_resolutions); the cut-off bytes then hold it cut off again, not still
    refused, as after a run that loaded the line. A cut-off line that begins another record gets no such note."""
    db, path = tmp_path / "w.duckdb", tmp_path / "f.jsonl"
    records = _records(3)
    cut, whole = f"{records[0]}\n{records[1][:40]}", f"{records[0]}\n{records[1]}\n"
    path.write_text(whole)
    code, out = _ingest(capsys, db, path, "--output", "json")
    assert code == 0
    first_run = json.loads(out)["batch_id"]
    path.write_text(cut)

    code, out = _ingest(capsys, db, path, "--output", "json")
    answer = json.loads(out)
    (read,) = answer["files"]
    assert code == 1
    assert (answer["quarantined"], answer["still_refused"], answer["loaded_before"], answer["cut_off_again"]) == (
        1, 0, 0, 0)
    note = (f"line 2, cut off (the file ends inside it) and quarantined as truncated, begins the record loaded from "
            f"that line of this path by run {first_run} at ")
    assert note in read["message"]
    assert "that record is in the warehouse whole, nothing of it is missing" in read["message"]
    # Nothing loads beside the record: the line is not said to be a record changed in place.
    assert "differ from what this path held" not in read["message"] and read["changed_in_place"] == 0
    assert _rows(db, "select source_line, error_kind from raw.quarantine") == [(2, "truncated")]
    (row,) = _rows(db, "select n_lines, n_accepted, n_quarantined, n_skipped, message from raw.ingest_files "
                       "order by finished_at desc limit 1")
    assert row[:4] == (2, 0, 1, 1) and note in row[4]  # the manifest keeps the note

    path.write_text(whole)
    code, answer = _json(capsys, db, path)
    assert (code, *_counts(answer), answer["completed"]) == (0, "already_loaded", 0, 0, 1, 0, 1)
    assert "1 line cut off before is now complete and loaded: its earlier refusal is resolved" in (
        answer["files"][0]["message"])
    path.write_text(cut)
    code, out = _ingest(capsys, db, path)  # the same cut-off bytes, skipped whole: their refusal was resolved
    assert code == 0
    assert "still refused: an earlier run quarantined" not in out
    assert "1 line(s) of these inputs (cut off) do not load as the files hold them now" in out
    code, answer = _json(capsys, db, path)
    assert (code, answer["still_refused"], answer["resolved"], answer["loaded_before"], answer["cut_off_again"]) == (
        0, 0, 0, 1, 1)

    path.write_text(f"{records[0]}\n{records[2][:-10]}")  # another record cut off at line 2: nothing loaded it
    code, out = _ingest(capsys, db, path, "--output", "json")
    (read,) = json.loads(out)["files"]
    assert code == 1
    assert (json.loads(out)["quarantined"], json.loads(out)["loaded_before"]) == (1, 0)
    assert "begins the record loaded" not in read["message"]


def test_a_line_corrected_then_reverted_to_its_refused_bytes_is_in_the_warehouse_not_still_refused(tmp_path, capsys):
    """A bad line refused, corrected in place (it loads), then the file reverted: the refusal was loaded later, so
    the skipped file fails nothing and the run says the line is in the warehouse, refused as the file holds it."""
    db, path = tmp_path / "w.duckdb", tmp_path / "f.jsonl"
    records = _records(2)
    bad = f"{records[0]}\n{{bad json\n"
    assert _ingest_each(capsys, db, path, bad, f"{records[0]}\n{records[1]}\n") == [1, 0]
    path.write_text(bad)
    code, out = _ingest(capsys, db, path)
    assert code == 0
    assert "1 line(s) of these inputs (refused) do not load as the files hold them now" in out
    code, out = _ingest(capsys, db, path, "--output", "json")
    answer = json.loads(out)
    assert (code, answer["still_refused"], answer["loaded_before"], answer["cut_off_again"]) == (0, 0, 1, 0)


def _json(capsys, db: Path, path: Path, *options: str) -> tuple[int, dict]:
    code, out = _ingest(capsys, db, path, "--output", "json", *options)
    return code, json.loads(out)


def _counts(answer: dict) -> tuple:
    (file,) = answer["files"]
    return (file["status"], answer["quarantined"], answer["still_refused"], answer["resolved"],
            answer["loaded_before"])


def test_a_grown_file_skipped_as_loaded_still_holds_the_refused_line_its_last_load_carried(tmp_path, capsys):
    """Bad line 2 quarantined, then lines appended (line 2 unchanged): the second run loads the new lines and counts
    line 2 still refused without quarantining it twice, so its own quarantine rows are none. The third run of the
    same bytes is skipped as loaded by it, and must still count line 2 refused and fail, as the mart does."""
    db, path = tmp_path / "w.duckdb", tmp_path / "f.jsonl"
    records = _records(4)
    path.write_text(f"{records[0]}\n{{bad json\n")
    assert _ingest(capsys, db, path)[0] == 1
    path.write_text(f"{records[0]}\n{{bad json\n{records[2]}\n{records[3]}\n")
    code, answer = _json(capsys, db, path)
    assert (code, *_counts(answer)) == (1, "loaded", 0, 1, 0, 0)

    code, out = _ingest(capsys, db, path)
    assert code == 1
    assert "1 file(s) already loaded with the same content: nothing added." in out
    assert "1 line(s) of these inputs are still refused" in out
    code, answer = _json(capsys, db, path)
    assert (code, *_counts(answer)) == (1, "already_loaded", 0, 1, 0, 0)
    assert answer["files"][0]["still_refused"] == 1
    # Nothing was quarantined twice, and the one refusal is loaded by no run: marts.fct_quarantined_lines counts it
    # still refused too.
    assert _rows(db, "select source_line, error_kind from raw.quarantine") == [(2, "invalid_json")]
    assert _rows(db, "select count(*) from raw.eee_instance where source_line = 2") == [(0,)]


def test_a_grown_file_skipped_counts_the_lines_it_carried_beside_those_it_quarantined(tmp_path, capsys):
    """Grown with a new bad line beside the old one, written with CRLF endings and gzipped, and a line over the
    record size limit: the second run quarantines the new bad line and carries the two others, all three are
    still refused when the bytes are skipped. Each line is compared as the ingester hashed it (its CR removed, only
    the preview of the line over the limit). A higher limit reads the file again."""
    db, path = tmp_path / "w.duckdb", tmp_path / "f.jsonl.gz"
    records = _records(4)
    long_line = json.dumps({"padding": "x" * 3000})  # over the limit below, which the records are not
    first = [records[0], "{bad json", long_line]
    path.write_bytes(gzip.compress("\r\n".join(first + [""]).encode()))
    assert _ingest(capsys, db, path, "--max-record-bytes", "2000")[0] == 1
    path.write_bytes(gzip.compress("\r\n".join(first + [records[3], "[1, 2]", ""]).encode()))
    code, answer = _json(capsys, db, path, "--max-record-bytes", "2000")
    assert (code, *_counts(answer)) == (1, "loaded", 1, 2, 0, 0)

    code, answer = _json(capsys, db, path, "--max-record-bytes", "2000")
    assert (code, *_counts(answer)) == (1, "already_loaded", 0, 3, 0, 0)
    assert sorted(_rows(db, "select source_line, error_kind from raw.quarantine")) == [
        (2, "invalid_json"), (3, "too_large"), (5, "not_an_object")]
    # A higher limit may load the line carried as too large: the file is read again (the line, read whole, is
    # refused again: it is of no known format).
    code, answer = _json(capsys, db, path, "--max-record-bytes", "5000")
    assert (code, *_counts(answer)) == (1, "already_loaded", 0, 3, 0, 0)
    assert "read again to retry" in answer["files"][0]["message"]


def test_a_grown_file_corrected_then_skipped_is_not_still_refused_and_reverted_says_it_is_loaded(
        tmp_path, capsys, monkeypatch):
    """Bad line 2 carried into the grown file, then corrected in place and loaded (its refusal is resolved): the
    corrected bytes skipped have nothing refused, found without reading the file (the correcting run loaded line
    2). The grown bytes restored are skipped too: line 2 is refused as the file holds it, but its record is in the
    warehouse, so it is not still refused and the run says so."""
    db, path = tmp_path / "w.duckdb", tmp_path / "f.jsonl"
    records = _records(4)
    grown = f"{records[0]}\n{{bad json\n{records[2]}\n{records[3]}\n"
    assert _ingest_each(capsys, db, path, f"{records[0]}\n{{bad json\n", grown) == [1, 1]
    path.write_text(f"{records[0]}\n{records[1]}\n{records[2]}\n{records[3]}\n")
    code, answer = _json(capsys, db, path)
    assert (code, *_counts(answer)) == (0, "loaded", 0, 0, 1, 0)

    def unread(*args):
        raise AssertionError("a skip with no refused line to compare read the file")

    with monkeypatch.context() as patch:
        patch.setattr("ingest.line_hashes.refused_line_sha256s", unread)
        code, answer = _json(capsys, db, path)
    assert (code, *_counts(answer)) == (0, "already_loaded", 0, 0, 0, 0)

    path.write_text(grown)
    code, out = _ingest(capsys, db, path)
    assert code == 0
    assert "still refused: an earlier run quarantined" not in out
    assert "1 line(s) of these inputs (refused) do not load as the files hold them now" in out
    code, answer = _json(capsys, db, path)
    assert (code, *_counts(answer)) == (0, "already_loaded", 0, 0, 0, 1)


def test_a_file_skipped_under_another_name_counts_the_lines_its_load_refused_again(tmp_path, capsys):
    """Refused under --strict (line 1 for its byte-order mark, line 3 for bad JSON), then read under another name
    without it: line 1 loads, line 3 is refused again as before (the same bytes, line and reason) and not quarantined
    twice, so that load's own quarantine rows are none. Skipped at that name, or read at a third, line 3 is still
    refused."""
    db = tmp_path / "w.duckdb"
    records = _records(2)
    content = f"\ufeff{records[0]}\n{records[1]}\n{{bad json\n".encode()
    first, second, third = (tmp_path / f"{name}.jsonl" for name in "abc")
    for path in (first, second, third):
        path.write_bytes(content)
    assert _ingest(capsys, db, first, "--strict")[0] == 1
    code, answer = _json(capsys, db, second)
    assert (code, *_counts(answer)) == (1, "loaded", 0, 1, 1, 0)

    code, answer = _json(capsys, db, second)
    assert (code, *_counts(answer)) == (1, "already_loaded", 0, 1, 0, 0)
    code, answer = _json(capsys, db, third)
    assert (code, *_counts(answer)) == (1, "already_loaded", 0, 1, 0, 0)
    assert sorted(_rows(db, "select source_line, error_kind from raw.quarantine")) == [
        (1, "byte_order_mark"), (3, "invalid_json")]


def test_a_grown_file_whose_carried_refusal_drops_with_strict_is_read_again_without_it(tmp_path, capsys):
    """A first line refused under --strict for its byte-order mark, carried into the grown file: skipped under
    --strict, it is still refused (compared without its mark, as the ingester hashes it). Its reason says to ingest
    without --strict, and that run reads the file again and loads it, though the load that carried it quarantined
    nothing itself."""
    db, path = tmp_path / "w.duckdb", tmp_path / "f.jsonl"
    records = _records(3)
    path.write_bytes(f"\ufeff{records[0]}\n{records[1]}\n".encode())
    assert _ingest(capsys, db, path, "--strict")[0] == 1
    path.write_bytes(f"\ufeff{records[0]}\n{records[1]}\n{records[2]}\n".encode())
    assert _ingest(capsys, db, path, "--strict")[0] == 1
    code, answer = _json(capsys, db, path, "--strict")
    assert (code, *_counts(answer)) == (1, "already_loaded", 0, 1, 0, 0)

    code, answer = _json(capsys, db, path)
    assert (code, *_counts(answer)) == (0, "loaded", 0, 0, 1, 0)
    assert _rows(db, "select count(*) from raw.eee_instance where source_line = 1") == [(1,)]
    code, answer = _json(capsys, db, path)
    assert (code, *_counts(answer)) == (0, "already_loaded", 0, 0, 0, 0)


def _row_counts(db: Path) -> dict[str, int]:
    """Rows in every raw table: what "a run adds nothing" is measured on."""
    tables = [t for (t,) in _rows(db, "select table_name from information_schema.tables where table_schema = 'raw'")]
    return {t: _rows(db, f'select count(*) from raw."{t}"')[0][0] for t in sorted(tables)}


def _resolutions(db: Path) -> list[tuple]:
    return _rows(db, "select resolutions.batch_id, resolutions.source_line, resolutions.format, quarantine.error_kind "
                     "from raw.quarantine_resolutions as resolutions inner join raw.quarantine using (quarantine_id) "
                     "order by resolutions.resolved_at")


def test_a_file_whole_again_after_it_was_cut_off_resolves_the_refusal_and_a_third_run_adds_nothing(tmp_path, capsys):
    """Loaded whole, then cut off (its last line quarantined as truncated), then whole again: those bytes are skipped
    as loaded by the first run, and no record is loaded after the refusal, but the file now holds the line loaded:
    the run resolves the refusal (one row of raw.quarantine_resolutions, its batch), says so, and fails nothing. The
    same bytes once more add no row anywhere and resolve nothing: the refusal is resolved once."""
    db, path = tmp_path / "w.duckdb", tmp_path / "f.jsonl"
    whole, cut = _whole_and_cut_off()
    assert _ingest_each(capsys, db, path, whole, cut) == [0, 1]
    path.write_text(whole)

    code, out = _ingest(capsys, db, path)
    assert code == 0
    assert (f"already_loaded: {path}: same content already loaded at " in out
            and "; 1 line cut off before is now complete and loaded: its earlier refusal is resolved" in out)
    assert "still refused: an earlier run quarantined" not in out
    (resolving_run,) = {batch for batch, *_ in _resolutions(db)}
    assert _resolutions(db) == [(resolving_run, 2, "eee_instance", "truncated")]
    before = _row_counts(db)
    code, answer = _json(capsys, db, path)
    assert (code, *_counts(answer), answer["completed"]) == (0, "already_loaded", 0, 0, 0, 0, 0)
    assert _row_counts(db) == before


def test_a_line_edited_to_bad_json_and_back_resolves_its_refusal_when_the_file_is_skipped(tmp_path, capsys):
    """Line 3 edited to bad JSON (quarantined, the other lines already stored), then back to the bytes the first run
    loaded: skipped whole as loaded by it, the run resolves line 3's refusal ("1 line refused before now loads"), and
    --fail-on-reject passes. Run again, it resolves nothing and adds nothing."""
    db, path = tmp_path / "w.duckdb", tmp_path / "f.jsonl"
    records = _records(4)
    good = "".join(f"{record}\n" for record in records)
    assert _ingest_each(capsys, db, path, good,
                        f"{records[0]}\n{records[1]}\n{{bad json\n{records[3]}\n") == [0, 1]
    path.write_text(good)

    code, answer = _json(capsys, db, path)
    assert (code, *_counts(answer), answer["completed"]) == (0, "already_loaded", 0, 0, 1, 0, 0)
    assert "1 line refused before now loads: its earlier refusal is resolved" in answer["files"][0]["message"]
    assert [row[1:] for row in _resolutions(db)] == [(3, "eee_instance", "invalid_json")]
    before = _row_counts(db)
    code, out = _ingest(capsys, db, path)
    assert code == 0 and "resolved" not in out and "still refused" not in out
    assert _row_counts(db) == before


def test_a_line_edited_back_while_another_line_changed_resolves_its_refusal_as_the_file_is_read(tmp_path, capsys):
    """Line 3 edited to bad JSON, then back to its first text while line 4 changed: new bytes, read again. Line 3's
    record is found already stored (nothing loads from it), line 4 loads beside its earlier record: the run resolves
    line 3's refusal and says so in its summary and the manifest. The same bytes again are skipped and add nothing."""
    db, path = tmp_path / "w.duckdb", tmp_path / "f.jsonl"
    records = _records(5)
    assert _ingest_each(capsys, db, path, "".join(f"{record}\n" for record in records[:4]),
                        f"{records[0]}\n{records[1]}\n{{bad json\n{records[3]}\n") == [0, 1]
    path.write_text(f"{records[0]}\n{records[1]}\n{records[2]}\n{records[4]}\n")

    code, answer = _json(capsys, db, path)
    (read,) = answer["files"]
    assert (code, *_counts(answer), answer["completed"]) == (0, "loaded", 0, 0, 1, 0, 0)
    assert (read["accepted"], read["already_loaded"], read["changed_in_place"]) == (1, 3, 1)
    assert "1 line refused before now loads: its earlier refusal is resolved" in read["message"]
    assert _resolutions(db) == [(answer["batch_id"], 3, "eee_instance", "invalid_json")]
    assert _rows(db, "select count(*) from raw.eee_instance where source_line = 3") == [(1,)]  # not loaded twice
    before = _row_counts(db)
    code, answer = _json(capsys, db, path)
    assert (code, *_counts(answer)) == (0, "already_loaded", 0, 0, 0, 0)
    assert _row_counts(db) == before


def test_a_skip_of_a_file_with_nothing_refused_at_its_path_or_in_its_bytes_writes_nothing_and_reads_no_line(
        tmp_path, capsys, monkeypatch):
    """A refusal in another file is not this one's: the skip of a clean file is a lookup, reading none of its lines
    and writing no row; nor does a file refused nothing at a path whose refusal a later run resolved."""
    db, clean, other = tmp_path / "w.duckdb", tmp_path / "clean.jsonl", tmp_path / "other.jsonl"
    records = _records(3)
    clean.write_text(f"{records[0]}\n{records[1]}\n")
    other.write_text(f"{records[2]}\n{{bad json\n")
    assert _ingest(capsys, db, clean)[0] == 0
    assert _ingest(capsys, db, other)[0] == 1
    before = _row_counts(db)

    def unread(*args):
        raise AssertionError("a skip with no refused line to compare read the file")

    monkeypatch.setattr("ingest.line_hashes.refused_line_sha256s", unread)
    code, answer = _json(capsys, db, clean)
    assert (code, *_counts(answer)) == (0, "already_loaded", 0, 0, 0, 0)
    assert _row_counts(db) == before and _resolutions(db) == []


def test_the_summary_says_quarantined_lines_reach_the_data_quality_page_after_a_build(tmp_path, capsys):
    path = tmp_path / "f.jsonl"
    path.write_text(f"{_records(1)[0]}\nnot json\n")
    code, out = _ingest(capsys, tmp_path / "w.duckdb", path)
    assert code == 1
    # was "... (the Data quality page shows them)", true only once a build has published them
    assert ("Quarantined lines are in raw.quarantine of the working copy with their file, line, JSON pointer and "
            "reason; after `evalhouse build` publishes them, the Data quality page shows them.") in out
