"""A JSON Schema compiled to a plain Python predicate: the ingester's fast path for the verdict "valid".

`compile_check(schema)` generates one Python function per subschema, with the exact semantics of the
`jsonschema` package for the keywords our schemas use (its type rules, its `equal`/`uniq`, its format checker,
draft-07's "$ref ignores its siblings"). It answers only valid/invalid; when it says invalid, the caller asks
`jsonschema` for the error and its pointer, so messages are always jsonschema's. A schema using a validation
keyword this module does not implement raises Unsupported, and the caller keeps using `jsonschema` for it.
tests/ingest/test_strict_verdicts.py holds the two verdicts equal on tens of thousands of records.
"""

from __future__ import annotations

import numbers
import re
import textwrap
from collections.abc import Callable, Mapping
from typing import Any

from jsonschema import validators as js_validators
from jsonschema._utils import equal, uniq

Check = Callable[[Any], bool]

# Keywords that only annotate: jsonschema ignores them when validating, and so does this compiler (as it ignores
# any keyword it does not know, exactly as jsonschema does).
# Keywords jsonschema validates that this compiler does not implement: a schema using one is refused.
_UNSUPPORTED = {
    "contains", "minContains", "maxContains", "prefixItems", "unevaluatedProperties", "unevaluatedItems",
    "dependentSchemas", "dependencies", "multipleOf", "$dynamicRef", "$recursiveRef", "additionalItems",
}
_LEGACY_REF_DRAFTS = {"draft3", "draft4", "draft6", "draft7"}


class Unsupported(Exception):
    """The schema uses something the compiler does not handle; validate it with jsonschema instead."""


def compile_check(schema: Mapping[str, Any] | bool) -> Check:
    """The schema's verdict as a function of one instance: True exactly when jsonschema finds no error."""
    cls = js_validators.validator_for(schema)
    draft = cls.__name__.removesuffix("Validator").lower()
    if draft not in _LEGACY_REF_DRAFTS and draft not in {"draft201909", "draft202012"}:
        raise Unsupported(f"unknown draft {cls.__name__}")
    compiler = _Compiler(schema, cls.FORMAT_CHECKER.conforms, legacy_ref=draft in _LEGACY_REF_DRAFTS)
    entry = compiler.function_for(schema)
    namespace: dict[str, Any] = dict(compiler.constants)
    namespace.update(_is_number=_is_number, _is_integer=_is_integer, _equal=equal, _uniq=uniq,
                     _conforms=cls.FORMAT_CHECKER.conforms, _Number=numbers.Number)
    exec(compile("\n".join(compiler.lines), "<evalhouse schema check>", "exec"), namespace)
    return namespace[entry]


def _is_number(x: Any) -> bool:
    return isinstance(x, numbers.Number) and not isinstance(x, bool)


def _is_integer(x: Any) -> bool:
    # draft 6 and later: 1.0 is an integer, True is not.
    if isinstance(x, bool):
        return False
    return isinstance(x, int) or (isinstance(x, float) and x.is_integer())


# Type tests on a value named {v}. Parsed JSON holds exact built-in types, so the common case is one `type() is`
# test; the general test behind it keeps jsonschema's rules for anything else (bool is never a number; 1.0 is an
# integer; a Decimal is a number).
_TYPE_TESTS = {
    "object": "isinstance({v}, dict)",
    "array": "isinstance({v}, list)",
    "string": "isinstance({v}, str)",
    "null": "{v} is None",
    "boolean": "isinstance({v}, bool)",
    "integer": "(type({v}) is int or _is_integer({v}))",
    "number": "(type({v}) is float or type({v}) is int or _is_number({v}))",
}
_NUMERIC = _TYPE_TESTS["number"]  # the guard that lets only numbers reach a bound

