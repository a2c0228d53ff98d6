"""Loading: lineage on every row, nothing added by a second run, natural keys, appended files and the manifest."""

from __future__ import annotations

import gzip
import hashlib
import json

import duckdb
import pytest

from ingest.formats import FORMATS
from ingest.sources import DEFAULT_MAX_RECORD_BYTES
from ingest.validate import Validators
from tests.conftest import (
    FIXTURES,
    Warehouse,
    LM_EVAL_SAMPLES,
    cognibench_record,
    eval_form_record,
    instance_record,
    write_lines,
)


def test_accepted_records_keep_their_original_text_and_lineage(warehouse, tmp_path):
    record = instance_record()
    text = json.dumps(record, indent=None, separators=(", ", ": "))
    path = write_lines(tmp_path / "a.jsonl", [text])
    warehouse.ingest(path)
    row = warehouse.rows(
        "select record_json, source_path, source_line, record_sha256, schema_version, natural_key, batch_id, "
        "ingested_at is not null from raw.eee_instance"
    )[0]
    assert row[0] == text  # verbatim, spacing included
    assert row[1] == str(path.resolve())
    assert row[2] == 1
    assert row[3] == hashlib.sha256(text.encode()).hexdigest()
    assert row[4] == "0.3.0" and row[5] is None and row[6] and row[7]


def test_records_of_several_formats_in_one_file_go_to_their_own_tables(warehouse, tmp_path):
    path = write_lines(tmp_path / "mixed.jsonl", [instance_record(), eval_form_record(), cognibench_record()])
    warehouse.ingest(path)
    counts = warehouse.row_counts()
    assert (counts["eee_instance"], counts["eval_form"], counts["cognibench"]) == (1, 1, 1)
    assert warehouse.scalar("select accepted_by_format from raw.ingest_files") == (
        '{"cognibench": 1, "eee_instance": 1, "eval_form": 1}'
    )


def test_a_second_run_of_the_same_input_adds_no_row_anywhere(warehouse, tmp_path):
    write_lines(tmp_path / "in" / "a.jsonl", [instance_record(), "not json", eval_form_record()])
    write_lines(tmp_path / "in" / "b.jsonl", [cognibench_record()])
    warehouse.ingest(tmp_path / "in")
    before = warehouse.row_counts()
    summary = warehouse.ingest(tmp_path / "in")
    assert warehouse.row_counts() == before
    assert [f.status for f in summary.files] == ["already_loaded", "already_loaded"]


def test_the_same_content_under_another_path_is_not_loaded_twice(warehouse, tmp_path):
    first = write_lines(tmp_path / "a.jsonl", [instance_record()])
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(first.read_bytes())
    warehouse.ingest(first)
    summary = warehouse.ingest(copy)
    assert summary.files[0].status == "already_loaded"
    assert str(first.resolve()) in summary.files[0].message


def test_an_appended_file_loads_only_its_new_lines(warehouse, tmp_path):
    records = [instance_record(sample_id=f"s{i}") for i in range(4)]
    path = write_lines(tmp_path / "landing.jsonl", records[:2])
    warehouse.ingest(path)
    write_lines(path, records)  # the same two lines, then two more
    summary = warehouse.ingest(path)
    assert [r[0] for r in warehouse.rows("select source_line from raw.eee_instance order by 1")] == [1, 2, 3, 4]
    assert summary.files[0].n_already_loaded == 2 and summary.files[0].n_changed == 0


def test_a_keyed_record_loaded_again_with_the_same_content_is_skipped(warehouse, tmp_path):
    form = eval_form_record()
    warehouse.ingest(write_lines(tmp_path / "a.jsonl", [form]))
    summary = warehouse.ingest(write_lines(tmp_path / "b.jsonl", [form, eval_form_record()]))
    assert warehouse.scalar("select count(*) from raw.eval_form") == 2
    assert summary.by_format()["eval_form"].skipped == 1
    assert warehouse.quarantine() == []


