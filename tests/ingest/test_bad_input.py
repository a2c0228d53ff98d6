"""Bad input never crashes a run: each kind of broken line gets its own clear reason, and the rest still loads."""

from __future__ import annotations

import gzip
import json

import duckdb
import pytest

from tests.conftest import FIXTURES, LM_EVAL_SAMPLES, Warehouse, eval_form_record, instance_record, write_lines


def _good(n: int) -> list[dict]:
    return [instance_record(sample_id=f"s{i}") for i in range(n)]


def _only_quarantined(warehouse) -> dict:
    rows = warehouse.quarantine()
    assert len(rows) == 1, rows
    return rows[0]


def test_empty_file_is_recorded_as_empty_and_loads_nothing(warehouse, tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    summary = warehouse.ingest(path)
    assert summary.files[0].status == "empty"
    assert warehouse.rows("select status, message, n_lines from raw.ingest_files") == [
        ("empty", "the file holds no records", 0)
    ]
    assert warehouse.quarantine() == []


def test_blank_lines_are_skipped_and_counted_not_quarantined(warehouse, tmp_path):
    good = _good(2)
    path = write_lines(tmp_path / "blanks.jsonl", [good[0], "", "   ", "\t", good[1], ""])
    warehouse.ingest(path)
    assert warehouse.scalar("select count(*) from raw.eee_instance") == 2
    assert warehouse.scalar("select n_blank from raw.ingest_files") == 4
    assert [r[0] for r in warehouse.rows("select source_line from raw.eee_instance order by 1")] == [1, 5]
    assert warehouse.quarantine() == []


@pytest.fixture(params=["jsonl", "json"])
def bom_file(tmp_path, request):
    good = _good(2)
    path = tmp_path / f"bom.{request.param}"
    if request.param == "jsonl":
        path.write_bytes(b"\xef\xbb\xbf" + json.dumps(good[0]).encode() + b"\n" + json.dumps(good[1]).encode() + b"\n")
    else:  # an array: the mark is before its `[`
        path.write_bytes(b"\xef\xbb\xbf" + json.dumps(good, indent=1).encode())
    return path


def test_utf8_byte_order_mark_is_removed_and_counted_as_a_repair_of_the_first_record(warehouse, bom_file):
    summary = warehouse.ingest(bom_file)
    assert warehouse.scalar("select count(*) from raw.eee_instance") == 2
    # The stored text is the record without the mark (it is not part of the record).
    assert not warehouse.scalar("select record_json from raw.eee_instance where source_line = 1").startswith("\ufeff")
    # One record was repaired, and every count says so: the CLI's "repaired" column, the manifest's n_repaired
    # (fct_ingested_files) and the repairs table (fct_compatibility_repairs).
    assert summary.by_format()["eee_instance"].repaired == 1
    assert warehouse.scalar("select n_repaired from raw.ingest_files") == 1
    assert warehouse.rows("select format, repair, n_records from raw.ingest_repairs") == [
        ("eee_instance", "utf8_bom_removed", 1)
    ]
    assert warehouse.rows("select source_line, repairs from raw.eee_instance order by 1") == [
        (1, '["utf8_bom_removed"]'), (2, None)
    ]
    # Offsets still point into the file as it is, mark included.
    assert warehouse.scalar("select byte_offset from raw.eee_instance where source_line = 1") == (
        bom_file.read_bytes().index(b"{"))


def test_strict_refuses_the_record_behind_a_byte_order_mark_and_repairs_nothing(warehouse, bom_file):
    summary = warehouse.ingest(bom_file, strict=True)
    row = _only_quarantined(warehouse)
    assert (row["error_kind"], row["source_line"]) == ("byte_order_mark", 1)
    assert "starts with a UTF-8 byte-order mark" in row["error_message"] and "--strict" in row["error_message"]
    assert warehouse.rows("select source_line from raw.eee_instance") == [(2,)]
    assert warehouse.rows("select * from raw.ingest_repairs") == []
    assert warehouse.scalar("select n_repaired from raw.ingest_files") == 0
    assert summary.by_format()["unparsed"].quarantined == 1


# Files whose own reader makes their records (rather than the lines or elements as written), each with the table of
# its first record: the mark is theirs to hand on, not to drop.
READER_FILES = {
    "lm_eval_samples": (LM_EVAL_SAMPLES, "lm_eval_sample"),
    "inspect_json_log": (FIXTURES / "inspect_ai" / "log_read_sample.json", "inspect_sample"),
    "adp_suite_yaml": (FIXTURES / "specs" / "acme-eval-suite.yaml", "adp_suite"),
}


@pytest.fixture(params=sorted(READER_FILES))
def bom_reader_file(tmp_path, request):
    """(a copy of the reader's fixture with a byte-order mark in front, the same without it, first record's table)"""
    source, table = READER_FILES[request.param]
    # Folders of the same name: an lm-eval record names its file's folder.
    marked, plain = tmp_path / "marked" / "run" / source.name, tmp_path / "plain" / "run" / source.name
    for path, prefix in ((marked, b"\xef\xbb\xbf"), (plain, b"")):
        path.parent.mkdir(parents=True)
        path.write_bytes(prefix + source.read_bytes())
    return marked, plain, table


def test_every_reader_counts_a_removed_byte_order_mark_as_a_repair(tmp_path, bom_reader_file):
    marked, plain, table = bom_reader_file
    warehouse, without = Warehouse(tmp_path / "marked.duckdb"), Warehouse(tmp_path / "plain.duckdb")
    summary = warehouse.ingest(marked)
    without.ingest(plain)
    assert summary.quarantined == 0
    assert sum(counts.repaired for counts in summary.by_format().values()) == 1
    assert warehouse.scalar("select n_repaired from raw.ingest_files") == 1
    assert warehouse.rows("select format, repair, n_records from raw.ingest_repairs") == [
        (table, "utf8_bom_removed", 1)]
    first = f"select record_json, repairs, byte_offset from raw.{table} where source_line = 1"
    (text, repairs, offset), = warehouse.rows(first)
    (plain_text, _, plain_offset), = without.rows(first)
    assert (text, repairs) == (plain_text, '["utf8_bom_removed"]')  # the mark is not part of the record
    assert offset == plain_offset + 3  # and the offset still points into the file as it is, mark included


def test_every_reader_refuses_the_record_behind_a_byte_order_mark_under_strict(warehouse, bom_reader_file):
    marked, plain, table = bom_reader_file
    summary = warehouse.ingest(marked, strict=True)
    row = _only_quarantined(warehouse)
    assert (row["error_kind"], row["source_line"]) == ("byte_order_mark", 1)
    assert summary.by_format()["unparsed"].quarantined == 1
    assert warehouse.rows(f"select * from raw.{table} where source_line = 1") == []
    assert warehouse.rows("select * from raw.ingest_repairs") == []


def test_a_file_refused_for_its_byte_order_mark_loads_without_strict_as_unedited(warehouse, bom_reader_file):
    # The mark is the file's, not the record's: the refused line and the record it is without the mark are the
    # same line, so dropping --strict loads it as retried, not as an edit beside an earlier record.
    marked, plain, table = bom_reader_file
    warehouse.ingest(marked, strict=True)
    (outcome,) = warehouse.ingest(marked).files
    assert (outcome.status, outcome.n_changed) == ("loaded", 0)
    assert "differ" not in (outcome.message or "")
    assert warehouse.rows(f"select repairs from raw.{table} where source_line = 1") == [('["utf8_bom_removed"]',)]
    assert "differ" not in (warehouse.scalar("select message from raw.ingest_files order by finished_at desc "
                                             "limit 1") or "")


def test_a_byte_order_mark_refused_by_an_older_ingest_is_no_edit_either(warehouse, bom_file):
    # Before the refused line was hashed without the mark, raw_sha256 covered it; such a row still matches.
    warehouse.ingest(bom_file, strict=True)
    with duckdb.connect(str(warehouse.path)) as con:
        assert con.execute("update raw.quarantine set raw_sha256 = sha256(raw_text) "
                           "where raw_sha256 <> sha256(raw_text)").fetchone()[0] == 1
    (outcome,) = warehouse.ingest(bom_file).files
    assert (outcome.status, outcome.accepted, outcome.n_changed) == ("loaded", 1, 0)


def test_a_record_loaded_without_strict_is_not_refused_again_for_its_mark_when_the_file_grows(warehouse, tmp_path):
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(_good(1)[0]).encode() + b"\n")
    warehouse.ingest(path)
    with path.open("ab") as handle:
        handle.write(json.dumps(instance_record(sample_id="appended")).encode() + b"\n")
    (outcome,) = warehouse.ingest(path, strict=True).files
    assert (outcome.accepted, outcome.quarantined, outcome.n_unchanged, outcome.n_changed) == (1, 0, 1, 0)
    assert warehouse.quarantine() == []


