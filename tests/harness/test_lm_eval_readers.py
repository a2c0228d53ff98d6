"""lm-evaluation-harness output becomes records (ingest/readers_lm_eval.py): each samples line in an envelope
with its task, run and metric values, the line itself kept byte for byte; results files as they are; and what
cannot be mapped (a metric without its value, a line that lost its file name, an old line without `metrics`)
quarantined with the reason."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from ingest.readers_lm_eval import read_samples
from ingest.sources import read_records
from tests.conftest import FIXTURES, write_lines

LM_EVAL = FIXTURES / "lm_eval"
SAMPLES = LM_EVAL / "samples_math_perturbed_full_2026-01-21T03-44-18.458309.jsonl"
RESULTS = LM_EVAL / "results_2026-01-21T03-44-18.458309.json"
TOY_MC = LM_EVAL / "generated" / "samples_toy_mc_2026-11-21T15-21-55.633933.jsonl"
LIMIT = 16 * 1024 * 1024


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _samples_file(folder: Path, lines: list) -> Path:
    return write_lines(folder / "samples_toy_2026-11-21T15-21-55.633933.jsonl", lines)


def test_each_line_becomes_an_envelope_that_keeps_the_line_byte_for_byte():
    records = list(read_samples(SAMPLES, LIMIT))
    lines = SAMPLES.read_bytes().split(b"\n")
    assert [r.line for r in records] == list(range(1, 11))
    for record, line in zip(records, lines):
        envelope = json.loads(record.data)
        assert record.data.endswith(b',"sample":' + line + b"}")
        assert envelope["lm_eval"] == {
            "task": "math_perturbed_full", "run": "2026-01-21T03-44-18.458309",
            "results_file": "results_2026-01-21T03-44-18.458309.json", "output_folder": "lm_eval",
            "scores": [{"metric": "exact_match", "value": 0.0}]}
        assert SAMPLES.read_bytes()[record.offset:record.offset + len(line)] == line


def test_every_listed_metric_is_carried_in_order():
    envelopes = [json.loads(r.data)["lm_eval"]["scores"] for r in read_samples(TOY_MC, LIMIT)]
    assert envelopes == [[{"metric": "acc", "value": line["acc"]}, {"metric": "acc_norm", "value": line["acc_norm"]}]
                         for line in _lines(TOY_MC)]


def test_lm_eval_files_are_recognised_by_name_and_the_real_ones_load_whole(warehouse):
    summary = warehouse.ingest(LM_EVAL)
    assert summary.quarantined == 0
    assert warehouse.row_counts()["lm_eval_sample"] == 19
    assert warehouse.row_counts()["lm_eval_results"] == 2
    stored = json.loads(warehouse.scalar("select record_json from raw.lm_eval_results where source_path like ?",
                                         [f"%{RESULTS.name}"]))
    assert stored == json.loads(RESULTS.read_bytes())


def test_a_line_missing_its_metric_is_quarantined_with_the_reason(tmp_path, warehouse):
    good, missing = _lines(TOY_MC)[:2]
    del missing["acc_norm"]
    warehouse.ingest(_samples_file(tmp_path, [good, missing]))
    assert warehouse.scalar("select count(*) from raw.lm_eval_sample") == 1
    (row,) = warehouse.quarantine()
    assert (row["source_line"], row["format"], row["error_kind"]) == (2, "lm_eval_sample", "schema")
    assert row["error_pointer"] == "/lm_eval/scores/1/value"
    assert "has its value in the line" in row["error_message"]
    assert json.loads(row["raw_text"])["lm_eval"]["scores"][1] == {"metric": "acc_norm"}


def test_a_line_with_no_metrics_list_is_quarantined_with_the_reason(tmp_path, warehouse):
    old = {key: value for key, value in _lines(TOY_MC)[0].items() if key not in ("metrics", "filter")}
    warehouse.ingest(_samples_file(tmp_path, [old]))
    (row,) = warehouse.quarantine()
    assert row["format"] == "lm_eval_sample" and row["error_pointer"] in ("/sample/filter", "/sample/metrics")
    assert "lm-eval 0.4.3 and later" in row["error_message"]


def test_a_samples_file_that_lost_its_name_is_quarantined_with_what_to_do(tmp_path, warehouse):
    renamed = shutil.copy(TOY_MC, tmp_path / "toy_mc.jsonl")
    warehouse.ingest(renamed)
    rows = warehouse.quarantine()
    assert len(rows) == 3
    assert {(r["format"], r["error_pointer"]) for r in rows} == {("lm_eval_sample", "/lm_eval")}
    assert "samples_<task>_<date>.jsonl" in rows[0]["error_message"]
    assert rows[0]["raw_text"] == TOY_MC.read_text(encoding="utf-8").splitlines()[0]


def test_a_bare_nan_metric_becomes_null_and_loads(tmp_path, warehouse):
    line = TOY_MC.read_text(encoding="utf-8").splitlines()[0].replace('"acc_norm": 0.0', '"acc_norm": NaN')
    path = _samples_file(tmp_path, [line])
    (record,) = read_samples(path, LIMIT)
    assert json.loads(record.data)["lm_eval"]["scores"][1] == {"metric": "acc_norm", "value": None}
    results = tmp_path / "results_2026-11-21T15-21-55.633933.json"
    results.write_text(RESULTS.read_text(encoding="utf-8").replace('"exact_match_stderr,none": 0.0\n',
                                                                   '"exact_match_stderr,none": NaN\n', 1))
    summary = warehouse.ingest(path, results)
    assert summary.quarantined == 0 and summary.accepted == 2
    stored = json.loads(warehouse.scalar("select record_json from raw.lm_eval_results"))
    assert stored["results"]["math_perturbed_full"]["exact_match_stderr,none"] is None


def test_a_line_that_is_not_json_is_passed_on_for_the_parser_to_explain(tmp_path, warehouse):
    path = _samples_file(tmp_path, [b'{"doc_id": 0, "filter": "none"'])
    (record,) = read_records(path)
    assert record.data == b'{"doc_id": 0, "filter": "none"'
    warehouse.ingest(path)
    assert warehouse.quarantine()[0]["error_kind"] == "invalid_json"


def test_other_jsonl_and_json_files_are_read_as_before(tmp_path):
    for path in sorted((FIXTURES / "every_eval_ever").iterdir()):
        if path.suffix in (".json", ".jsonl"):
            records = list(read_records(path))
            assert records and all(not r.data.startswith(b'{"lm_eval"') for r in records)
            if path.suffix == ".jsonl":
                assert [r.data for r in records] == path.read_bytes().rstrip(b"\n").split(b"\n")