@pytest.mark.parametrize("make", [eval_form_record, cognibench_record])
def test_keyed_records_skipped_as_loaded_before_are_counted_and_say_where(warehouse, tmp_path, make):
    lines = [json.dumps(make()).encode() for _ in range(3)]
    first = tmp_path / "a.jsonl"
    first.write_bytes(b"\n".join(lines) + b"\n")
    crlf = tmp_path / "a_crlf.jsonl"  # the same records, other bytes: skipped by their ids
    crlf.write_bytes(b"\r\n".join(lines) + b"\r\n")
    warehouse.ingest(first)
    (outcome,) = warehouse.ingest(crlf).files
    assert (outcome.n_lines, outcome.accepted, outcome.quarantined, outcome.n_already_loaded) == (3, 0, 0, 3)
    message = f"3 record(s) already loaded (first from {first.resolve()}), not added again"
    assert outcome.message == message
    assert warehouse.rows("select n_skipped, message from raw.ingest_files where source_path = ?",
                          [str(crlf.resolve())]) == [(3, message)]


def test_a_keyed_record_skipped_names_the_line_it_was_first_loaded_from(warehouse, tmp_path):
    form = eval_form_record()
    first = write_lines(tmp_path / "a.jsonl", [eval_form_record(), form])
    warehouse.ingest(first)
    (outcome,) = warehouse.ingest(write_lines(tmp_path / "b.jsonl", [form, eval_form_record()])).files
    assert (outcome.accepted, outcome.n_already_loaded) == (1, 1)
    assert f"1 record(s) already loaded (first from {first.resolve()}:2)" in outcome.message
    (within,) = warehouse.ingest(write_lines(tmp_path / "c.jsonl", [(twice := eval_form_record()), twice])).files
    assert (within.accepted, within.n_already_loaded) == (1, 1)
    assert "1 record(s) already loaded (first from line 1 of this file)" in within.message


def test_a_reused_key_with_different_content_is_quarantined_as_a_conflict(warehouse, tmp_path):
    form = eval_form_record()
    changed = {**form, "rater": {"type": "human", "id": "h-ben"}}
    warehouse.ingest(write_lines(tmp_path / "a.jsonl", [form]))
    warehouse.ingest(write_lines(tmp_path / "b.jsonl", [changed]))
    rows = warehouse.quarantine()
    assert [(r["error_kind"], r["error_pointer"], r["format"]) for r in rows] == [("conflict", "/eval_id", "eval_form")]
    assert "already loaded from" in rows[0]["error_message"] and "a.jsonl line 1" in rows[0]["error_message"]
    assert rows[0]["raw_text"] == json.dumps(changed)  # the conflicting record's own text, kept whole
    assert warehouse.scalar("select record_json from raw.eval_form") == json.dumps(form)


def test_a_key_reused_within_one_file_is_caught_too(warehouse, tmp_path):
    key = "eval_dup"
    records = [cognibench_record(evaluation_id=key), cognibench_record(evaluation_id=key, model_id="other")]
    warehouse.ingest(write_lines(tmp_path / "a.jsonl", records))
    assert warehouse.scalar("select count(*) from raw.cognibench") == 1
    assert [r["error_kind"] for r in warehouse.quarantine()] == ["conflict"]


def test_a_completed_review_exported_again_under_its_evaluation_id_is_a_new_version_not_a_conflict(warehouse, tmp_path):
    """CogniBench exports a record again when a person completes its review: the same verdict, a later review state,
    the same evaluation_id. It loads beside the first export under a record_id of its own (in a later file or the
    same one); a third export changing the verdict is still a conflict, and a version read again is skipped."""
    pending = cognibench_record(needs_human_review=True, human_review_status="Pending")
    review = {"human_review_status": "Completed", "human_reviewer_id": "reviewer-1",
              "human_review_timestamp": "2026-11-12T09:00:00.000001Z", "human_corrected_scores": {},
              "human_review_comments": "Agree with the judge."}
    completed = {**pending, **review}
    other_verdict = {**completed, "aggregated_score": "Fail"}
    warehouse.ingest(write_lines(tmp_path / "a.jsonl", [pending]))
    warehouse.ingest(write_lines(tmp_path / "b.jsonl", [completed, other_verdict]))
    warehouse.ingest(write_lines(tmp_path / "c.jsonl", [completed]))
    key = pending["evaluation_id"]
    sha = hashlib.sha256(json.dumps(completed).encode()).hexdigest()
    assert warehouse.rows("select record_id, natural_key, source_path like '%b.jsonl' from raw.cognibench "
                          "order by source_path") == [(key, key, False), (f"{key}#{sha[:12]}", key, True)]
    rows = warehouse.quarantine()
    assert [(r["error_kind"], r["source_line"], r["raw_text"]) for r in rows] == [
        ("conflict", 2, json.dumps(other_verdict))]
    assert "a new version of it may change only human_review_status" in rows[0]["error_message"]

    one_file = Warehouse(tmp_path / "one.duckdb")
    one_file.ingest(write_lines(tmp_path / "d.jsonl", [pending, completed, other_verdict]))
    assert one_file.scalar("select count(*) from raw.cognibench") == 2
    assert [r["error_kind"] for r in one_file.quarantine()] == ["conflict"]


