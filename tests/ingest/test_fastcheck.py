"""The compiled schema check (ingest/fastcheck.py) keyword by keyword: on small schemas that each use a few
keywords, its verdict equals jsonschema's (with the format checker) on every value of a corpus of awkward ones
(bool beside 1, 1.0 as an integer, huge integers, Decimals, unhashable values where strings are expected). The
project's own schemas are held equal on ten thousand records per format in test_strict_verdicts.py; this file
covers the keywords and combinations those schemas do not happen to use, and the inlined and called forms of
one subschema (a subschema that tests one value is written inline where it is used)."""

from __future__ import annotations

import decimal

import pytest
from jsonschema import validators as js_validators

from ingest.fastcheck import Unsupported, compile_check

D7 = "http://json-schema.org/draft-07/schema#"
D2020 = "https://json-schema.org/draft/2020-12/schema"

_SCALARS = [None, True, False, 0, 1, -1, 2, 5, 6, 1.0, 1.5, -0.0, 2**70, 1e308, decimal.Decimal("1.5"),
            "", "a", "ab", "abc", "x" * 10, "é中", "1", "A1", "a-b", "2026-11-16T10:04:00Z", "2026-02-30T10:04:00Z",
            "6f1c2b9e-3d7a-4c51-9a43-0d2a8f7c1e55", "not-a-uuid", "a@b.org", "nope"]
_CONTAINERS = [[], [1], [1, 1], [1, True], [1, 1.0], ["a", "b"], ["a", 1], [[1], [1]], [{"a": 1}, {"a": 1.0}],
               {}, {"a": 1}, {"a": "x"}, {"a": 1, "b": 2}, {"b": 2}, {"x-1": 1}, {"x-1": "s"}, {"a": None},
               {"a": 1, "extra": True}, {"kind": "a", "n": 1}, {"kind": "b"}, {"kind": "b", "s": "t"},
               {"child": {"child": {"a": 1}}}, {"child": {"child": {"a": "x"}}}, {"A": 1}, {"ab": [1, 2]}]
CORPUS = _SCALARS + _CONTAINERS + [[v] for v in _SCALARS] + [{"a": v} for v in _SCALARS] + [{"b": v} for v in _SCALARS]

SCHEMAS = {
    "integer": {"type": "integer"},
    "number bounds": {"type": "number", "minimum": 1, "maximum": 5},
    "exclusive bounds, any type": {"exclusiveMinimum": 0, "exclusiveMaximum": 2**70},
    "integer or string": {"type": ["integer", "string"], "minimum": 1, "maxLength": 2},
    "boolean or null": {"type": ["boolean", "null"]},
    "string lengths and pattern": {"type": "string", "minLength": 1, "maxLength": 3, "pattern": "^[a-z]"},
    "pattern, any type": {"pattern": "[0-9]"},
    "string enum": {"enum": ["a", "ab"]},
    "typed string enum": {"type": "string", "enum": ["a", "ab"]},
    "mixed enum": {"enum": [1, "a", None, [1], {"a": 1}]},
    "const number": {"const": 1},
    "const string": {"const": "a"},
    "const object": {"const": {"a": 1}},
    "formats": {"anyOf": [{"format": "date-time"}, {"format": "uuid"}, {"format": "email"}]},
    "properties": {"type": "object", "required": ["a"], "properties": {"a": {"type": "integer", "minimum": 1},
                                                                        "b": {"type": "string"}}},
    "properties on any type": {"properties": {"a": {"enum": [1, "x"]}}, "required": ["a"]},
    "closed object": {"properties": {"a": {}, "b": True}, "additionalProperties": False},
    "pattern properties": {"patternProperties": {"^x-": {"type": "integer"}}, "additionalProperties": False},
    "typed extras": {"properties": {"a": {}}, "additionalProperties": {"type": "integer"}},
    "names and counts": {"propertyNames": {"maxLength": 1}, "minProperties": 1, "maxProperties": 1},
    "dependent required": {"dependentRequired": {"a": ["b"]}},
    "items": {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 2},
    "items of any type": {"items": {"anyOf": [{"type": "string"}, {"type": "object", "required": ["a"]}]}},
    "no items": {"items": False},
    "unique items": {"uniqueItems": True},
    "allOf": {"allOf": [{"type": "integer"}, {"minimum": 2}]},
    "oneOf": {"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 1}]},
    "not": {"not": {"type": ["string", "null"]}},
    "if then else": {"if": {"properties": {"kind": {"const": "a"}}, "required": ["kind"]},
                     "then": {"required": ["n"]}, "else": {"required": ["s"]}},
    "if then": {"if": {"type": "integer"}, "then": {"maximum": 1}},
    "false and true": {"anyOf": [False, {"type": "null"}, {"not": True}]},
    "recursive ref": {"$defs": {"node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/node"},
                                                                          "a": {"type": "integer"}}}},
                      "$ref": "#/$defs/node"},
    "ref beside keywords (2020-12)": {"$defs": {"int": {"type": "integer"}}, "$ref": "#/$defs/int", "minimum": 2},
}

DRAFT7_SCHEMAS = {
    "ref ignores its siblings (draft-07)": {"definitions": {"int": {"type": "integer"}},
                                           "$ref": "#/definitions/int", "minimum": 2},
    "ref to a ref (draft-07)": {"definitions": {"a": {"$ref": "#/definitions/b"}, "b": {"type": "string",
                                                                                     "maxLength": 1}},
                                "properties": {"a": {"$ref": "#/definitions/a"}}, "items": {"$ref": "#/definitions/a"}},
    "recursive ref (draft-07)": {"definitions": {"node": {"properties": {"child": {"$ref": "#/definitions/node"},
                                                                         "a": {"type": "integer"}}}},
                                 "$ref": "#/definitions/node"},
}


def _cases():
    for name, schema in SCHEMAS.items():
        yield pytest.param({"$schema": D2020, **schema}, id=name)
    for name, schema in DRAFT7_SCHEMAS.items():
        yield pytest.param({"$schema": D7, **schema}, id=name)


@pytest.mark.parametrize("schema", list(_cases()))
def test_compiled_check_equals_jsonschema_on_every_value(schema):
    cls = js_validators.validator_for(schema)
    reference = cls(schema, format_checker=cls.FORMAT_CHECKER)
    check = compile_check(schema)
    verdicts = {True: 0, False: 0}
    for value in CORPUS:
        expected = reference.is_valid(value)
        assert check(value) == expected, (value, expected)
        verdicts[expected] += 1
    assert verdicts[True] and verdicts[False], verdicts  # each schema both accepts and rejects something


@pytest.mark.parametrize("keyword", ["contains", "multipleOf", "prefixItems", "unevaluatedProperties"])
def test_a_keyword_it_does_not_implement_is_refused_not_ignored(keyword):
    with pytest.raises(Unsupported):
        compile_check({"$schema": D2020, "properties": {"a": {keyword: 2}}})
