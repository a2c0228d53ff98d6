"""Spec formats at ingest: the draft standard's dataset / rubric / evaluation documents and ADP suites read from YAML.

Valid fixtures load into their raw tables; invalid documents are quarantined with the JSON pointer of the failing
part and a reason; natural keys (id and version) make a new version load and a changed document a conflict; and
detection never mistakes a spec for another format, or another format for a spec.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from ingest.detect import detect_format
from ingest.formats import FORMATS
from tests.conftest import FIXTURES, cognibench_record, eval_form_record, instance_record

SPECS = FIXTURES / "specs"


def _inline_examples() -> list[dict]:
    return json.loads((SPECS / "inline_examples.json").read_text(encoding="utf-8"))


def _write_json(path: Path, value) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2), encoding="utf-8")
    return path


def _only(rows: list):
    assert len(rows) == 1, rows
    return rows[0]


# --- the reference files ------------------------------------------------------------------------------------------


def test_the_draft_standards_inline_examples_load_one_per_table(warehouse):
    summary = warehouse.ingest(SPECS / "inline_examples.json")
    assert summary.quarantined == 0
    assert warehouse.rows("select record_id, source_line from raw.ieee_dataset") == [("math_arith_v1@1.0", 1)]
    assert warehouse.rows("select record_id, source_line from raw.ieee_rubric") == [("exact_match", 2)]
    assert warehouse.rows("select record_id, source_line from raw.ieee_evaluation") == [("eval_basic_math_v1", 3)]


def test_the_acme_suite_loads_as_one_json_record_per_suite(warehouse):
    warehouse.ingest(SPECS / "acme-eval-suite.yaml")
    record_id, line, offset, text = _only(warehouse.rows(
        "select record_id, source_line, byte_offset, record_json from raw.adp_suite"))
    assert (record_id, line) == ("acme_groundedness_suite", 1)
    suite = json.loads(text)
    assert list(suite) == ["id", "description", "metrics", "scoring", "promotion_threshold"]  # order as written
    assert suite["scoring"]["weights"] == {"json_validity": 0.3, "groundedness": 0.5, "latency": 0.2}
    # The byte offset finds the suite in the YAML file, which stays the system of record.
    yaml_bytes = (SPECS / "acme-eval-suite.yaml").read_bytes()
    assert yaml_bytes[offset:].startswith(b'id: "acme_groundedness_suite"')


def test_an_agent_manifests_evaluation_block_holds_the_same_suite_and_is_not_loaded_twice(warehouse):
    warehouse.ingest(SPECS / "acme-eval-suite.yaml")
    summary = warehouse.ingest(SPECS / "acme-full-agent.yaml")
    outcome = summary.files[0]
    assert outcome.by_format["adp_suite"].skipped == 1 and outcome.quarantined == 0
    assert warehouse.scalar("select count(*) from raw.adp_suite") == 1


def test_an_agent_manifest_alone_loads_its_suite(warehouse):
    warehouse.ingest(SPECS / "acme-full-agent.yaml")
    offset = warehouse.scalar("select byte_offset from raw.adp_suite")
    assert (SPECS / "acme-full-agent.yaml").read_bytes()[offset:].startswith(b'id: "acme_groundedness_suite"')


def test_the_bad_threshold_example_is_quarantined_with_pointer_and_reason(warehouse):
    summary = warehouse.ingest(SPECS / "invalid_eval_bad_threshold.yaml")
    assert summary.accepted == 0
    row = _only(warehouse.quarantine())
    assert (row["format"], row["error_kind"], row["error_pointer"], row["source_line"]) == (
        "adp_suite", "schema", "/metrics/0/threshold", 1)
    assert "number or boolean" in row["error_message"] and '"not-boolean"' in row["error_message"]
    assert json.loads(row["raw_text"])["id"] == "bad"  # the suite's JSON rendering is kept whole


# --- schema verdicts: invalid draft-standard documents --------------------------------------------------------------


def _dataset() -> dict:
    return copy.deepcopy(_inline_examples()[0])


def _rubric() -> dict:
    return copy.deepcopy(_inline_examples()[1])


def _evaluation() -> dict:
    return copy.deepcopy(_inline_examples()[2])


def _without(record: dict, *keys: str) -> dict:
    return {k: v for k, v in record.items() if k not in keys}


INVALID = [
    ("dataset without examples", lambda: _without(_dataset(), "examples"), "ieee_dataset", "/examples"),
    ("an example without input", lambda: {**_dataset(), "examples": [{"expected_output": "2"}]},
     "ieee_dataset", "/examples/0/input"),
    ("an example with neither expected_output nor target_scores",
     lambda: {**_dataset(), "examples": [{"input": "1 + 1 = ?"}]}, "ieee_dataset", "/examples/0"),
    ("a numeric expected_output", lambda: {**_dataset(), "examples": [{"input": "x", "expected_output": 2}]},
     "ieee_dataset", "/examples/0/expected_output"),
    ("a rubric without metric", lambda: _without(_rubric(), "metric"), "ieee_rubric", "/metric"),
    ("a non-boolean case_sensitive", lambda: {**_rubric(), "params": {"case_sensitive": "no"}},
     "ieee_rubric", "/params/case_sensitive"),
    ("a regex pattern that does not compile",
     lambda: {**_rubric(), "metric": "regex_match", "params": {"pattern": "(unclosed"}}, "ieee_rubric",
     "/params/pattern"),
    ("an evaluation with no dataset", lambda: _without(_evaluation(), "dataset_id"), "ieee_evaluation", ""),
    ("an evaluation with both dataset_id and dataset",
     lambda: {**_evaluation(), "dataset": {"id": "d", "examples": [{"input": "x", "expected_output": "y"}]}},
     "ieee_evaluation", ""),
    ("an evaluation with no rubric", lambda: _without(_evaluation(), "rubric_ids"), "ieee_evaluation", ""),
    ("a weighted_mean without weights",
     lambda: {**_evaluation(), "config": {"aggregation": {"method": "weighted_mean"}}}, "ieee_evaluation",
     "/config/aggregation/weights"),
    ("an unknown aggregation method",
     lambda: {**_evaluation(), "config": {"aggregation": {"method": "geometric_mean"}}}, "ieee_evaluation",
     "/config/aggregation/method"),
    ("a promotion threshold above 1",
     lambda: {**_evaluation(), "config": {"aggregation": {"method": "mean", "promotion_threshold": 85}}},
     "ieee_evaluation", "/config/aggregation/promotion_threshold"),
    ("a negative weight",
     lambda: {**_evaluation(), "config": {"aggregation": {"method": "weighted_mean", "weights": {"exact_match": -1}}}},
     "ieee_evaluation", "/config/aggregation/weights/exact_match"),
    ("a typo in config.aggregation",
     lambda: {**_evaluation(), "config": {"aggregation": {"method": "mean", "weight": {"exact_match": 1}}}},
     "ieee_evaluation", "/config/aggregation/weight"),
]


@pytest.mark.parametrize("name, build, fmt, pointer", INVALID, ids=[case[0] for case in INVALID])
def test_an_invalid_spec_document_is_quarantined_at_its_pointer(warehouse, tmp_path, name, build, fmt, pointer):
    warehouse.ingest(_write_json(tmp_path / "spec.json", build()))
    row = _only(warehouse.quarantine())
    assert (row["format"], row["error_kind"], row["error_pointer"]) == (fmt, "schema", pointer)
    assert row["error_message"]


def test_a_rule_violation_names_the_rule(warehouse, tmp_path):
    warehouse.ingest(_write_json(tmp_path / "spec.json", _without(_evaluation(), "dataset_id")))
    assert "Rule: a specification names its dataset" in _only(warehouse.quarantine())["error_message"]


def test_another_schema_version_is_detected_and_named_unsupported(warehouse, tmp_path):
    warehouse.ingest(_write_json(tmp_path / "spec.json", {**_rubric(), "schema_version": "2.0"}))
    row = _only(warehouse.quarantine())
    assert (row["format"], row["error_kind"], row["error_pointer"]) == ("ieee_rubric", "unsupported_version",
                                                                        "/schema_version")


def test_a_spec_embedding_its_dataset_and_rubrics_loads(warehouse):
    summary = warehouse.ingest(SPECS / "rescore_spec.json")
    assert summary.quarantined == 0
    assert warehouse.scalar("select record_id from raw.ieee_evaluation") == "rescore_check@1"


# --- natural keys: id and version -----------------------------------------------------------------------------------


def test_a_new_version_loads_beside_the_old_one(warehouse, tmp_path):
    warehouse.ingest(_write_json(tmp_path / "v1.json", {**_evaluation(), "version": "1.0"}))
    warehouse.ingest(_write_json(tmp_path / "v2.json", {**_evaluation(), "version": "1.1", "metrics": ["EM"]}))
    assert sorted(r[0] for r in warehouse.rows("select record_id from raw.ieee_evaluation")) == [
        "eval_basic_math_v1@1.0", "eval_basic_math_v1@1.1"]


def test_a_changed_document_under_the_same_id_and_version_is_a_conflict(warehouse, tmp_path):
    warehouse.ingest(_write_json(tmp_path / "a.json", _dataset()))
    changed = _dataset()
    changed["examples"][1]["expected_output"] = "3"
    warehouse.ingest(_write_json(tmp_path / "b.json", changed))
    row = _only(warehouse.quarantine())
    assert (row["format"], row["error_kind"], row["error_pointer"]) == ("ieee_dataset", "conflict", "/version")
    assert "math_arith_v1@1.0" in row["error_message"] and "own version" in row["error_message"]
    assert warehouse.scalar("select count(*) from raw.ieee_dataset") == 1


def test_the_same_document_again_is_skipped(warehouse, tmp_path):
    (tmp_path / "a.json").write_text(json.dumps([_rubric()]), encoding="utf-8")
    (tmp_path / "b.json").write_text(json.dumps([_rubric(), _dataset()]), encoding="utf-8")
    warehouse.ingest(tmp_path / "a.json")
    summary = warehouse.ingest(tmp_path / "b.json")
    assert summary.files[0].by_format["ieee_rubric"].skipped == 1
    assert warehouse.scalar("select count(*) from raw.ieee_rubric") == 1 and warehouse.quarantine() == []


def test_identity_is_the_records_bytes_so_a_reindented_document_is_a_conflict(warehouse, tmp_path):
    # The ingester compares a keyed record's bytes (docs/specs.md): reformatting a document is a change.
    warehouse.ingest(_write_json(tmp_path / "a.json", _rubric()))
    (tmp_path / "b.json").write_text(json.dumps(_rubric()), encoding="utf-8")
    warehouse.ingest(tmp_path / "b.json")
    assert _only(warehouse.quarantine())["error_kind"] == "conflict"


def test_a_changed_suite_under_an_existing_id_is_a_conflict(warehouse, tmp_path):
    warehouse.ingest(SPECS / "acme-eval-suite.yaml")
    changed = (SPECS / "acme-eval-suite.yaml").read_text(encoding="utf-8").replace("0.85", "0.9")
    (tmp_path / "changed.yaml").write_text(changed, encoding="utf-8")
    warehouse.ingest(tmp_path / "changed.yaml")
    row = _only(warehouse.quarantine())
    assert (row["format"], row["error_kind"], row["error_pointer"]) == ("adp_suite", "conflict", "/id")


# --- detection ------------------------------------------------------------------------------------------------------

SPEC_FORMATS = {"ieee_dataset", "ieee_rubric", "ieee_evaluation", "adp_suite"}


def _other_format_records() -> list[tuple[str, dict]]:
    schemas = FIXTURES / "schemas"
    records = [("eee_instance", instance_record()), ("eval_form", eval_form_record()),
               ("cognibench", cognibench_record())]
    for path in sorted(schemas.glob("*.json*")):
        fmt = ("eval_form" if path.name.startswith("eval_form") else "cognibench" if path.name.startswith("cognibench")
               else "eee_aggregate" if path.name.startswith("eee_aggregate") else "eee_instance")
        lines = path.read_text(encoding="utf-8").splitlines() if path.suffix == ".jsonl" else [path.read_text()]
        records += [(fmt, json.loads(line)) for line in lines if line.strip()]
    return records


def test_no_other_format_is_detected_as_a_spec_and_no_spec_as_another_format():
    for fmt, record in _other_format_records():
        assert detect_format(record).name == fmt
        assert not any(FORMATS[name].looks_like(record) for name in SPEC_FORMATS)
    specs = [*_inline_examples(), json.loads((SPECS / "rescore_spec.json").read_text())]
    specs += json.loads((SPECS / "annex_b_spec.json").read_text())
    for record in specs:
        matches = [name for name, fmt in FORMATS.items() if fmt.looks_like(record)]
        assert matches == [f"ieee_{record['type']}"]


def test_a_suite_is_detected_only_as_a_suite(warehouse):
    warehouse.ingest(SPECS / "acme-eval-suite.yaml")
    suite = json.loads(warehouse.scalar("select record_json from raw.adp_suite"))
    assert [name for name, fmt in FORMATS.items() if fmt.looks_like(suite)] == ["adp_suite"]
