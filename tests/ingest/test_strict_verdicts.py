"""With --strict, the ingester's verdict on every record is the `jsonschema` package's on the same schema with
its format checker: held here on more than 10,000 valid and mutated records per format, both through the
validator and end to end through `evalhouse ingest --strict`. The compiled fast path (ingest/fastcheck.py) is
held equal to jsonschema in both directions, so it is exact, not merely safe."""

from __future__ import annotations

import copy
import json
import random
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import validators as js_validators

from ingest.formats import FORMATS
from ingest.validate import Validators
from tests.conftest import FIXTURES, Warehouse

pytestmark = pytest.mark.slow

PER_FORMAT = 10_500
RECORD_FORMATS = ("eee_instance", "eee_aggregate", "cognibench", "eval_form")

_STRINGS = ["", "x", "x" * 501, "x" * 1001, "yesterday", "2026-11-16T10:04:00Z", "2026-02-30T10:04:00Z",
            "not-a-uuid", "6f1c2b9e-3d7a-4c51-9a43-0d2a8f7c1e55", "https://example.com/t", "not a uri",
            "é中文🙂", "violating", "high", "low", "llm_judge", "hybrid", "1.0.0", "0.2.2", "Yes", "PARTIAL",
            "Completed", "single_turn", "agentic", "much_better", "over_refusal", "\u0000", " "]
_NUMBERS = [0, 1, 2, 3, 4, 5, 6, -1, 1.0, 1.5, 3.0, 5.0000001, 1e308, -0.0, 10**20]


@pytest.fixture(scope="module")
def seed_records(demo_dir) -> dict[str, list[dict]]:
    """Valid records of every format: the demo data plus the real Every Eval Ever examples."""
    found: dict[str, list[dict]] = {name: [] for name in RECORD_FORMATS}
    paths = [*demo_dir.rglob("*.jsonl"), *demo_dir.rglob("*.json"), *(FIXTURES / "every_eval_ever").iterdir()]
    validators = Validators()
    for path in sorted(paths):
        texts = path.read_text().splitlines() if path.suffix == ".jsonl" else [path.read_text()]
        for text in texts:
            try:
                record = json.loads(text)
            except ValueError:
                continue
            for name in RECORD_FORMATS:
                if FORMATS[name].looks_like(record) and validators.validate(copy.deepcopy(record), FORMATS[name], strict=False).ok:
                    found[name].append(record)
                    break
    for name, records in found.items():
        assert len(records) >= 50, name
    return found


def _paths(node: Any, path: tuple = ()) -> Iterator[tuple]:
    yield path
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node[:3]):
            yield from _paths(value, (*path, index))


def _mutate(record: dict, rng: random.Random) -> dict:
    record = copy.deepcopy(record)
    for _ in range(rng.choice((1, 1, 2, 3))):
        paths = [p for p in _paths(record) if p]
        if not paths:
            break
        path = rng.choice(paths)
        parent = record
        for part in path[:-1]:
            parent = parent[part]
        key = path[-1]
        action = rng.randrange(9)
        if action == 0 and isinstance(parent, dict):
            del parent[key]
        elif action == 1:
            parent[key] = None
        elif action == 2:
            parent[key] = rng.choice(_STRINGS)
        elif action == 3:
            parent[key] = rng.choice(_NUMBERS)
        elif action == 4:
            parent[key] = rng.choice([True, False, [], {}, [1, 1], ["a", "a"], {"k": "v"}])
        elif action == 5 and isinstance(parent, dict):
            parent[rng.choice(["extra", "x-note", "Problem Understanding", "hazard.privacy", "helpfulness"])] = rng.choice(
                [1, "v", None, {"score": "yes"}, {"verdict": "violating"}])
        elif action == 6 and isinstance(parent[key], list) and parent[key]:
            parent[key].append(copy.deepcopy(parent[key][0]))
        elif action == 7:
            value = parent[key]
            for _ in range(rng.randrange(1, 6)):
                value = {"nested": value} if rng.random() < 0.5 else [value]
            parent[key] = value
        else:
            parent[key] = rng.choice(_STRINGS + _NUMBERS)
    return record


def _oracle(record: dict, format_name: str, schemas: dict) -> bool | None:
    """jsonschema's verdict with the schema of the record's declared version; None when there is none."""
    fmt = FORMATS[format_name]
    _, version = fmt.schema_version_for(record)
    if version is None:
        return None
    key = (format_name, version)
    if key not in schemas:
        schema = json.loads(fmt.schema_path(version).read_text())
        cls = js_validators.validator_for(schema)
        schemas[key] = cls(schema, format_checker=cls.FORMAT_CHECKER)
    return schemas[key].is_valid(record)


def _corpus(seed_records, format_name: str) -> list[dict]:
    rng = random.Random(f"strict-{format_name}")
    records = seed_records[format_name]
    corpus = [copy.deepcopy(r) for r in records[:500]]
    while len(corpus) < PER_FORMAT:
        corpus.append(_mutate(rng.choice(records), rng))
    return corpus


@pytest.mark.parametrize("format_name", RECORD_FORMATS)
def test_strict_verdicts_and_the_compiled_check_equal_jsonschema(seed_records, format_name):
    fmt, validators, schemas = FORMATS[format_name], Validators(), {}
    counts = {"valid": 0, "invalid": 0, "unsupported_version": 0}
    for record in _corpus(seed_records, format_name):
        expected = _oracle(record, format_name, schemas)
        verdict = validators.validate(copy.deepcopy(record), fmt, strict=True)
        if expected is None:
            assert not verdict.ok and verdict.kind == "unsupported_version"
            counts["unsupported_version"] += 1
            continue
        assert verdict.ok == expected, (format_name, verdict, json.dumps(record)[:500])
        # The fast path is exact both ways: it never accepts what jsonschema rejects, nor the reverse.
        _, version = fmt.schema_version_for(record)
        assert validators.check_for(fmt, version).is_valid(record) == expected
        counts["valid" if expected else "invalid"] += 1
    assert counts["valid"] >= 500 and counts["invalid"] >= 3000, counts


def _own_ids(corpus: list[dict], format_name: str) -> list[dict]:
    """Each record its own natural key (where the key is still well formed), so no record is skipped as
    already loaded: the end-to-end verdict is then the schema's alone."""
    key = FORMATS[format_name].natural_key_name
    if key is None:
        return corpus
    out = []
    for i, record in enumerate(corpus):
        value = record.get(key)
        if format_name == "eval_form" and isinstance(value, str) and len(value) == 36 and value.count("-") == 4:
            record = {**record, key: str(uuid.UUID(int=i + 1))}
        elif format_name == "cognibench" and isinstance(value, str) and value:
            record = {**record, key: f"eval_{i}"}
        out.append(record)
    return out


def test_ingest_strict_end_to_end_accepts_exactly_what_jsonschema_accepts(seed_records, tmp_path):
    schemas: dict = {}
    for format_name in RECORD_FORMATS:
        corpus = _own_ids(_corpus(seed_records, format_name)[:1500], format_name)
        path = tmp_path / f"{format_name}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in corpus))
        warehouse = Warehouse(tmp_path / f"{format_name}.duckdb")
        warehouse.ingest(path, strict=True, forced_format=format_name)
        accepted = {line for (line,) in warehouse.rows(f"select source_line from raw.{format_name}")}
        expected = {line for line, record in enumerate(corpus, start=1) if _oracle(record, format_name, schemas)}
        assert accepted == expected, (format_name, sorted(accepted ^ expected)[:10])
        assert warehouse.scalar("select count(*) from raw.quarantine") == len(corpus) - len(expected)