def test_invalid_utf8_is_quarantined_with_the_offending_byte(warehouse, tmp_path):
    good = _good(2)
    bad = json.dumps(instance_record(sample_id="x")).encode().replace(b'"x"', b'"\xff\xfe"')
    path = write_lines(tmp_path / "utf8.jsonl", [good[0], bad, good[1]])
    warehouse.ingest(path)
    row = _only_quarantined(warehouse)
    assert row["error_kind"] == "invalid_utf8"
    assert row["source_line"] == 2
    assert "0xff" in row["error_message"] and "UTF-8" in row["error_message"]
    assert "\\xff" in row["raw_text"]  # the original bytes are kept, escaped
    assert warehouse.scalar("select count(*) from raw.eee_instance") == 2


def test_truncated_last_line_is_quarantined_as_truncated(warehouse, tmp_path):
    good = _good(2)
    text = json.dumps(good[0]) + "\n" + json.dumps(good[1]) + "\n" + json.dumps(instance_record())[:40]
    path = tmp_path / "truncated.jsonl"
    path.write_text(text)
    warehouse.ingest(path)
    row = _only_quarantined(warehouse)
    assert row["error_kind"] == "truncated"
    assert row["source_line"] == 3
    assert "ends in the middle of this record" in row["error_message"]
    assert "write the file again in full and ingest it again" in row["error_message"]  # what to do
    assert warehouse.scalar("select count(*) from raw.eee_instance") == 2


