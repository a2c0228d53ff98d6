"""Draft-standard specs (IEEE P<designation>/D1, clause 5): evaluation datasets, rubrics and evaluation
specifications. Three formats, one per document `type`, each with its own raw table (ieee_dataset, ieee_rubric,
ieee_evaluation) and its own schema, written by the project from clause 5 (schemas/ieee_draft/).

A document is recognised by its `type` together with a `schema_version`: no other format carries a top-level
`type` of dataset, rubric or evaluation. A `schema_version` other than "1.0" is detected and then rejected as
unsupported, rather than left unknown.

Natural key: the document's `id` and `version` ("math_arith_v1@1.0"; the id alone when there is no version).
A new version loads beside the old one; a changed document under the same id and version is a conflict.
"""

from __future__ import annotations

from ingest.formats.base import Record, RecordFormat


def _spec_key(record: Record) -> str | None:
    spec_id = record.get("id")
    if not isinstance(spec_id, str) or not spec_id:
        return None
    version = record.get("version")
    return f"{spec_id}@{version}" if isinstance(version, str) and version else spec_id


def _document_of_type(kind: str):
    def looks_like(record: Record) -> bool:
        return record.get("type") == kind and "schema_version" in record

    return looks_like


def _spec_format(kind: str, title: str) -> RecordFormat:
    return RecordFormat(
        name=f"ieee_{kind}",
        title=title,
        schemas={"1.0": f"ieee_draft/{kind}.schema.json"},
        looks_like=_document_of_type(kind),
        natural_key=_spec_key,
        # A conflict's message reads "version 'x@1.0' was already loaded ...: give the new record its own
        # version", and its pointer, /version, is the field to change.
        natural_key_name="version",
    )


IEEE_DATASET = _spec_format("dataset", "draft-standard evaluation dataset")
IEEE_RUBRIC = _spec_format("rubric", "draft-standard evaluation rubric")
IEEE_EVALUATION = _spec_format("evaluation", "draft-standard evaluation specification")