def test_keys_are_checked_across_batches_of_one_file(warehouse, tmp_path, monkeypatch):
    monkeypatch.setattr("ingest.sources._READ_CHUNK", 2000)  # a unit of work every line or two
    forms = [eval_form_record() for _ in range(5)]
    conflict = {**forms[0], "rater": {"type": "human", "id": "someone-else"}}
    warehouse.ingest(write_lines(tmp_path / "a.jsonl", [*forms, conflict]))
    assert warehouse.scalar("select count(*) from raw.eval_form") == 5
    assert [(r["source_line"], r["raw_text"]) for r in warehouse.quarantine()] == [(6, json.dumps(conflict))]


def test_record_ids_are_the_same_on_every_run(tmp_path):
    from tests.conftest import Warehouse

    path = write_lines(tmp_path / "a.jsonl", [instance_record(sample_id=str(i)) for i in range(3)])
    first, second = Warehouse(tmp_path / "one.duckdb"), Warehouse(tmp_path / "two.duckdb")
    first.ingest(path)
    second.ingest(path)
    query = "select record_id from raw.eee_instance order by source_line"
    assert first.rows(query) == second.rows(query)
    assert len({r[0] for r in first.rows(query)}) == 3


def test_the_manifest_row_counts_what_happened_to_the_file(warehouse, tmp_path):
    path = write_lines(
        tmp_path / "a.jsonl",
        [instance_record(), "", "{broken", eval_form_record(), instance_record(schema_version="0.9.0")],
    )
    warehouse.ingest(path)
    row = warehouse.rows(
        "select status, n_lines, n_blank, n_accepted, n_quarantined, n_skipped, strict, file_bytes, file_sha256 "
        "from raw.ingest_files"
    )[0]
    assert row[:8] == ("loaded", 4, 1, 2, 2, 0, False, path.stat().st_size)
    assert row[8] == hashlib.sha256(path.read_bytes()).hexdigest()


def test_forcing_a_format_validates_against_it_instead_of_detecting(warehouse, tmp_path):
    path = write_lines(tmp_path / "a.jsonl", [instance_record()])
    warehouse.ingest(path, forced_format="eval_form")
    row = warehouse.quarantine()[0]
    assert (row["format"], row["error_kind"], row["error_pointer"]) == ("eval_form", "unsupported_version", "/schema_version")
    assert warehouse.scalar("select count(*) from raw.eee_instance") == 0


def test_a_forced_format_that_refuses_a_record_says_which_format_detection_finds(warehouse, tmp_path):
    # The refusal alone ("AIF eval form version '0.2.0' has no schema here") reads as a bad record; the cause
    # is the --format.
    path = write_lines(tmp_path / "a.jsonl", [instance_record(), instance_record(sample_id=None)])
    warehouse.ingest(path, forced_format="eval_form")
    first = warehouse.quarantine()[0]["error_message"]
    assert "has no schema here" in first
    assert "Detection finds eee_instance, not eval_form: drop --format" in first
    # A record that fails the format detection also finds gets no such hint: its own error is the news.
    other = tmp_path / "b.jsonl"
    write_lines(other, [instance_record(sample_id=None)])
    warehouse.ingest(other, forced_format="eee_instance")
    rows = [r for r in warehouse.quarantine() if r["source_path"] == str(other)]
    assert rows and rows[0]["error_kind"] == "schema" and "Detection finds" not in rows[0]["error_message"]