# Keywords that look inside objects or arrays, or at other subschemas: a schema without any of them is a test of one
# value, compiled to an expression and written inline where it is used instead of as a function of its own.
_OBJECT_KEYWORDS = {"properties", "required", "additionalProperties", "patternProperties", "propertyNames",
                    "minProperties", "maxProperties", "dependentRequired"}
_ARRAY_KEYWORDS = {"items", "minItems", "maxItems", "uniqueItems"}
_NOT_INLINE = _OBJECT_KEYWORDS | _ARRAY_KEYWORDS | _UNSUPPORTED | {
    "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "$ref", "$id"}
# Every keyword that validates (implemented or refused): a node whose only one is `$ref` is its target.
_VALIDATING = _NOT_INLINE | {"type", "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                             "minLength", "maxLength", "pattern", "format"}


class _Compiler:
    def __init__(self, root: Any, conforms: Callable[[Any, str], bool], *, legacy_ref: bool) -> None:
        self.root = root
        self.legacy_ref = legacy_ref
        self.lines: list[str] = []
        self.constants: dict[str, Any] = {}
        self.functions: dict[int, str] = {}  # id(subschema) -> function name (refs share, recursion works)
        self.keep: list[Any] = []  # keeps compiled nodes alive so their ids stay unique

    def constant(self, value: Any) -> str:
        name = f"_c{len(self.constants)}"
        self.constants[name] = value
        return name

    def function_for(self, node: Any) -> str:
        key = id(node)
        if key in self.functions:
            return self.functions[key]
        name = f"_f{len(self.functions)}"
        self.functions[key] = name
        self.keep.append(node)
        body = self.body(node)
        self.lines.append(f"def {name}(x):")
        self.lines.extend(textwrap.indent(line, "    ") for line in body)
        self.lines.append("    return True")
        return name

    def resolve(self, ref: str) -> Any:
        if not ref.startswith("#"):
            raise Unsupported(f"non-local $ref {ref!r}")
        node = self.root
        for part in ref[1:].split("/")[1:] if ref != "#" else []:
            part = part.replace("~1", "/").replace("~0", "~")
            node = node[int(part)] if isinstance(node, list) else node[part]
        return node

    def inline(self, node: Any, var: str) -> str | None:
        """The schema as one boolean expression over the variable `var`, when it tests a single value (no
        subschemas); None otherwise, and the caller calls the node's function."""
        node = self.target(node)
        if node is True:
            return "True"
        if node is False:
            return "False"
        if not isinstance(node, Mapping) or _NOT_INLINE.intersection(node):
            return None
        tests = self.value_tests(node, var)
        return " and ".join(f"({t})" for t in tests) if tests else "True"

    def test_of(self, node: Any, var: str) -> str:
        """A boolean expression for the node over `var`: inline when it can be, else a call of its function."""
        inline = self.inline(node, var)
        return inline if inline is not None else f"{self.function_for(self.target(node))}({var})"

    def target(self, node: Any) -> Any:
        """The schema a node stands for: a node that is nothing but a reference is the schema it points at
        (in draft-07 a `$ref` ignores its siblings; later, siblings that validate nothing), followed a few levels."""
        for _ in range(16):
            if not (isinstance(node, Mapping) and "$ref" in node):
                break
            if not self.legacy_ref and _VALIDATING.intersection(node) != {"$ref"}:
                break
            node = self.resolve(node["$ref"])
        return node

    def body(self, node: Any) -> list[str]:
        if node is True:
            return []
        if node is False:
            return ["return False"]
        if not isinstance(node, Mapping):
            raise Unsupported(f"schema node of type {type(node).__name__}")
        if "$id" in node and node is not self.root:
            raise Unsupported("a nested $id changes the base URI")
        if self.legacy_ref and "$ref" in node:
            return [f"return {self.test_of(self.resolve(node['$ref']), 'x')}"]
        used = _UNSUPPORTED.intersection(node)
        if used:
            raise Unsupported(f"keywords {sorted(used)}")
        lines = [f"if not ({test}): return False" for test in self.value_tests(node, "x")]
        if "$ref" in node:  # 2019-09 and later: the reference applies beside the other keywords
            lines.append(f"if not ({self.test_of(self.resolve(node['$ref']), 'x')}): return False")
        kinds = self.kinds(node)
        lines.extend(self.object_keywords(node, checked=kinds == ["object"]))
        lines.extend(self.array_keywords(node, checked=kinds == ["array"]))
        lines.extend(self.combinators(node))
        return lines

    @staticmethod
    def kinds(node: Mapping[str, Any]) -> list[str] | None:
        if "type" not in node:
            return None
        return node["type"] if isinstance(node["type"], list) else [node["type"]]

    def value_tests(self, node: Mapping[str, Any], v: str) -> list[str]:
        """The tests of the keywords that look at the value itself (type, enum, const, bounds, lengths, pattern,
        format), in that order, each an expression over `v`. A test after the type test relies on it: the
        guards that only let numbers reach a bound (or strings a length) are left out when the type implies them."""
        tests: list[str] = []
        kinds = self.kinds(node)
        if kinds is not None:
            if any(k not in _TYPE_TESTS for k in kinds):
                raise Unsupported(f"type {kinds}")
            tests.append(" or ".join(_TYPE_TESTS[k].format(v=v) for k in kinds))
        only_strings = kinds == ["string"]
        only_numbers = kinds is not None and set(kinds) <= {"integer", "number"}
        if "enum" in node:
            values = list(node["enum"])
            if values and all(isinstance(value, str) for value in values):
                member = f"{v} in {self.constant(frozenset(values))}"
                tests.append(member if only_strings else f"isinstance({v}, str) and {member}")
            else:
                tests.append(f"any(_equal(e, {v}) for e in {self.constant(values)})")
        if "const" in node:
            value = node["const"]
            if isinstance(value, str):
                tests.append(f"isinstance({v}, str) and {v} == {self.constant(value)}")
            else:
                tests.append(f"_equal({v}, {self.constant(value)})")
        # jsonschema's own comparisons, negated: a bound fails when the value is below (or at) it
        bounds = [("minimum", "<"), ("maximum", ">"), ("exclusiveMinimum", "<="), ("exclusiveMaximum", ">=")]
        for key, _ in bounds:
            if key in node and (isinstance(node[key], bool) or not isinstance(node[key], (int, float))):
                raise Unsupported(f"{key} of {node[key]!r}")
        failing = " or ".join(f"{v} {op} {node[k]!r}" for k, op in bounds if k in node)
        if failing:
            tests.append(f"not ({failing})" if only_numbers else f"not {_NUMERIC.format(v=v)} or not ({failing})")
        text = []
        if "minLength" in node:
            text.append(f"len({v}) >= {node['minLength']!r}")
        if "maxLength" in node:
            text.append(f"len({v}) <= {node['maxLength']!r}")
        if "pattern" in node:
            text.append(f"{self.constant(re.compile(node['pattern']))}.search({v}) is not None")
        if text:
            joined = " and ".join(text)
            tests.append(joined if only_strings else f"not isinstance({v}, str) or ({joined})")
        if "format" in node:
            tests.append(f"_conforms({v}, {node['format']!r})")
        return tests

    def object_keywords(self, node: Mapping[str, Any], *, checked: bool) -> list[str]:
        if not _OBJECT_KEYWORDS.intersection(node):
            return []
        inner: list[str] = []
        for name in node.get("required", ()):
            inner.append(f"if {name!r} not in x: return False")
        required = set(node.get("required", ()))
        for name, sub in node.get("properties", {}).items():
            if sub is True:
                continue
            test = self.test_of(sub, "p")
            if name in required:  # present: checked just above
                inner.append(f"p = x[{name!r}]\nif not ({test}): return False")
            else:
                inner.append(f"if {name!r} in x:\n    p = x[{name!r}]\n    if not ({test}): return False")
        patterns = [(re.compile(p), sub) for p, sub in node.get("patternProperties", {}).items()]
        for pattern, sub in patterns:
            inner.append(
                f"for k, v in x.items():\n"
                f"    if {self.constant(pattern)}.search(k) and not ({self.test_of(sub, 'v')}): return False"
            )
        if "additionalProperties" in node:
            extra = node["additionalProperties"]
            declared = self.constant(frozenset(node.get("properties", {})))
            regexes = self.constant(tuple(p for p, _ in patterns))
            is_extra = f"k not in {declared}" + (f" and not any(r.search(k) for r in {regexes})" if patterns else "")
            if extra is False:
                if patterns:
                    inner.append(f"for k in x:\n    if {is_extra}: return False")
                else:
                    inner.append(f"if not x.keys() <= {declared}: return False")
            elif extra is not True:
                inner.append(
                    f"for k, v in x.items():\n"
                    f"    if {is_extra} and not ({self.test_of(extra, 'v')}): return False"
                )
        if "propertyNames" in node:
            inner.append(f"for k in x:\n    if not ({self.test_of(node['propertyNames'], 'k')}): return False")
        if "minProperties" in node:
            inner.append(f"if len(x) < {node['minProperties']!r}: return False")
        if "maxProperties" in node:
            inner.append(f"if len(x) > {node['maxProperties']!r}: return False")
        for name, needed in node.get("dependentRequired", {}).items():
            inner.append(f"if {name!r} in x and not all(n in x for n in {list(needed)!r}): return False")
        return _guarded("isinstance(x, dict)", inner, checked)

    def array_keywords(self, node: Mapping[str, Any], *, checked: bool) -> list[str]:
        inner: list[str] = []
        if "items" in node:
            items = node["items"]
            if isinstance(items, list):
                raise Unsupported("items as an array (tuple validation)")
            if items is False:
                inner.append("if x: return False")
            elif items is not True:
                inner.append(f"for v in x:\n    if not ({self.test_of(items, 'v')}): return False")
        if "minItems" in node:
            inner.append(f"if len(x) < {node['minItems']!r}: return False")
        if "maxItems" in node:
            inner.append(f"if len(x) > {node['maxItems']!r}: return False")
        if node.get("uniqueItems"):
            inner.append("if not _uniq(x): return False")
        return _guarded("isinstance(x, list)", inner, checked)

    def combinators(self, node: Mapping[str, Any]) -> list[str]:
        out: list[str] = []
        for sub in node.get("allOf", ()):
            out.append(f"if not ({self.test_of(sub, 'x')}): return False")
        if "anyOf" in node:
            tests = " or ".join(f"({self.test_of(sub, 'x')})" for sub in node["anyOf"])
            out.append(f"if not ({tests}): return False")
        if "oneOf" in node:
            # every branch is evaluated: exactly one may hold
            tests = ", ".join(f"1 if ({self.test_of(sub, 'x')}) else 0" for sub in node["oneOf"])
            out.append(f"if sum(({tests},)) != 1: return False")
        if "not" in node:
            out.append(f"if {self.test_of(node['not'], 'x')}: return False")
        if "if" in node and ("then" in node or "else" in node):
            out.append(f"if {self.test_of(node['if'], 'x')}:")
            out.append(f"    if not ({self.test_of(node['then'], 'x')}): return False" if "then" in node else "    pass")
            if "else" in node:
                out.append("else:")
                out.append(f"    if not ({self.test_of(node['else'], 'x')}): return False")
        return out


def _guarded(condition: str, lines: list[str], checked: bool) -> list[str]:
    """`lines` under `if condition:`, or as they are when the type test before them has checked it already."""
    if not lines:
        return []
    if checked:
        return lines
    return [f"if {condition}:"] + [textwrap.indent(line, "    ") for line in lines]