def test_nan_and_infinity_are_refused_as_non_finite_numbers(warehouse, tmp_path):
    good = _good(2)
    nan = json.dumps(instance_record(sample_id="nan")).replace('"score": 1.0', '"score": NaN')
    inf = json.dumps(instance_record(sample_id="inf")).replace('"score": 1.0', '"score": -Infinity')
    path = write_lines(tmp_path / "nan.jsonl", [good[0], nan, inf, good[1]])
    warehouse.ingest(path)
    rows = warehouse.quarantine()
    assert [(r["source_line"], r["error_kind"]) for r in rows] == [(2, "non_finite_number"), (3, "non_finite_number")]
    assert "NaN" in rows[0]["error_message"] and "not a JSON number" in rows[0]["error_message"]
    assert "Infinity" in rows[1]["error_message"]
    assert [r["error_pointer"] for r in rows] == ["/evaluation/score"] * 2  # was NULL: the pointer says where
    assert all("write null (or a string) instead and ingest the file again" in r["error_message"] for r in rows)
    assert warehouse.scalar("select count(*) from raw.eee_instance") == 2


def test_duplicate_keys_are_refused_with_the_pointer_of_the_repeated_key(warehouse, tmp_path):
    good = _good(2)
    dup = json.dumps(instance_record(sample_id="dup")).replace('"is_correct": true', '"is_correct": true, "is_correct": false')
    path = write_lines(tmp_path / "dup.jsonl", [good[0], dup, good[1]])
    warehouse.ingest(path)
    row = _only_quarantined(warehouse)
    assert row["error_kind"] == "duplicate_key"
    assert row["error_pointer"] == "/evaluation/is_correct"
    assert "appears more than once" in row["error_message"]
    assert "keep the one value meant (or rename the other key) and ingest the file again" in row["error_message"]


def test_duplicate_keys_are_found_when_the_text_puts_spaces_before_colons(warehouse, tmp_path):
    dup = '{"schema_version" : "0.3.0", "schema_version" : "0.3.0"}'
    path = write_lines(tmp_path / "dup_spaced.jsonl", [dup])
    warehouse.ingest(path)
    row = _only_quarantined(warehouse)
    assert (row["error_kind"], row["error_pointer"]) == ("duplicate_key", "/schema_version")


def test_a_json_array_where_an_object_was_expected_is_refused(warehouse, tmp_path):
    good = _good(2)
    path = write_lines(tmp_path / "array.jsonl", [good[0], json.dumps([good[1], good[1]]), good[1]])
    warehouse.ingest(path)
    row = _only_quarantined(warehouse)
    assert row["error_kind"] == "not_an_object"
    assert "found an array" in row["error_message"]
    assert warehouse.scalar("select count(*) from raw.eee_instance") == 2