def test_a_bug_costs_one_file_not_the_run_and_leaves_nothing_of_it(warehouse, tmp_path, monkeypatch):
    good = write_lines(tmp_path / "a_good.jsonl", [instance_record()])
    bad = write_lines(tmp_path / "b_bad.jsonl", [instance_record(sample_id="x"), instance_record(sample_id="y")])

    from ingest.load import RawStore

    original = RawStore.append_file

    def explode(self, row):
        if row.source_path.endswith("b_bad.jsonl") and row.status == "loaded":
            raise RuntimeError("disk full")
        return original(self, row)

    monkeypatch.setattr(RawStore, "append_file", explode)
    summary = warehouse.ingest(good, bad)
    assert [f.status for f in summary.files] == ["loaded", "failed"]
    assert "disk full" in summary.files[1].message
    assert warehouse.scalar("select count(*) from raw.eee_instance") == 1  # nothing of b_bad
    assert warehouse.rows("select status from raw.ingest_files order by source_path") == [("loaded",), ("failed",)]
    monkeypatch.setattr(RawStore, "append_file", original)
    warehouse.ingest(bad)  # a failed file is retried on the next run
    assert warehouse.scalar("select count(*) from raw.eee_instance") == 3


@pytest.mark.slow
def test_reingesting_the_demo_data_adds_no_row_anywhere(demo_dir, tmp_path):
    from tests.conftest import Warehouse

    warehouse = Warehouse(tmp_path / "demo.duckdb")
    first = warehouse.ingest(demo_dir)
    before = warehouse.row_counts()
    second = warehouse.ingest(demo_dir)
    assert warehouse.row_counts() == before
    assert first.accepted > 15_000 and second.accepted == 0
    assert {f.status for f in second.files} == {"already_loaded"}


def _four_trials() -> list[bytes]:
    """Four Every Eval Ever instance records: one attempt at each of four samples, two right and two wrong."""
    return [json.dumps(instance_record(sample_id=f"s{i}", evaluation={"score": float(i % 2), "is_correct": i % 2 == 1}))
            .encode() for i in range(1, 5)]


def test_the_same_records_under_other_bytes_are_not_loaded_again(warehouse, tmp_path):
    lines = _four_trials()
    plain = tmp_path / "clean.jsonl"
    plain.write_bytes(b"\n".join(lines) + b"\n")
    gzipped = tmp_path / "clean_again.jsonl.gz"
    gzipped.write_bytes(gzip.compress(plain.read_bytes()))
    crlf = tmp_path / "clean_crlf.jsonl"
    crlf.write_bytes(b"\r\n".join(lines) + b"\r\n")
    reversed_ = tmp_path / "clean_reordered.jsonl"
    reversed_.write_bytes(b"\n".join(reversed(lines)) + b"\n")
    summary = warehouse.ingest(plain, gzipped, crlf, reversed_)
    assert [f.status for f in summary.files] == ["loaded"] * 4
    assert [(f.accepted, f.n_already_loaded) for f in summary.files] == [(4, 0), (0, 4), (0, 4), (0, 4)]
    assert all(f"4 record(s) already loaded (first from {plain.resolve()})" in f.message for f in summary.files[1:])
    assert warehouse.scalar("select count(*) from raw.eee_instance") == 4
    assert warehouse.rows("select n_accepted, n_skipped from raw.ingest_files order by finished_at") == [
        (4, 0), (0, 4), (0, 4), (0, 4)]  # n_lines = accepted + quarantined + skipped still holds


def test_records_written_out_again_with_other_spacing_are_other_bytes_as_the_readme_says(warehouse, tmp_path):
    """Identity is the record's bytes (less a CR ending): a re-export with other spacing is new attempts. README
    (Ingest) says so and tells the user to ingest what the harness wrote; this holds the sentence to the behaviour."""
    lines = _four_trials()
    plain = tmp_path / "clean.jsonl"
    plain.write_bytes(b"\n".join(lines) + b"\n")
    compact = tmp_path / "compact.jsonl"
    compact.write_text("".join(json.dumps(json.loads(line), separators=(",", ":")) + "\n" for line in lines))
    trailing = tmp_path / "trailing.jsonl"
    trailing.write_bytes(b"".join(line + b"  \n" for line in lines))
    summary = warehouse.ingest(plain, compact, trailing)
    assert [(f.accepted, f.n_already_loaded) for f in summary.files] == [(4, 0), (4, 0), (4, 0)]
    assert warehouse.scalar("select count(*) from raw.eee_instance") == 12


