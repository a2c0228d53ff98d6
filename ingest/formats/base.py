"""What the ingester needs to know about one record format: how to recognise it, which schema each version is
held to, what identifies a record, and which documented compatibility repairs it may apply."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "schemas"

Record = dict[str, Any]


@dataclass(frozen=True)
class Repair:
    """A named, documented change that makes a known real-world deviation validate (never in --strict).

    `apply` edits the parsed record in place and returns True when it changed something. The raw table still
    stores the original text: a repair only decides the verdict, it never rewrites what was received.
    """

    name: str
    description: str
    apply: Callable[[Record, Mapping[str, Any]], bool]  # (record, the schema it is validated against)


@dataclass(frozen=True)
class RecordFormat:
    name: str  # the `--format` value and the raw table's name
    title: str
    schemas: Mapping[str, str]  # schema version -> file under schemas/
    looks_like: Callable[[Record], bool]  # a cheap test on required keys, used by detection
    version_field: str | None = "schema_version"
    version_aliases: Mapping[str, str] = field(default_factory=dict)  # e.g. "0.2.1" is checked as "0.2.2"
    natural_key: Callable[[Record], str | None] = lambda record: None
    natural_key_name: str | None = None
    # Top-level fields a later export of a keyed record may change: a record under a known key that differs from
    # it in these alone is a new version of it (loaded, its record_id the key, '#' and the head of its checksum),
    # not a conflict. Empty: any other content under a known key is a conflict.
    versioned_fields: tuple[str, ...] = ()
    # A record whose bytes are already in the table is not loaded again (the same records under other bytes are
    # the same records); False where a record belongs to its file, read with the rest of it (an Inspect log's
    # samples, joined to the header of the file that holds them).
    loaded_once: bool = True
    repairs: tuple[Repair, ...] = ()

    @property
    def latest_version(self) -> str:
        return max(self.schemas, key=_version_tuple)

    def schema_version_for(self, record: Record) -> tuple[str | None, str | None]:
        """(the version the record declares, the schema version to check it against).

        A record without a declared version is checked against the latest schema, whose `required` list then
        says what is missing; a declared version with no schema gives (declared, None).
        """
        if self.version_field is None:
            return None, self.latest_version
        declared = record.get(self.version_field)
        if declared is None:
            return None, self.latest_version
        if not isinstance(declared, str):
            return str(declared), self.latest_version
        version = self.version_aliases.get(declared, declared)
        return declared, version if version in self.schemas else None

    def schema_path(self, version: str) -> Path:
        return SCHEMA_DIR / self.schemas[version]


def _version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split(".") if part.isdigit())
