"""The data-quality marts: a refused line a later ingest of the same bytes or path loaded is marked loaded later."""

from __future__ import annotations

import json

from tests.conftest import (CAUTIOUS, FIXTURES, LM_EVAL_SAMPLES, Warehouse, eval_form_record, instance_record,
                            write_lines)


def test_a_refused_line_loaded_by_a_later_run_is_marked_and_one_never_loaded_stays_null(tmp_path):
    """An lm-eval samples file ingested under another name has its ten lines refused; restored to its name, a later
    run loads them. A file refused under --strict loads without it, but for its line that is not JSON. The refusals
    stay in raw.quarantine; the mart says when and by which run each line was loaded, and NULL for the line no run
    loaded, though its file's other lines were."""
    warehouse = Warehouse(tmp_path / "w.duckdb")
    original = LM_EVAL_SAMPLES
    renamed = tmp_path / "run" / "math.jsonl"
    renamed.parent.mkdir()
    renamed.write_bytes(original.read_bytes())
    assert warehouse.ingest(renamed).quarantined == 10
    restored = renamed.rename(renamed.with_name(original.name))
    assert warehouse.ingest(restored).accepted == 10
    lm_eval_batch, lm_eval_at = warehouse.rows("select batch_id, ingested_at from raw.lm_eval_sample limit 1")[0]

    real = (FIXTURES / "every_eval_ever" / "ai2_arc_ollama_qwen2.5-0.5b_1761001924.jsonl").read_bytes()
    arc = tmp_path / "arc.jsonl"  # three real records that need null_as_absent, a line that is not JSON, a valid one
    arc.write_bytes(real + b"not json\n" + json.dumps(instance_record()).encode() + b"\n")
    assert (warehouse.ingest(arc, strict=True).quarantined, warehouse.ingest(arc).accepted) == (4, 3)
    arc_batch, arc_at = warehouse.rows("select batch_id, max(ingested_at) from raw.eee_instance group by 1 "
                                       "order by 2 desc limit 1")[0]

    warehouse.build("--select", "+fct_quarantined_lines")
    rows = warehouse.rows(
        "select source_path, source_line, loaded_later_at, loaded_later_batch_id, loaded_later_source_format "
        "from marts.fct_quarantined_lines order by source_path, source_line")
    assert warehouse.scalar("select count(*) from raw.quarantine") == len(rows) == 14  # the refusals are kept
    lm_eval = [row[2:] for row in rows if row[0] == str(renamed.resolve())]
    assert lm_eval == [(lm_eval_at, lm_eval_batch, "lm_eval_sample")] * 10
    assert [row[1:] for row in rows if row[0] == str(arc.resolve())] == [
        (1, arc_at, arc_batch, "eee_instance"), (2, arc_at, arc_batch, "eee_instance"),
        (3, arc_at, arc_batch, "eee_instance"), (4, None, None, None)]


def test_a_refused_line_of_a_file_completed_or_fixed_in_place_is_loaded_later_once_a_run_loads_it(tmp_path):
    """A file ingested while still being written has its cut-off last line refused; another has a bad line fixed and
    one left bad. Completed and fixed, the same paths are ingested again: new bytes (a new file_sha256), and the
    lines load. Each refusal is loaded later by that run; the line left bad, and a line that turned bad after its
    path's line had loaded (a record from before the refusal resolves nothing), stay still refused, here and in the
    weekly report's count."""
    warehouse = Warehouse(tmp_path / "w.duckdb")
    records = [json.dumps(instance_record(sample_id=f"s{i}")) for i in range(5)]
    cut = tmp_path / "cut.jsonl"
    cut.write_text(f"{records[0]}\n{records[1]}\n{records[2][:40]}")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(f"{records[0]}\n{{bad json\n{records[1]}\nnot json\n")
    edited = tmp_path / "edited.jsonl"
    edited.write_text(f"{records[0]}\n{records[3]}\n")
    assert [warehouse.ingest(p).quarantined for p in (cut, bad, edited)] == [1, 2, 0]
    edited.write_text(f"{records[0]}\n{{bad edit\n")
    assert warehouse.ingest(edited).quarantined == 1

    cut.write_text("\n".join(records[:3]) + "\n")
    bad.write_text(f"{records[0]}\n{records[4]}\n{records[1]}\nnot json\n")
    completed, fixed = warehouse.ingest(cut), warehouse.ingest(bad)
    assert (completed.accepted, completed.quarantined, fixed.accepted, fixed.quarantined) == (1, 0, 1, 0)
    batches = {completed.batch_id: "cut", fixed.batch_id: "bad"}

    warehouse.build("--select", "+fct_quarantined_lines", "rpt_weekly_quarantine")
    rows = warehouse.rows(
        "select source_path, source_line, error_kind, loaded_later_batch_id, loaded_later_source_format, "
        "loaded_later_at > quarantined_at from marts.fct_quarantined_lines order by source_path, source_line")
    named = [(path.rsplit("/", 1)[1], line, kind, batches.get(batch), *rest) for path, line, kind, batch, *rest in rows]
    assert named == [
        ("bad.jsonl", 2, "invalid_json", "bad", "eee_instance", True),
        ("bad.jsonl", 4, "invalid_json", None, None, None),
        ("cut.jsonl", 3, "truncated", "cut", "eee_instance", True),
        ("edited.jsonl", 2, "invalid_json", None, None, None),
    ]
    assert warehouse.rows("select sum(n_lines), sum(n_loaded_later) from marts.rpt_weekly_quarantine") == [(4, 2)]