def test_a_line_edited_in_place_loads_beside_the_old_one_and_is_reported(warehouse, tmp_path):
    lines = _four_trials()
    path = tmp_path / "run.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    warehouse.ingest(path)
    edited = json.loads(lines[1])
    edited["evaluation"] = {"score": 1.0, "is_correct": True}
    lines[1] = json.dumps(edited).encode()
    path.write_bytes(b"\n".join(lines) + b"\n")
    (outcome,) = warehouse.ingest(path).files
    assert (outcome.accepted, outcome.n_already_loaded, outcome.n_changed) == (1, 3, 1)
    assert "1 line(s) differ from what this path held at the same place before" in outcome.message
    assert "unchanged" not in outcome.message
    assert warehouse.rows("select source_line, count(*) from raw.eee_instance group by 1 order by 1") == [
        (1, 1), (2, 2), (3, 1), (4, 1)]


@pytest.mark.slow
def test_the_same_records_under_other_bytes_are_one_attempt_in_the_marts(tmp_path):
    from tests.conftest import Warehouse, build_warehouse

    lines = _four_trials()
    plain = tmp_path / "in" / "clean.jsonl"
    plain.parent.mkdir()
    plain.write_bytes(b"\n".join(lines) + b"\n")
    (tmp_path / "in" / "clean_again.jsonl.gz").write_bytes(gzip.compress(plain.read_bytes()))
    (tmp_path / "in" / "clean_crlf.jsonl").write_bytes(b"\r\n".join(lines) + b"\r\n")
    (tmp_path / "in" / "clean_reordered.jsonl").write_bytes(b"\n".join(reversed(lines)) + b"\n")
    build_warehouse(tmp_path / "w.duckdb", [tmp_path / "in"])
    warehouse = Warehouse(tmp_path / "w.duckdb")
    assert warehouse.rows("select sample_id, trial_index from marts.fct_trials order by 1") == [
        ("s1", 1), ("s2", 1), ("s3", 1), ("s4", 1)]
    assert warehouse.rows("select distinct k from marts.fct_pass_at_k order by 1") == [(1,)]
    assert warehouse.rows("select distinct n_trials from marts.fct_task_stability") == [(1,)]


# -- a file read again to retry what was quarantined: each reason that says "ingest the file again" works ------

def test_an_lm_eval_samples_file_renamed_back_is_ingested_again(warehouse, tmp_path):
    original = LM_EVAL_SAMPLES
    renamed = tmp_path / "run" / "math.jsonl"
    renamed.parent.mkdir()
    renamed.write_bytes(original.read_bytes())
    first = warehouse.ingest(renamed)
    assert first.accepted == 0 and first.quarantined == 10
    assert "Keep (or restore) that name and ingest the file again" in warehouse.quarantine()[0]["error_message"]
    assert warehouse.ingest(renamed).files[0].status == "already_loaded"  # the same command adds nothing

    restored = renamed.rename(renamed.with_name(original.name))
    summary = warehouse.ingest(restored)
    assert (summary.files[0].status, summary.accepted, summary.quarantined) == ("loaded", 10, 0)
    before = warehouse.row_counts()
    assert warehouse.ingest(restored).files[0].status == "already_loaded"
    assert warehouse.row_counts() == before


