"""The benchmark's bound on the validated ingest: `evalhouse ingest` with its checks switched off, so that what is
left (reading, checksums, parsing, detection, the rows and the load) shows what a faster validator could reach.

Run only by the benchmark, never on a warehouse anyone reads: every record is accepted unchecked. The checks are
replaced when this module is imported, and the ingest's worker processes import it too (they are spawned, and a
spawned process imports the `-m` module it was started from), so the workers run without them as well.
    python -m bench.unvalidated --db DB ingest FILE
"""

from __future__ import annotations

import sys
from typing import Any

import ingest.parse
from evalhouse.cli import main
from ingest.formats.base import Record, RecordFormat
from ingest.validate import ACCEPTED, Validators, Verdict


def _no_duplicate_key_check(data: bytes, value: dict[str, Any]) -> None:
    return None


def _accept(self: Validators, record: Record, fmt: RecordFormat, *, strict: bool, **options: Any) -> Verdict:
    return ACCEPTED  # whatever else the ingest asks of the verdict (versions, repairs named): an unchecked accept


ingest.parse.find_duplicate_key = _no_duplicate_key_check
Validators.validate = _accept

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
