"""Real Every Eval Ever files load (with named repairs, counted per file) and fail --strict for the documented
reasons only: nulls in optional fields, single-turn rows carrying interactions, agentic rows carrying output."""

from __future__ import annotations

import json

import pytest

from ingest.formats import FORMATS
from ingest.validate import Validators
from tests.conftest import FIXTURES

EXAMPLES = FIXTURES / "every_eval_ever"
INSTANCE_FILES = sorted(EXAMPLES.glob("*.jsonl"))
AGGREGATE_FILES = sorted(EXAMPLES.glob("*.json"))


def test_every_real_file_loads_with_its_repairs_counted(warehouse):
    summary = warehouse.ingest(EXAMPLES)
    assert summary.quarantined == 0
    assert warehouse.scalar("select count(*) from raw.eee_instance") == 5
    assert warehouse.scalar("select count(*) from raw.eee_aggregate") == 3
    repairs = warehouse.rows(
        "select regexp_extract(source_path, '[^/]+$'), repair, n_records from raw.ingest_repairs order by 1, 2"
    )
    assert repairs == [
        ("GAIA_openai_azure_gpt-4.1-mini-2025-04-14_1770463617.jsonl", "multi_turn_output_ignored", 2),
        ("GAIA_openai_azure_gpt-4.1-mini-2025-04-14_1770463617.jsonl", "null_as_absent", 2),
        ("ai2_arc_ollama_qwen2.5-0.5b_1761001924.jsonl", "null_as_absent", 3),
        ("ai2_arc_ollama_qwen2.5-0.5b_1761001924.jsonl", "single_turn_transcript_ignored", 3),
    ]
    # Each record remembers its own repairs, and the stored text is the original, not the repaired copy.
    assert warehouse.scalar("select count(*) from raw.eee_instance where repairs is null") == 0
    assert warehouse.scalar(
        "select count(*) from raw.eee_instance where json_extract(record_json, '$.input.formatted') = 'null'"
    ) == 5


def test_strict_mode_quarantines_every_real_instance_line_and_loads_the_aggregates(warehouse):
    summary = warehouse.ingest(EXAMPLES, strict=True)
    assert summary.quarantined == 5
    assert {(r["format"], r["error_kind"]) for r in warehouse.quarantine()} == {("eee_instance", "schema")}
    assert warehouse.scalar("select count(*) from raw.eee_aggregate") == 3
    assert warehouse.scalar("select count(*) from raw.ingest_repairs") == 0


def _reason(error) -> str:
    """Which documented real-world deviation a strict schema error is."""
    parent = error.absolute_path[-1] if error.absolute_path else None
    if error.instance is None:
        return "null in an optional field"
    if parent == "interactions" and error.validator == "type":
        return "single_turn row carrying interactions"
    if parent == "output" and error.validator == "type":
        return "agentic row carrying output"
    return f"undocumented: {list(error.absolute_path)} {error.message[:80]}"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("ai2_arc_ollama_qwen2.5-0.5b_1761001924.jsonl",
         {"null in an optional field", "single_turn row carrying interactions"}),
        ("GAIA_openai_azure_gpt-4.1-mini-2025-04-14_1770463617.jsonl",
         {"null in an optional field", "agentic row carrying output"}),
    ],
)
def test_real_instance_files_fail_strict_for_the_documented_reasons_only(name, expected):
    fmt = FORMATS["eee_instance"]
    validators = Validators()
    for line in (EXAMPLES / name).read_text().splitlines():
        record = json.loads(line)
        _, version = fmt.schema_version_for(record)
        reasons = {_reason(e) for e in validators.check_for(fmt, version).errors(record)}
        assert reasons == expected
        assert not validators.validate(record, fmt, strict=True).ok
        assert validators.validate(record, fmt, strict=False).ok


def test_null_fields_named_in_the_formats_doc_are_among_the_repaired_ones():
    fmt = FORMATS["eee_instance"]
    check = Validators().check_for(fmt, "0.2.0")
    nulls = set()
    for path in INSTANCE_FILES:
        for line in path.read_text().splitlines():
            for error in check.errors(json.loads(line)):
                if error.instance is None:
                    nulls.add(error.absolute_path[-1])
    assert nulls == {"formatted", "reasoning_trace", "choices", "tool_call_id"}
