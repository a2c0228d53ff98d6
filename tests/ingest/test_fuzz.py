"""Property-based fuzzing (Hypothesis): mutated records of every format, and mutated bytes, never make the
ingester raise, and its strict verdict stays jsonschema's whatever the mutation (types, missing and extra keys,
boundary values, unicode, huge strings, deep nesting)."""

from __future__ import annotations

import copy
import json
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import validators as js_validators

from ingest.classify import ACCEPT, BLANK, REJECT, ClassifyOptions, classify
from ingest.formats import FORMATS
from ingest.parse import find_duplicate_key
from ingest.sources import RawRecord
from ingest.validate import Validators
from tests.conftest import FIXTURES, cognibench_record, eval_form_record, instance_record

SEEDS: dict[str, list[dict]] = {
    "eee_instance": [instance_record(), *(json.loads(line) for line in
                     (FIXTURES / "every_eval_ever" / "ai2_arc_ollama_qwen2.5-0.5b_1761001924.jsonl").read_text().splitlines())],
    "eee_aggregate": [json.loads(p.read_text()) for p in sorted((FIXTURES / "every_eval_ever").glob("*.json"))],
    "cognibench": [cognibench_record()],
    "eval_form": [eval_form_record(), json.loads((FIXTURES / "schemas" / "eval_form_complete.json").read_text())],
}
VALIDATORS = Validators()
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False), st.sampled_from([0, 1, 3, 5, 6, -1, 1.0, 0.5, 2**53]),
    st.text(max_size=30), st.sampled_from(["", "x" * 501, "x" * 1001, "yesterday", "é中文🙂\u202e", "\x00",
                                           "2026-11-16T10:04:00Z", "6f1c2b9e-3d7a-4c51-9a43-0d2a8f7c1e55",
                                           "violating", "hybrid", "much_better", "Completed", "<script>"]),
)
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                      max_leaves=12)


def _paths(node: Any, path: tuple = ()) -> list[tuple]:
    found = [path]
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node[:3]):
            found += _paths(value, (*path, index))
    return found


@st.composite
def mutated(draw, format_name: str) -> dict:
    record = copy.deepcopy(draw(st.sampled_from(SEEDS[format_name])))
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        paths = [p for p in _paths(record) if p]
        path = draw(st.sampled_from(paths))
        parent = record
        for part in path[:-1]:
            parent = parent[part]
        key = path[-1]
        action = draw(st.sampled_from(["delete", "replace", "extra", "deepen", "huge"]))
        if action == "delete" and isinstance(parent, dict):
            del parent[key]
        elif action == "extra" and isinstance(parent, dict):
            parent[draw(st.text(min_size=1, max_size=12))] = draw(values)
        elif action == "deepen":
            value = parent[key]
            for _ in range(draw(st.integers(min_value=1, max_value=60))):
                value = [value]
            parent[key] = value
        elif action == "huge":
            parent[key] = "é" * draw(st.sampled_from([499, 500, 501, 1000, 1001, 100_000]))
        else:
            parent[key] = draw(values)
    return record


def _oracle(record: dict, format_name: str) -> bool | None:
    fmt = FORMATS[format_name]
    _, version = fmt.schema_version_for(record)
    if version is None:
        return None
    schema = VALIDATORS.check_for(fmt, version).schema
    cls = js_validators.validator_for(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER).is_valid(record)


def _raw(data: bytes, line: int = 1) -> RawRecord:
    return RawRecord(line, 0, data, len(data))


@pytest.mark.parametrize("format_name", sorted(SEEDS))
def test_strict_verdict_is_jsonschemas_whatever_the_mutation(format_name):
    @FUZZ
    @given(mutated(format_name))
    def check(record):
        expected = _oracle(record, format_name)
        verdict = VALIDATORS.validate(copy.deepcopy(record), FORMATS[format_name], strict=True)
        if expected is None:
            assert not verdict.ok
        else:
            assert verdict.ok == expected
            if not verdict.ok:
                assert verdict.pointer is not None and verdict.message

    check()


@pytest.mark.parametrize("format_name", sorted(SEEDS))
def test_classifying_a_mutated_record_never_raises_and_explains_every_rejection(format_name):
    options = ClassifyOptions(strict=False, forced_format=None, max_record_bytes=1_000_000)

    @FUZZ
    @given(mutated(format_name))
    def check(record):
        outcome = classify(_raw(json.dumps(record, ensure_ascii=False).encode()), options, VALIDATORS)
        assert outcome[0] in (ACCEPT, REJECT)
        if outcome[0] == REJECT:
            assert outcome[4] != "internal_error", outcome
            assert outcome[6]  # a message a person can read

    check()


