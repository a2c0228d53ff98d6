"""AIF eval-form records: one rater's (human, LLM judge, hybrid, SME, end user) form on one response."""

from ingest.formats.base import RecordFormat


def _key(record: dict) -> str | None:
    value = record.get("eval_id")
    return value if isinstance(value, str) and value else None


EVAL_FORM = RecordFormat(
    name="eval_form",
    title="AIF eval form",
    schemas={"1.0.0": "eval_form/eval-form.schema.json"},
    looks_like=lambda r: "eval_id" in r and ("rater" in r or "universal" in r),
    natural_key=_key,
    natural_key_name="eval_id",
)
