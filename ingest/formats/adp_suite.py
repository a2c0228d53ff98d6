"""ADP evaluation suites (Agent Definition Protocol, Evaluation v0.1.0): one record per suite.

Suites come from YAML (ingest/readers_yaml.py): a file with a top-level `suites:` list, or an agent manifest
whose `evaluation:` block holds one. The reader turns each suite into a JSON record (its raw text is that JSON
rendering; the YAML file stays the system of record). Each suite is validated against the published schema's
own `#/definitions/suite`, through schemas/adp/suite.schema.json.

Suites carry no version: the natural key is the suite's `id`, so the same suite read twice (from a suites file
and from the manifest that embeds it) loads once, and a changed suite under an existing id is a conflict: give
the new suite a new id (acme_groundedness_suite_v2).
"""

from __future__ import annotations

from ingest.formats.base import Record, RecordFormat


def _key(record: Record) -> str | None:
    value = record.get("id")
    return value if isinstance(value, str) and value else None


def _looks_like(record: Record) -> bool:
    # A suite's required keys; the other formats never carry a top-level `metrics` list.
    return "id" in record and isinstance(record.get("metrics"), list) and "schema_version" not in record


ADP_SUITE = RecordFormat(
    name="adp_suite",
    title="ADP evaluation suite",
    schemas={"0.1.0": "adp/suite.schema.json"},
    version_field=None,  # a suite records no version; ADP Evaluation v0.1.0 is the one schema
    looks_like=_looks_like,
    natural_key=_key,
    natural_key_name="id",
)