@FUZZ
@given(st.binary(max_size=400), st.sampled_from(list(SEEDS)))
def test_arbitrary_bytes_and_mangled_records_never_raise(noise, format_name):
    options = ClassifyOptions(strict=True, forced_format=None, max_record_bytes=1_000_000)
    seed = orjson.dumps(SEEDS[format_name][0])
    cut = len(noise) % max(len(seed), 1)
    for data in (noise, seed[:cut] + noise + seed[cut:], seed[:cut], noise + seed):
        outcome = classify(_raw(data), options, VALIDATORS)
        assert outcome[0] in (BLANK, ACCEPT, REJECT)
        if outcome[0] == REJECT:
            assert outcome[4] != "internal_error", outcome


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.lists(st.one_of(st.binary(max_size=200), st.just(b""), st.just(b"\xef\xbb\xbf{}")), max_size=30))
def test_ingesting_a_file_of_garbage_never_raises(tmp_path_factory, lines):
    from tests.conftest import Warehouse

    root = tmp_path_factory.mktemp("garbage")
    path = root / "garbage.jsonl"
    path.write_bytes(b"\n".join(lines))
    summary = Warehouse(root / "w.duckdb").ingest(path)
    assert summary.files[0].status in ("loaded", "empty")
    assert summary.accepted == 0 or summary.files[0].status == "loaded"


# -- the duplicate-key check's fast path -----------------------------------------------------------------------------
# Objects as lists of (key, value) pairs, so a key can repeat, written out in the ways real writers spell strings:
# Python's json (non-ASCII as \u escapes), raw UTF-8, and .NET's System.Text.Json (quotes as \u0022), with or without
# spaces around colons. Whatever the spelling, find_duplicate_key (re-serialising and counting `":` first) must say
# what a direct look at the pairs says.
texts = st.lists(st.sampled_from(['":', '"', ":", "\\", "a", "é", "\n", " ", "{", "}", ","]), max_size=4).map("".join)
pairs_trees = st.recursive(
    st.one_of(texts, st.sampled_from(['":', 'x":"y']), st.integers(min_value=-3, max_value=3), st.none()),
    lambda inner: st.one_of(st.lists(inner, max_size=3).map(tuple),
                            st.lists(st.tuples(st.sampled_from(["a", "b", 'q"', "c:", "é"]), inner), max_size=4)),
    max_leaves=10)


def _string(text: str, style: str) -> str:
    if style == "python":
        return json.dumps(text)
    if style == "utf8":
        return json.dumps(text, ensure_ascii=False)
    escaped = {'"': "\\u0022", ":": "\\u003A" if style == "dotnet_upper" else "\\u003a", "\\": "\\\\", "\n": "\\n"}
    return '"' + "".join(escaped.get(ch, ch) for ch in text) + '"'


def _write(node: Any, style: str, colon: str) -> str:
    if isinstance(node, list):  # an object: its (key, value) pairs
        return "{" + ",".join(_string(key, style) + colon + _write(value, style, colon) for key, value in node) + "}"
    if isinstance(node, tuple):  # an array
        return "[" + ",".join(_write(value, style, colon) for value in node) + "]"
    return _string(node, style) if isinstance(node, str) else json.dumps(node)


def _repeats_a_key(node: Any) -> bool:
    if isinstance(node, list):
        keys = [key for key, _ in node]
        return len(keys) != len(set(keys)) or any(_repeats_a_key(value) for _, value in node)
    return isinstance(node, tuple) and any(_repeats_a_key(value) for value in node)


@FUZZ
@given(top=st.lists(st.tuples(st.sampled_from(["a", "b", "x"]), pairs_trees), min_size=1, max_size=4),
       style=st.sampled_from(["python", "utf8", "dotnet", "dotnet_upper"]), colon=st.sampled_from([":", " : "]))
def test_a_repeated_key_is_found_however_the_writer_escapes_quotes_and_colons(top, style, colon):
    data = _write(top, style, colon).encode()
    found = find_duplicate_key(data, orjson.loads(data))
    assert (found is not None) == _repeats_a_key(top), data
    if found is not None:
        assert found.kind == "duplicate_key"


def test_a_quote_written_as_u0022_before_a_colon_does_not_hide_a_repeated_key():
    """.NET writes a quote in a string as \\u0022; re-serialised it is \\", and its `":` made up for the dropped key."""
    data = b'{"interaction_type": 12345, "note": "the judge wrote {\\u0022answer\\u0022: \\u0022A\\u0022}", ' \
           b'"interaction_type": "single_turn"}'
    found = find_duplicate_key(data, orjson.loads(data))
    assert found is not None and (found.kind, found.pointer) == ("duplicate_key", "/interaction_type")