def test_a_line_refused_again_under_another_name_is_quarantined_once(warehouse, tmp_path):
    """The renamed file also holds a line no name can load: read again under its restored name, that line is
    refused again for the same reason, and is not a second quarantine row (same bytes, line and reason: the same
    quarantine_id, which the warehouse's uniqueness test holds)."""
    original = LM_EVAL_SAMPLES
    renamed = tmp_path / "run" / "math.jsonl"
    renamed.parent.mkdir()
    renamed.write_bytes(original.read_bytes() + b"not json\n")
    first = warehouse.ingest(renamed)
    assert (first.accepted, first.quarantined) == (0, 11)

    restored = renamed.rename(renamed.with_name(original.name))
    (outcome,) = warehouse.ingest(restored).files
    skipped = sum(counts.skipped for counts in outcome.by_format.values())
    assert (outcome.status, outcome.accepted, outcome.quarantined, skipped) == ("loaded", 10, 0, 1)
    assert f"1 line(s) refused again as before (first in {renamed.resolve()}" in outcome.message
    assert warehouse.scalar("select count(*) from raw.quarantine") == 11
    assert warehouse.scalar("select count(*) - count(distinct quarantine_id) from raw.quarantine") == 0
    assert warehouse.rows("select n_lines, n_accepted, n_quarantined, n_skipped from raw.ingest_files "
                          "order by finished_at desc limit 1") == [(11, 10, 0, 1)]
    before = warehouse.row_counts()
    assert warehouse.ingest(restored).files[0].status == "already_loaded"
    assert warehouse.row_counts() == before


def test_a_line_refused_by_strict_that_loads_without_it_says_so(warehouse, tmp_path):
    real = (FIXTURES / "every_eval_ever" / "ai2_arc_ollama_qwen2.5-0.5b_1761001924.jsonl").read_bytes()
    path = tmp_path / "arc.jsonl"  # three real records that the repairs accept, then one that nothing accepts
    path.write_bytes(real + json.dumps(instance_record(sample_id=None)).encode() + b"\n")
    warehouse.ingest(path, strict=True)
    rows = warehouse.quarantine()
    strict_only, bad = rows[:3], rows[3]
    validators, fmt = Validators(), FORMATS["eee_instance"]
    for row in strict_only:
        # The verdict, its pointer and jsonschema's message are what they were; the action follows.
        verdict = validators.validate(json.loads(row["raw_text"]), fmt, strict=True)
        assert (row["error_kind"], row["error_pointer"]) == ("schema", verdict.pointer) == ("schema", "/interactions")
        assert row["error_message"] == (
            f"{verdict.message}. Accepted without --strict (repairs: single_turn_transcript_ignored, null_as_absent; "
            'README "Compatibility repairs"): ingest the file again without --strict to load it')
    assert bad["error_kind"] == "schema" and "without --strict" not in bad["error_message"]

    warehouse.ingest(path)  # and so it is
    assert warehouse.scalar("select count(*) from raw.eee_instance") == 3


def test_a_single_turn_record_of_schema_0_3_0_carrying_its_messages_loads_with_the_repair(warehouse, tmp_path):
    """0.3.0 names the transcript `messages` (0.2.0 `interactions`, as the real files above): a single_turn record that
    carries it is refused by --strict at /messages and loads without it, the list kept in the stored record."""
    messages = [{"turn_idx": 0, "role": "user", "content": "What is 2 + 2?"},
                {"turn_idx": 1, "role": "assistant", "content": "4"}]
    path = write_lines(tmp_path / "single_turn_messages.jsonl", [instance_record(messages=messages)])
    warehouse.ingest(path, strict=True)
    (refused,) = warehouse.quarantine()
    assert (refused["error_kind"], refused["error_pointer"]) == ("schema", "/messages")
    assert "single_turn_transcript_ignored" in refused["error_message"]

    (outcome,) = warehouse.ingest(path).files
    assert outcome.repairs[("eee_instance", "single_turn_transcript_ignored")] == 1
    stored = json.loads(warehouse.scalar("select record_json from raw.eee_instance"))
    assert stored["messages"] == messages