def test_a_50_mb_line_is_quarantined_unread_and_the_next_lines_load(warehouse, tmp_path):
    good = _good(2)
    huge = json.dumps(instance_record(sample_id="huge", input={"raw": "x" * (50 * 1024 * 1024), "reference": ["5"]}))
    path = write_lines(tmp_path / "huge.jsonl", [good[0], huge, good[1]])
    warehouse.ingest(path)
    row = _only_quarantined(warehouse)
    assert row["error_kind"] == "too_large"
    assert "50.0 MB" in row["error_message"] and "--max-record-bytes" in row["error_message"]
    assert row["raw_text_truncated"] is True
    assert len(row["raw_text"]) == 64 * 1024  # a preview; the file keeps the rest at byte_offset
    assert row["byte_offset"] == len(json.dumps(good[0])) + 1
    assert [r[0] for r in warehouse.rows("select source_line from raw.eee_instance order by 1")] == [1, 3]


def test_deeply_nested_json_is_refused_as_too_deep(warehouse, tmp_path):
    good = _good(2)
    deep = '{"a": ' + "[" * 5000 + "]" * 5000 + "}"
    path = write_lines(tmp_path / "deep.jsonl", [good[0], deep, good[1]])
    warehouse.ingest(path)
    row = _only_quarantined(warehouse)
    assert row["error_kind"] == "too_deep"
    assert "nested deeper than 1024 levels" in row["error_message"]
    assert warehouse.scalar("select count(*) from raw.eee_instance") == 2


def test_nesting_within_the_parser_limit_but_beyond_python_recursion_never_crashes(warehouse, tmp_path):
    # 1000 levels parse, but re-serialising and Python's recursion limit give up earlier: a reason, not a crash.
    deep = '{"schema_version": "0.3.0", "metadata": {"x": ' + "[" * 1000 + "]" * 1000 + "}}"
    path = write_lines(tmp_path / "deep1000.jsonl", [deep, _good(1)[0]])
    summary = warehouse.ingest(path)
    assert summary.files[0].status == "loaded"
    assert warehouse.scalar("select count(*) from raw.eee_instance") == 1
    assert len(warehouse.quarantine()) == 1


def test_a_gz_file_that_is_not_gzip_is_refused_whole_with_a_hint(warehouse, tmp_path):
    path = write_lines(tmp_path / "plain.jsonl.gz", _good(2))
    summary = warehouse.ingest(path)
    assert summary.files[0].status == "unreadable"
    row = _only_quarantined(warehouse)
    assert row["error_kind"] == "not_gzip"
    assert row["source_line"] is None
    assert "not a gzip file" in row["error_message"] and "rename it to .jsonl" in row["error_message"]


