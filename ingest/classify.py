"""What happens to one raw record, decided without a database: parse, detect, validate. A pure function of the
record's bytes and the run's options, so it runs the same in the ingest process or in a worker process
(ingest/workers.py); the pipeline applies the outcomes in file order and does all the writing.

Outcomes are plain tuples (cheap to send between processes):
  (BLANK,)
  (ACCEPT, sha256, format, natural_key, declared_version, repairs)
  (REJECT, sha256, format or None, declared_version, error_kind, json_pointer, message)
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from ingest.byte_order_mark import UTF8_BOM
from ingest.detect import describe_unknown, detect_format
from ingest.formats import FORMATS
from ingest.formats.base import RecordFormat
from ingest.parse import ParseFailure, parse_record
from ingest.sources import RawRecord
from ingest.validate import Validators

BLANK, ACCEPT, REJECT = 0, 1, 2
Outcome = tuple[Any, ...]


@dataclass(frozen=True)
class ClassifyOptions:
    strict: bool
    forced_format: str | None
    max_record_bytes: int
    # Under `strict`, a refusal says when the record loads without --strict (the CLI's ingest; not the API's check,
    # which has no such option).
    name_repairs: bool = False


def classify(raw: RawRecord, options: ClassifyOptions, validators: Validators) -> Outcome:
    data = raw.data
    if not raw.oversized and not data.strip():
        return (BLANK,)
    sha = hashlib.sha256(data).hexdigest()
    forced = FORMATS[options.forced_format] if options.forced_format else None
    try:
        parsed = parse_record(raw, options.max_record_bytes)
        if isinstance(parsed, ParseFailure):
            if parsed.kind == "byte_order_mark":  # the mark is the file's: hashed as the record it precedes, so
                sha = hashlib.sha256(data[len(UTF8_BOM):]).hexdigest()  # a retry without --strict is no edit
            return (REJECT, sha, forced.name if forced else None, None, parsed.kind, parsed.pointer, parsed.message)
        fmt = forced or detect_format(parsed)
        if fmt is None:
            return (REJECT, sha, None, None, "unknown_format", "", describe_unknown(parsed))
        versions = fmt.schema_version_for(parsed)
        declared = versions[0]
        key = fmt.natural_key(parsed)  # before validation: repairs may edit the parsed record
        verdict = validators.validate(parsed, fmt, strict=options.strict, versions=versions,
                                      name_repairs=options.name_repairs)
        if not verdict.ok:
            message = verdict.message or ""
            if verdict.repairs:
                message += (f". Accepted without --strict (repairs: {', '.join(verdict.repairs)}; README "
                            "\"Compatibility repairs\"): ingest the file again without --strict to load it")
            if forced is not None:
                message += _detection_hint(parsed, forced)
            elif fmt.name == "lm_eval_sample":
                message += _foreign_sample_hint(parsed)
            return (REJECT, sha, fmt.name, declared, verdict.kind or "schema", verdict.pointer, message)
        return (ACCEPT, sha, fmt.name, key, declared, verdict.repairs)
    except Exception as exc:  # noqa: BLE001 - one record must never stop the file
        return (REJECT, sha, forced.name if forced else None, None, "internal_error", None,
                f"evalhouse could not process this record ({type(exc).__name__}: {exc}); please report it")


def _detection_hint(record: dict[str, Any], forced: RecordFormat) -> str:
    """When a forced format refuses a record that detection would give another format, say so: the refusal is
    more likely the wrong --format than a bad record."""
    detected = detect_format(record)
    if detected is None or detected is forced:
        return ""
    return (f". Detection finds {detected.name}, not {forced.name}: drop --format to load it as {detected.name}, "
            f"or check that --format {forced.name} is the format you meant")


def _foreign_sample_hint(envelope: dict[str, Any]) -> str:
    """A line of an lm-eval samples file (read as lm-eval samples by its name, ingest/readers_lm_eval.py) that is a
    record of another format: say so, as a forced --format's refusal says it (_detection_hint)."""
    sample = envelope.get("sample")
    detected = detect_format(sample) if isinstance(sample, dict) else None
    if detected is None or detected.name == "lm_eval_sample":
        return ""
    return (f". Detection finds {detected.name}, not lm_eval_sample: this file is read as lm-eval samples by its "
            f"name (samples_<task>_<date>.jsonl), so its lines are taken for lm-eval's; move the {detected.name} "
            "records to a file of their own (any other name) and ingest that")


def classify_batch(batch: list[RawRecord], options: ClassifyOptions, validators: Validators) -> list[Outcome]:
    return [classify(raw, options, validators) for raw in batch]