def test_a_file_refused_by_strict_is_ingested_again_without_it(warehouse, tmp_path):
    real = (FIXTURES / "every_eval_ever" / "ai2_arc_ollama_qwen2.5-0.5b_1761001924.jsonl").read_bytes()
    path = tmp_path / "arc.jsonl"  # three real records that need null_as_absent, then two strictly valid ones
    path.write_bytes(real + b"".join(json.dumps(instance_record(sample_id=f"s{i}")).encode() + b"\n" for i in (1, 2)))
    strict = warehouse.ingest(path, strict=True)
    assert strict.quarantined == 3 and strict.accepted == 2
    assert warehouse.ingest(path, strict=True).files[0].status == "already_loaded"

    summary = warehouse.ingest(path)
    (outcome,) = summary.files
    assert (outcome.status, outcome.accepted, outcome.n_already_loaded) == ("loaded", 3, 2)
    assert outcome.repairs[("eee_instance", "null_as_absent")] == 3
    assert warehouse.scalar("select count(*) from raw.eee_instance") == 5
    assert warehouse.rows("select n_lines, n_accepted, n_repaired, n_quarantined, n_skipped from raw.ingest_files "
                          "order by finished_at desc limit 1") == [(5, 3, 3, 0, 2)]
    before = warehouse.row_counts()
    assert warehouse.ingest(path).files[0].status == "already_loaded"
    assert warehouse.ingest(path, strict=True).files[0].status == "already_loaded"
    assert warehouse.row_counts() == before


def test_a_file_refused_under_a_wrong_format_is_ingested_again_without_it(warehouse, tmp_path):
    path = write_lines(tmp_path / "a.jsonl", [instance_record(sample_id=f"s{i}") for i in range(4)])
    assert warehouse.ingest(path, forced_format="eval_form").quarantined == 4
    again = warehouse.ingest(path, forced_format="eval_form")
    assert again.files[0].status == "already_loaded" and len(warehouse.quarantine()) == 4

    summary = warehouse.ingest(path)
    assert (summary.files[0].status, summary.accepted, summary.quarantined) == ("loaded", 4, 0)
    before = warehouse.row_counts()
    assert [f.status for f in warehouse.ingest(path).files] == ["already_loaded"]
    assert warehouse.row_counts() == before


def test_an_inspect_log_refused_under_a_wrong_format_loads_its_records_without_it(warehouse, tmp_path):
    # An Inspect AI record is kept once per file and place, so a retry must not mistake the lines this path refused
    # for records it loaded.
    path = tmp_path / "log.json"
    path.write_bytes((FIXTURES / "inspect_ai" / "log_read_sample.json").read_bytes())
    assert warehouse.ingest(path, forced_format="eee_instance").quarantined == 2
    (outcome,) = warehouse.ingest(path).files
    assert (outcome.status, outcome.accepted, outcome.quarantined, outcome.n_unchanged) == ("loaded", 2, 0, 0)
    assert (warehouse.row_counts()["inspect_log"], warehouse.row_counts()["inspect_sample"]) == (1, 1)


def test_a_record_over_the_size_limit_is_retried_with_a_higher_limit(warehouse, tmp_path):
    path = write_lines(tmp_path / "a.jsonl", [instance_record(sample_id="s1"),
                                              instance_record(sample_id="s2", output={"raw": ["x" * 2000]})])
    assert warehouse.ingest(path, max_record_bytes=1500).quarantined == 1
    assert warehouse.rows("select max_record_bytes from raw.ingest_files") == [(1500,)]
    for limit in (1500, 1000):  # the limit that refused the line, or a lower one, cannot load it: not read again
        again = warehouse.ingest(path, max_record_bytes=limit)
        assert again.files[0].status == "already_loaded" and "retry" not in again.files[0].message
    assert len(warehouse.quarantine()) == 1 and warehouse.scalar("select count(*) from raw.ingest_files") == 1

    summary = warehouse.ingest(path)  # the default limit is higher: the refused line is retried, and loads
    assert (summary.accepted, summary.quarantined, summary.files[0].n_already_loaded) == (1, 0, 1)
    assert warehouse.scalar("select count(*) from raw.eee_instance") == 2
    assert warehouse.rows("select max_record_bytes from raw.ingest_files order by finished_at") == [
        (1500,), (DEFAULT_MAX_RECORD_BYTES,)]


def test_a_file_ingested_with_a_raised_limit_is_skipped_when_ingested_again_with_it(warehouse, tmp_path):
    """A line over even the raised limit stays refused: the same command again has nothing to retry."""
    path = write_lines(tmp_path / "a.jsonl", [instance_record(sample_id="s1"),
                                              instance_record(sample_id="s2", output={"raw": ["x" * 3000]})])
    assert warehouse.ingest(path, max_record_bytes=2000).quarantined == 1
    again = warehouse.ingest(path, max_record_bytes=2000)
    assert again.files[0].status == "already_loaded" and "retry" not in again.files[0].message

    higher = warehouse.ingest(path, max_record_bytes=2500)  # higher, but still too low: read, and nothing added
    assert higher.files[0].status == "already_loaded" and "retry" in higher.files[0].message
    assert len(warehouse.quarantine()) == 1 and warehouse.scalar("select count(*) from raw.ingest_files") == 1