def test_a_damaged_gzip_stream_keeps_the_lines_before_the_damage(warehouse, tmp_path):
    data = gzip.compress(b"".join(json.dumps(r).encode() + b"\n" for r in _good(200)))
    path = tmp_path / "damaged.jsonl.gz"
    path.write_bytes(data[: len(data) // 2])
    summary = warehouse.ingest(path)
    assert summary.files[0].status == "loaded"
    loaded = warehouse.scalar("select count(*) from raw.eee_instance")
    kinds = {r["error_kind"] for r in warehouse.quarantine()}
    assert 0 < loaded < 200
    assert "corrupt_gzip" in kinds


@pytest.mark.parametrize("ending", [",\n", "", ",", "\n  "], ids=["comma-newline", "element", "comma", "blank"])
def test_a_json_array_cut_between_elements_keeps_them_and_says_the_file_was_cut(warehouse, tmp_path, ending):
    # A streaming writer killed between elements: every element read is whole, and only the missing `]` says
    # that the rest of the array is gone.
    first, second = (json.dumps(r) for r in _good(2))
    path = tmp_path / "cut.json"
    path.write_text(f"[{first},\n{second}{ending}")
    summary = warehouse.ingest(path)
    assert summary.files[0].status == "loaded"
    assert warehouse.scalar("select count(*) from raw.eee_instance") == 2
    row = _only_quarantined(warehouse)
    assert (row["error_kind"], row["source_line"], row["format"]) == ("truncated", 3, None)
    assert "not closed after element 2" in row["error_message"]
    assert "cut short" in row["error_message"] and "ingest it again" in row["error_message"]
    assert warehouse.rows("select n_accepted, n_quarantined, message is not null from raw.ingest_files") == [
        (2, 1, True)
    ]


def test_a_json_array_cut_inside_an_element_is_only_that_elements_truncated_row(warehouse, tmp_path):
    first, second = (json.dumps(r) for r in _good(2))
    path = tmp_path / "cut.json"
    path.write_text(f"[{first},\n{second[:40]}")
    warehouse.ingest(path)
    row = _only_quarantined(warehouse)
    assert (row["error_kind"], row["source_line"]) == ("truncated", 2)
    assert warehouse.scalar("select count(*) from raw.eee_instance") == 1


@pytest.mark.parametrize("text", ["", "caf\u00e9 \u00e9\u00e9", "\U0001f600 \u4e2d\u6587"],
                         ids=["ascii", "latin", "wide"])
def test_json_lines_saved_as_json_is_refused_saying_to_rename_it(warehouse, tmp_path, text):
    """pandas' to_json(lines=True) and Hugging Face's to_json write JSON Lines; named .json, the file is read as one
    document and fails where the second line starts. The reason says what the file is and what to do. With text
    other than ASCII before the place, the parser's place (in characters) was taken for a byte, and the advice to
    rename was lost for "fix the record's text there"."""
    records = _good(3)
    for record in records:
        record["input"]["raw"] = f"{text} {record['input']['raw']}"
    path = tmp_path / "records.json"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    warehouse.ingest(path)
    row = _only_quarantined(warehouse)
    assert row["error_kind"] == "invalid_json"
    assert "one value per line (JSON Lines)" in row["error_message"]
    assert "rename it to .jsonl and ingest it again" in row["error_message"]
    assert "a second JSON value starts on line 2, column 1" in row["error_message"]


def test_a_pretty_json_document_cut_short_is_truncated_not_a_record_split_over_lines(warehouse, tmp_path):
    """A document is the whole file: ending before its value does, the file was cut off. It was told it was a
    record split over several lines, which JSON Lines does not allow, though a .json document may."""
    text = json.dumps(_good(1)[0], indent=2)
    path = tmp_path / "cut_document.json"
    path.write_text(text[: len(text) // 2])
    warehouse.ingest(path)
    row = _only_quarantined(warehouse)
    assert row["error_kind"] == "truncated"
    assert "the file ends in the middle of this record" in row["error_message"]


def test_an_error_in_a_pretty_json_document_is_placed_by_line_and_column(warehouse, tmp_path):
    """Where a document has lines of its own, "column 5767" counted bytes over them all: the place is its line and
    the column within it, as an editor shows them."""
    lines = json.dumps(_good(1)[0], indent=2).splitlines()
    lines[3] = lines[3].replace('": ', '": nulx, "was": ', 1)
    path = tmp_path / "bad_document.json"
    path.write_text("\n".join(lines) + "\n")
    warehouse.ingest(path)
    row = _only_quarantined(warehouse)
    assert row["error_kind"] == "invalid_json"
    assert row["error_message"].startswith("invalid JSON at line 4, column "), row["error_message"]


def test_a_json_array_that_is_only_its_opening_bracket_is_unreadable(warehouse, tmp_path):
    path = tmp_path / "bracket.json"
    path.write_text("[\n")
    summary = warehouse.ingest(path)
    assert summary.files[0].status == "unreadable"
    assert "not closed before its first element" in _only_quarantined(warehouse)["error_message"]


def test_an_unknown_shape_is_quarantined_as_such_not_guessed(warehouse, tmp_path):
    path = write_lines(tmp_path / "unknown.jsonl", [{"foo": 1, "bar": [2]}, _good(1)[0]])
    warehouse.ingest(path)
    row = _only_quarantined(warehouse)
    assert row["error_kind"] == "unknown_format"
    assert row["format"] is None
    assert "bar, foo" in row["error_message"] and "--format" in row["error_message"]


def test_an_unsupported_schema_version_is_named_with_the_supported_ones(warehouse, tmp_path):
    path = write_lines(tmp_path / "version.jsonl", [instance_record(schema_version="0.9.0")])
    warehouse.ingest(path)
    row = _only_quarantined(warehouse)
    assert (row["error_kind"], row["error_pointer"]) == ("unsupported_version", "/schema_version")
    assert "'0.9.0'" in row["error_message"] and "0.2.0, 0.2.2, 0.3.0" in row["error_message"]
    assert "write it in /schema_version, otherwise evalhouse needs this version's schema" in row["error_message"]


def test_crlf_line_endings_load_and_keep_editor_line_numbers(warehouse, tmp_path):
    path = tmp_path / "crlf.jsonl"
    path.write_bytes(b"".join(json.dumps(r).encode() + b"\r\n" for r in _good(3)))
    warehouse.ingest(path)
    assert [r[0] for r in warehouse.rows("select source_line from raw.eee_instance order by 1")] == [1, 2, 3]
    assert warehouse.quarantine() == []


def test_a_number_too_large_for_a_double_is_refused_as_non_finite(warehouse, tmp_path):
    huge = json.dumps(instance_record(sample_id="huge")).replace('"score": 1.0', '"score": 1e400')
    path = write_lines(tmp_path / "huge_number.jsonl", [huge, _good(1)[0]])
    warehouse.ingest(path)
    row = _only_quarantined(warehouse)
    assert row["error_kind"] == "non_finite_number" and "too large for a double" in row["error_message"]
    assert row["error_pointer"] == "/evaluation/score"


@pytest.mark.parametrize(("text", "pointer"), [
    ('{"a": NaN}', "/a"),
    ('{"a": [1, {"b": "x,]}[\\"", "c/d": -Infinity}]}', "/a/1/c~1d"),  # brackets and commas in strings
    ('{"a~b": {"c/d": NaN}}', "/a~0b/c~1d"),  # RFC 6901: '~' is written '~0', then '/' '~1'
    ('{"a": {"b": [0, 1]}, "c": [NaN]}', "/c/0"),
    ('NaN', ""),  # the whole record
    ('{"caf\u00e9 \u00e9\u00e9\u00e9": "\U0001f600", "a": [NaN]}', "/a/0"),  # the parser's place is in characters
])
def test_a_non_finite_number_gets_the_json_pointer_of_its_value(warehouse, tmp_path, text, pointer):
    path = tmp_path / "nan.jsonl"
    path.write_text(text + "\n", encoding="utf-8")
    warehouse.ingest(path)
    row = _only_quarantined(warehouse)
    assert (row["error_kind"], row["error_pointer"]) == ("non_finite_number", pointer)


def test_text_that_is_not_json_is_refused_saying_to_fix_the_line_and_ingest_again(warehouse, tmp_path):
    path = write_lines(tmp_path / "bad.jsonl", ['{"a": nulx}', '{"a": 1', _good(1)[0]])
    warehouse.ingest(path)
    literal, early = warehouse.quarantine()
    assert literal["error_kind"] == early["error_kind"] == "invalid_json"
    assert literal["error_message"].startswith("invalid JSON at column 7: invalid literal, expected 'null'")
    assert "fix the record's text there and ingest the file again" in literal["error_message"]  # what to do
    assert "ingest the file again" in early["error_message"] and "one line" in early["error_message"]


@pytest.mark.parametrize("strict", [False, True], ids=["repairs", "strict"])
@pytest.mark.parametrize(("field", "value", "advice"), [
    ("helpfulness", "4", 'expected integer, found string "4"; write the number without quotes: 4'),
    ("helpfulness", 4.5, "expected integer, found number 4.5; write a whole number"),  # 4.0 is an integer
    ("helpfulness", None, "expected integer, found null; write a value (integer), or leave the field out where"),
])
def test_a_schema_refusal_says_what_to_write_instead_with_or_without_strict(warehouse, tmp_path, strict, field,
                                                                            value, advice):
    record = eval_form_record()
    record["universal"][field].update(score=value, rationale="a rationale, as a score of 3 or lower needs")
    path = write_lines(tmp_path / "forms.jsonl", [record])
    warehouse.ingest(path, strict=strict)
    row = _only_quarantined(warehouse)
    assert (row["error_kind"], row["error_pointer"]) == ("schema", f"/universal/{field}/score")
    assert row["error_message"].startswith(advice)


def test_a_keyed_record_edited_to_bad_json_and_back_resolves_its_refusals_but_a_conflict_in_its_place_does_not(
        warehouse, tmp_path):
    """Eval forms (records with an id): line 2 edited to bad JSON (refused), then to a record reusing its eval_id with
    other content (refused as a conflict: the line holds no record the warehouse has, so the first refusal stays
    open), then back to the bytes first loaded: skipped whole, and both refusals of line 2 are resolved by that run,
    one line resolved. A run of the same bytes again resolves nothing and adds nothing."""
    forms = [eval_form_record() for _ in range(3)]
    path = tmp_path / "forms.jsonl"
    write_lines(path, forms)
    assert warehouse.ingest(path).accepted == 3
    write_lines(path, [forms[0], "{bad json", forms[2]])
    assert warehouse.ingest(path).quarantined == 1
    write_lines(path, [forms[0], {**forms[1], "created_at": "2026-11-17T10:04:00Z"}, forms[2]])
    conflict = warehouse.ingest(path)
    assert (conflict.quarantined, conflict.resolved) == (1, 0)
    assert warehouse.rows("select count(*) from raw.quarantine_resolutions") == [(0,)]

    write_lines(path, forms)
    reverted = warehouse.ingest(path)
    assert (reverted.files[0].status, reverted.resolved, reverted.still_refused) == ("already_loaded", 1, 0)
    assert warehouse.rows(
        "select quarantine.error_kind, resolutions.source_line, resolutions.format, resolutions.batch_id "
        "from raw.quarantine_resolutions as resolutions inner join raw.quarantine using (quarantine_id) "
        "order by 1") == [("conflict", 2, "eval_form", reverted.batch_id), ("invalid_json", 2, "eval_form",
                                                                            reverted.batch_id)]
    before = warehouse.row_counts()
    assert warehouse.ingest(path).resolved == 0
    assert warehouse.row_counts() == before


def test_a_last_line_cut_inside_a_character_of_several_bytes_is_truncated_not_invalid_utf8(warehouse, tmp_path):
    """A file cut off mid-write can end inside a character of several bytes ('€' is e2 82 ac): the line is cut off,
    not mis-encoded. The same bytes inside a line that ends with a newline are invalid UTF-8."""
    good = json.dumps(_good(1)[0]).encode()
    euro = json.dumps(instance_record(input={"raw": "2 € + 3 €?", "reference": ["5 €"]}), ensure_ascii=False).encode()
    cut = euro[:euro.index("€".encode()) + 2]
    (tmp_path / "cut.jsonl").write_bytes(good + b"\n" + cut)
    (tmp_path / "bad.jsonl").write_bytes(good + b"\n" + cut + b"\n")
    warehouse.ingest(tmp_path / "cut.jsonl", tmp_path / "bad.jsonl")
    rows = {row["source_path"]: row for row in warehouse.quarantine()}
    cut_row, bad_row = rows[str(tmp_path / "cut.jsonl")], rows[str(tmp_path / "bad.jsonl")]
    assert (cut_row["error_kind"], cut_row["source_line"]) == ("truncated", 2)
    assert "ends in the middle of this record" in cut_row["error_message"]
    assert cut_row["raw_text"].endswith("2 \\xe2\\x82")  # the bytes kept, escaped
    assert (bad_row["error_kind"], bad_row["source_line"]) == ("invalid_utf8", 2)


def _accounting(warehouse) -> tuple[int, int]:
    """(n_lines, n_accepted + n_quarantined + n_skipped) of the last manifest row."""
    return warehouse.rows("select n_lines, n_accepted + n_quarantined + n_skipped from raw.ingest_files "
                          "order by finished_at desc limit 1")[0]


def test_a_gz_refused_whole_or_in_part_counts_its_unreadable_rest_as_one_of_its_lines(warehouse, tmp_path):
    not_gzip = write_lines(tmp_path / "plain.jsonl.gz", _good(2))
    (outcome,) = warehouse.ingest(not_gzip).files
    assert (outcome.n_lines, outcome.quarantined) == (1, 1)
    assert _accounting(warehouse) == (1, 1)
    data = gzip.compress(b"".join(json.dumps(r).encode() + b"\n" for r in _good(3)))
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(data[: len(data) - 40])
    (outcome,) = warehouse.ingest(cut).files
    assert outcome.n_lines == outcome.accepted + outcome.quarantined
    n_lines, counted = _accounting(warehouse)
    assert n_lines == counted


def test_a_gzip_stream_cut_inside_a_line_keeps_the_text_decompressed_of_it_and_says_what_to_do(warehouse, tmp_path):
    lines = [json.dumps(r).encode() for r in _good(3)]
    data = gzip.compress(b"\n".join(lines) + b"\n")
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(data[: len(data) - 12])  # the end marker and the end of the last line's deflate data
    warehouse.ingest(path)
    (row,) = [r for r in warehouse.quarantine() if r["error_kind"] == "corrupt_gzip"]
    loaded = warehouse.scalar("select count(*) from raw.eee_instance")
    assert row["source_line"] == loaded + 1
    assert row["raw_text"] and lines[loaded].decode().startswith(row["raw_text"])
    assert "cut short" in row["error_message"] and "compress its text again" in row["error_message"]


def test_bytes_after_the_end_of_the_gzip_data_are_named_as_such_and_every_line_loads(warehouse, tmp_path):
    lines = [json.dumps(r).encode() for r in _good(3)]
    path = tmp_path / "padded.jsonl.gz"
    path.write_bytes(gzip.compress(b"\n".join(lines)) + b"garbage after the data")  # the last line unterminated
    summary = warehouse.ingest(path)
    assert summary.accepted == 3
    (row,) = warehouse.quarantine()
    assert row["error_kind"] == "corrupt_gzip"
    assert "bytes after the end of its gzip data" in row["error_message"]
    assert "cannot be read further" not in row["error_message"]


def test_an_empty_gz_file_is_empty_as_an_empty_jsonl_is(warehouse, tmp_path):
    path = tmp_path / "empty.jsonl.gz"
    path.write_bytes(b"")
    summary = warehouse.ingest(path)
    assert summary.files[0].status == "empty" and summary.quarantined == 0
    assert warehouse.quarantine() == []


def test_a_gz_compressed_twice_is_refused_whole_saying_so(warehouse, tmp_path):
    path = tmp_path / "twice.jsonl.gz"
    path.write_bytes(gzip.compress(gzip.compress(b"".join(json.dumps(r).encode() + b"\n" for r in _good(50)))))
    warehouse.ingest(path)
    (row,) = warehouse.quarantine()
    assert row["error_kind"] == "not_gzip" and "compressed twice" in row["error_message"]


def test_a_utf16_file_is_named_as_utf16(warehouse, tmp_path):
    path = tmp_path / "utf16.jsonl"
    path.write_bytes("\n".join(json.dumps(r) for r in _good(2)).encode("utf-16"))
    warehouse.ingest(path)
    rows = warehouse.quarantine()
    assert len(rows) == 2
    for row in rows:
        assert row["error_kind"] == "invalid_utf8"
        assert "the file is UTF-16" in row["error_message"] and "save it as UTF-8" in row["error_message"]


def test_lone_cr_line_endings_are_named(warehouse, tmp_path):
    path = tmp_path / "mac.jsonl"
    path.write_bytes(b"\r".join(json.dumps(r).encode() for r in _good(3)) + b"\r")
    warehouse.ingest(path)
    row = _only_quarantined(warehouse)
    assert "lone CR" in row["error_message"] and "convert its line endings to LF" in row["error_message"]


def test_a_foreign_record_in_an_lm_eval_samples_file_says_which_format_detection_finds(warehouse, tmp_path):
    path = tmp_path / LM_EVAL_SAMPLES.name
    write_lines(path, _good(1))
    warehouse.ingest(path)
    row = _only_quarantined(warehouse)
    assert row["format"] == "lm_eval_sample"
    assert "Detection finds eee_instance, not lm_eval_sample" in row["error_message"]


def test_a_yaml_nan_is_refused_at_its_pointer_without_a_column_of_the_json_rendering(warehouse, tmp_path):
    text = (FIXTURES / "specs" / "acme-eval-suite.yaml").read_text()
    path = tmp_path / "suite.yaml"
    path.write_text(text.replace("threshold: 1.0", "threshold: .nan", 1))
    assert "threshold: .nan" in path.read_text()
    warehouse.ingest(path)
    row = _only_quarantined(warehouse)
    assert row["error_kind"] == "non_finite_number" and row["error_pointer"].endswith("/threshold")
    assert "column" not in row["error_message"] and "JSON pointer" in row["error_message"]


def test_a_yaml_nan_is_refused_with_the_line_of_the_file_that_wrote_it(warehouse, tmp_path):
    """The pointer names the value inside the suite; the message names the YAML file's line, where an editor finds it:
    the first of two, in the suite's order, and through a sequence of mappings."""
    path = tmp_path / "suite.yaml"
    path.write_text("suites:\n"
                    "  - id: smoke\n"
                    "    metrics:\n"
                    "      - {id: accuracy, type: deterministic, threshold: 0.9}\n"
                    "  - id: speed\n"
                    "    metrics:\n"
                    "      - id: p95\n"
                    "        type: telemetry\n"
                    "        threshold: -.inf\n"
                    "      - id: p99\n"
                    "        threshold: .nan\n")
    warehouse.ingest(path)
    row = _only_quarantined(warehouse)
    assert (row["source_line"], row["error_kind"], row["error_pointer"]) == (2, "non_finite_number",
                                                                             "/metrics/0/threshold")
    assert "at line 9 of the YAML file" in row["error_message"], row["error_message"]


def test_a_yaml_nan_merged_in_from_an_anchor_is_named_at_the_anchors_line(warehouse, tmp_path):
    path = tmp_path / "suite.yaml"
    path.write_text("defaults: &defaults {threshold: .nan}\n"
                    "suites:\n"
                    "  - id: speed\n"
                    "    metrics:\n"
                    "      - <<: *defaults\n"
                    "        id: p95\n")
    warehouse.ingest(path)
    row = _only_quarantined(warehouse)
    assert row["error_pointer"] == "/metrics/0/threshold"
    assert "at line 1 of the YAML file" in row["error_message"], row["error_message"]