def test_a_refused_line_a_later_run_found_held_loaded_is_marked_loaded_later_by_that_run(tmp_path):
    """Three refusals no record loaded after: a last line cut off, the file then whole again (skipped as loaded by
    the first run); a line edited to bad JSON and back (skipped likewise); a line edited to bad JSON and back while
    another line changed (read again, the line's record found already stored). The run that found each line held
    loaded resolves it (raw.quarantine_resolutions): the mart marks it loaded later by that run, at that time, as the
    format of the stored record, and the weekly report no longer counts it still refused. A record loaded from the
    line after that resolution (the file edited once more) does not move it: the earliest of either way counts."""
    warehouse = Warehouse(tmp_path / "w.duckdb")
    records = {name: [json.dumps(instance_record(sample_id=f"{name}{i}")) for i in range(5)]
               for name in ("cut", "edited", "changed")}
    paths = {name: tmp_path / f"{name}.jsonl" for name in records}
    whole = {name: "".join(f"{record}\n" for record in lines[:3]) for name, lines in records.items()}
    for name, path in paths.items():
        path.write_text(whole[name])
        assert warehouse.ingest(path).accepted == 3
    cut = records["cut"]
    paths["cut"].write_text(f"{cut[0]}\n{cut[1]}\n{cut[2][:40]}")
    for name in ("edited", "changed"):
        paths[name].write_text(f"{records[name][0]}\n{{bad json\n{records[name][2]}\n")
    assert [warehouse.ingest(path).quarantined for path in paths.values()] == [1, 1, 1]

    changed = records["changed"]
    again = {"cut": whole["cut"], "edited": whole["edited"], "changed": f"{changed[0]}\n{changed[1]}\n{changed[3]}\n"}
    resolving = {}
    for name, path in paths.items():
        path.write_text(again[name])
        summary = warehouse.ingest(path)
        assert (summary.resolved, summary.still_refused) == (1, 0)
        resolving[summary.batch_id] = name
    paths["cut"].write_text(f"{cut[0]}\n{cut[1]}\n{cut[4]}\n")  # line 3 loads a new record, after the resolution
    assert warehouse.ingest(paths["cut"]).accepted == 1

    warehouse.build("--select", "+fct_quarantined_lines", "rpt_weekly_quarantine")
    rows = warehouse.rows(
        "select lines.source_path, lines.source_line, lines.error_kind, lines.loaded_later_batch_id, "
        "lines.loaded_later_source_format, lines.loaded_later_at = resolutions.resolved_at "
        "from marts.fct_quarantined_lines as lines "
        "left join raw.quarantine_resolutions as resolutions using (quarantine_id) order by lines.source_path")
    named = [(path.rsplit("/", 1)[1], line, kind, resolving.get(batch), *rest)
             for path, line, kind, batch, *rest in rows]
    assert named == [
        ("changed.jsonl", 2, "invalid_json", "changed", "eee_instance", True),
        ("cut.jsonl", 3, "truncated", "cut", "eee_instance", True),
        ("edited.jsonl", 2, "invalid_json", "edited", "eee_instance", True),
    ]
    assert warehouse.rows("select sum(n_lines), sum(n_loaded_later) from marts.rpt_weekly_quarantine") == [(3, 3)]


def test_the_weeks_files_loaded_count_only_files_that_loaded_records(tmp_path):
    """One file of two forms loaded, then read again (already loaded: no new entry in the file log), and an empty
    file, which the log lists: the week's summary says one file and two records loaded, not two files."""
    warehouse = Warehouse(tmp_path / "w.duckdb")
    forms = write_lines(tmp_path / "forms.jsonl", [eval_form_record(), eval_form_record()])
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    statuses = [warehouse.ingest(path).files[0].status for path in (forms, forms, empty)]
    assert statuses == ["loaded", "already_loaded", "empty"]
    warehouse.build("--select", "+rpt_weekly_summary", *CAUTIOUS)
    assert warehouse.rows("select status from marts.fct_ingested_files order by 1") == [("empty",), ("loaded",)]
    assert warehouse.rows("select n_files_loaded, n_records_loaded from marts.rpt_weekly_summary "
                          "where n_files_loaded > 0") == [(1, 2)]