def test_a_manifest_written_before_it_kept_the_limit_gains_it_and_retries_its_refusals(warehouse, tmp_path):
    path = write_lines(tmp_path / "a.jsonl", [instance_record(sample_id="s1"),
                                              instance_record(sample_id="s2", output={"raw": ["x" * 2000]})])
    assert warehouse.ingest(path, max_record_bytes=1500).quarantined == 1
    with duckdb.connect(str(warehouse.path)) as con:  # as a warehouse written before the column existed
        con.execute("alter table raw.ingest_files drop column max_record_bytes")
    # The limit that refused the line is unknown, so the same command reads the file again (to retry it).
    again = warehouse.ingest(path, max_record_bytes=1500)
    assert again.files[0].status == "already_loaded" and "retry" in again.files[0].message
    other = write_lines(tmp_path / "b.jsonl", [instance_record(sample_id="s3")])
    warehouse.ingest(other, max_record_bytes=1500)
    assert warehouse.rows("select max_record_bytes from raw.ingest_files order by finished_at") == [(None,), (1500,)]


def test_a_renamed_file_appended_to_does_not_quarantine_its_old_refused_lines_again(warehouse, tmp_path):
    """A file loaded with refused lines, then renamed and appended to: its first bytes are the bytes loaded, so its
    refused lines are the same bytes at the same line, refused for the same reason, and not second rows. A second run
    of it adds nothing and still counts them refused (--fail-on-reject fails again)."""
    good = [json.dumps(instance_record(sample_id=f"s{i}")).encode() for i in range(3)]
    first = tmp_path / "a" / "n.jsonl"
    first.parent.mkdir()
    first.write_bytes(b"not json\n" + good[0] + b"\n" + b'{"unknown": 1}\n')
    assert warehouse.ingest(first).quarantined == 2
    renamed = tmp_path / "b" / "renamed.jsonl"
    renamed.parent.mkdir()
    first.rename(renamed)
    with renamed.open("ab") as handle:
        handle.write(good[1] + b"\n" + b"also not json\n")
    (outcome,) = warehouse.ingest(renamed).files
    assert (outcome.status, outcome.accepted, outcome.quarantined, outcome.n_still_refused) == ("loaded", 1, 1, 2)
    assert f"2 line(s) refused again as before (first in {first.resolve()}" in outcome.message
    assert warehouse.scalar("select count(*) from raw.quarantine") == 3
    assert warehouse.rows("select source_path, source_line from raw.quarantine order by source_line") == [
        (str(first.resolve()), 1), (str(first.resolve()), 3), (str(renamed.resolve()), 5)]
    assert warehouse.rows("select n_lines, n_accepted, n_quarantined, n_skipped from raw.ingest_files "
                          "order by finished_at desc limit 1") == [(5, 1, 1, 3)]
    before = warehouse.row_counts()
    again = warehouse.ingest(renamed)
    assert again.files[0].status == "already_loaded" and again.still_refused == 3
    assert warehouse.row_counts() == before


def test_the_same_bad_line_at_the_same_place_of_an_unrelated_file_is_its_own_quarantine_row(warehouse, tmp_path):
    """Only a file that begins with the bytes of the earlier load shares its refusals: another file holding the same
    bad line at the same place has its own row, under its own path (nothing of it is lost)."""
    one, other = tmp_path / "one.jsonl", tmp_path / "other.jsonl"
    one.write_bytes(b"not json\n" + json.dumps(instance_record(sample_id="x")).encode() + b"\n")
    other.write_bytes(b"not json\n" + json.dumps(instance_record(sample_id="y")).encode() + b"\n")
    warehouse.ingest(one)
    assert warehouse.ingest(other).quarantined == 1
    assert warehouse.rows("select source_path from raw.quarantine order by source_path") == [
        (str(one.resolve()),), (str(other.resolve()),)]
