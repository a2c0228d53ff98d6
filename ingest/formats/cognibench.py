"""CogniBench judge records: an LLM judge's per-criterion verdict on one response, and its human review."""

from ingest.formats.base import RecordFormat


def _key(record: dict) -> str | None:
    value = record.get("evaluation_id")
    return value if isinstance(value, str) and value else None


COGNIBENCH = RecordFormat(
    name="cognibench",
    title="CogniBench judge record",
    schemas={"1": "cognibench/cognibench-judge-record.schema.json"},
    version_field=None,  # the writer records no version; there is one schema
    looks_like=lambda r: "judge_llm_model" in r or "parsed_rubric_scores" in r,
    natural_key=_key,
    natural_key_name="evaluation_id",
    # CogniBench exports a record again when a person completes its review: the same verdict, a later review state.
    versioned_fields=("human_review_status", "human_reviewer_id", "human_review_timestamp", "human_corrected_scores",
                      "human_review_comments"),
)
