"""The YAML reader: ADP evaluation documents become one JSON record per suite, read as YAML 1.2.

What a YAML-sourced record is (its JSON rendering, its position in the suites list, the byte where it starts), what
gives no record (an ADP-Minimal `evaluation: {}`), and what makes a file unreadable, with a message that says where.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ingest.byte_order_mark import shed_bom
from ingest.readers_yaml import read_yaml
from ingest.sources import DEFAULT_MAX_RECORD_BYTES, SUPPORTED_SUFFIXES, SourceError, expand_paths

TWO_SUITES = """\
# two suites, the second with execution triggers
suites:
  - id: first
    metrics:
      - {id: m1, type: deterministic, function: noop, threshold: true}
  - id: second
    metrics:
      - id: m2
        type: telemetry
        metric: p95_latency_ms
        max_ms: 2500
        execution:
          on: [push, nightly]
"""


def _records(tmp_path: Path, text: str, name: str = "suites.yaml") -> list:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return list(read_yaml(path, DEFAULT_MAX_RECORD_BYTES))


def test_each_suite_is_a_record_numbered_from_one_with_its_byte_offset(tmp_path):
    records = _records(tmp_path, TWO_SUITES)
    assert [r.line for r in records] == [1, 2]
    data = TWO_SUITES.encode("utf-8")
    assert data[records[0].offset:].startswith(b"id: first")
    assert data[records[1].offset:].startswith(b"id: second")
    assert json.loads(records[0].data) == {
        "id": "first", "metrics": [{"id": "m1", "type": "deterministic", "function": "noop", "threshold": True}]}


def test_yaml_is_read_as_yaml_1_2_so_on_stays_a_key(tmp_path):
    # YAML 1.1 (PyYAML's default) reads `on` as true: ADP's execution.on would become {"true": [...]}.
    second = json.loads(_records(tmp_path, TWO_SUITES)[1].data)
    assert second["metrics"][0]["execution"] == {"on": ["push", "nightly"]}


@pytest.mark.parametrize("scalar, value", [
    ("yes", "yes"), ("off", "off"), ("2026-11-21", "2026-11-21"), ("1:20", "1:20"), ("true", True), ("~", None),
    ("0x1F", 31), ("1e3", 1000.0), ("0.85", 0.85), ("012", 12),
])
def test_scalars_follow_the_yaml_1_2_core_schema(tmp_path, scalar, value):
    record = _records(tmp_path, f"suites:\n  - id: s\n    description: {scalar}\n    metrics: []\n")[0]
    assert json.loads(record.data)["description"] == value


def test_an_agent_manifests_evaluation_block_gives_its_suites(tmp_path):
    text = "adp_version: '0.1.0'\nid: agent\nevaluation:\n  suites:\n    - id: only\n      metrics: []\n"
    records = _records(tmp_path, text)
    assert [json.loads(r.data)["id"] for r in records] == ["only"]
    assert text.encode()[records[0].offset:].startswith(b"id: only")


def test_an_adp_minimal_manifest_gives_no_record(tmp_path):
    assert _records(tmp_path, "id: agent\nevaluation: {}\n") == []


def test_another_yaml_document_is_one_record_for_detection_to_name(tmp_path):
    records = _records(tmp_path, "name: not an evaluation\nitems: [1, 2]\n")
    assert [json.loads(r.data) for r in records] == [{"name": "not an evaluation", "items": [1, 2]}]


def test_anchors_and_merge_keys_are_expanded(tmp_path):
    text = ("defaults: &judge {type: llm_judge, model: gpt-4.2}\n"
            "suites:\n  - id: s\n    metrics:\n      - {<<: *judge, id: g, model: gpt-5}\n")
    metric = json.loads(_records(tmp_path, text)[0].data)["metrics"][0]
    assert metric == {"type": "llm_judge", "model": "gpt-5", "id": "g"}


@pytest.mark.parametrize("text, kind, where", [
    ("suites:\n  - id: a\n    id: b\n    metrics: []\n", "duplicate_key", "line 3"),
    ("suites:\n  - id: a\n   metrics: [\n", "invalid_yaml", "line"),
    ("suites:\n  - {1: a}\n", "invalid_yaml", "not a string"),
])
def test_a_file_that_cannot_be_read_says_why_and_where(tmp_path, text, kind, where):
    with pytest.raises(SourceError) as caught:
        _records(tmp_path, text)
    assert caught.value.kind == kind and where in caught.value.message


def test_invalid_utf8_is_named(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_bytes(b"suites:\n  - id: caf\xe9\n")
    with pytest.raises(SourceError) as caught:
        list(read_yaml(path, DEFAULT_MAX_RECORD_BYTES))
    assert caught.value.kind == "invalid_utf8" and "0xe9" in caught.value.message


def test_an_alias_bomb_is_refused_without_expanding_it(tmp_path):
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, "
              f"*a{i - 1}, *a{i - 1}]" for i in range(1, 9)]
    with pytest.raises(SourceError) as caught:
        _records(tmp_path, "\n".join(lines) + "\n")
    assert caught.value.kind == "too_large"


def test_a_utf8_bom_goes_with_the_first_record_and_offsets_stay_the_files(tmp_path):
    path = tmp_path / "bom.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + TWO_SUITES.encode())
    records = list(read_yaml(path, DEFAULT_MAX_RECORD_BYTES))
    # The mark is the ingester's to repair or refuse (tests/ingest/test_bad_input.py), as in any file.
    first, _ = shed_bom(records[0])
    assert records[0].data.startswith(b"\xef\xbb\xbf") and not records[1].data.startswith(b"\xef\xbb\xbf")
    assert path.read_bytes()[first.offset:].startswith(b"id: first")
    assert path.read_bytes()[records[1].offset:].startswith(b"id: second")


def test_yaml_files_are_found_in_folders_with_both_suffixes(tmp_path):
    (tmp_path / "a.yaml").write_text("suites: []\n")
    (tmp_path / "b.yml").write_text("suites: []\n")
    assert {p.name for p in expand_paths([str(tmp_path)])} == {"a.yaml", "b.yml"}
    assert ".yaml" in SUPPORTED_SUFFIXES and ".yml" in SUPPORTED_SUFFIXES


def test_an_unreadable_yaml_file_is_quarantined_as_a_whole(warehouse, tmp_path):
    path = tmp_path / "dup.yaml"
    path.write_text("suites:\n  - id: a\n    id: b\n    metrics: []\n", encoding="utf-8")
    summary = warehouse.ingest(path)
    assert summary.files[0].status == "unreadable"
    row = warehouse.quarantine()[0]
    assert row["error_kind"] == "duplicate_key" and row["source_line"] is None


def test_an_unknown_yaml_document_is_quarantined_as_unknown(warehouse, tmp_path):
    path = tmp_path / "other.yaml"
    path.write_text("name: hello\n", encoding="utf-8")
    warehouse.ingest(path)
    row = warehouse.quarantine()[0]
    assert (row["error_kind"], row["source_line"], json.loads(row["raw_text"])) == (
        "unknown_format", 1, {"name": "hello"})
