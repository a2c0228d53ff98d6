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


_TYPE_TESTS = {
    "object": "isinstance(x, dict)",
    "array": "isinstance(x, list)",
    "string": "isinstance(x, str)",
    "null": "x is None",
    "boolean": "isinstance(x, bool)",
    "integer": "_is_integer(x)",
    "number": "_is_number(x)",
}


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
            return [f"return {self.function_for(self.resolve(node['$ref']))}(x)"]
        used = _UNSUPPORTED.intersection(node)
        if used:
            raise Unsupported(f"keywords {sorted(used)}")
        lines: list[str] = []
        emit = lines.append

        if "type" in node:
            kinds = node["type"] if isinstance(node["type"], list) else [node["type"]]
            if any(k not in _TYPE_TESTS for k in kinds):
                raise Unsupported(f"type {kinds}")
            emit(f"if not ({' or '.join(_TYPE_TESTS[k] for k in kinds)}): return False")
        if "enum" in node:
            values = list(node["enum"])
            if values and all(isinstance(v, str) for v in values):
                emit(f"if not (isinstance(x, str) and x in {self.constant(frozenset(values))}): return False")
            else:
                emit(f"if not any(_equal(v, x) for v in {self.constant(values)}): return False")
        if "const" in node:
            value = node["const"]
            if isinstance(value, str):
                emit(f"if not (isinstance(x, str) and x == {self.constant(value)}): return False")
            else:
                emit(f"if not _equal(x, {self.constant(value)}): return False")
        if "$ref" in node:  # 2019-09 and later: the reference applies beside the other keywords
            emit(f"if not {self.function_for(self.resolve(node['$ref']))}(x): return False")

        lines.extend(self.object_keywords(node))
        lines.extend(self.array_keywords(node))
        lines.extend(self.scalar_keywords(node))
        lines.extend(self.combinators(node))
        return lines

    def object_keywords(self, node: Mapping[str, Any]) -> list[str]:
        keywords = {"properties", "required", "additionalProperties", "patternProperties", "propertyNames",
                    "minProperties", "maxProperties", "dependentRequired"}
        if not keywords.intersection(node):
            return []
        out = ["if isinstance(x, dict):"]
        inner: list[str] = []
        for name in node.get("required", ()):
            inner.append(f"if {name!r} not in x: return False")
        for name, sub in node.get("properties", {}).items():
            if sub is True:
                continue
            inner.append(f"if {name!r} in x and not {self.function_for(sub)}(x[{name!r}]): return False")
        patterns = [(re.compile(p), sub) for p, sub in node.get("patternProperties", {}).items()]
        for pattern, sub in patterns:
            inner.append(
                f"for k, v in x.items():\n"
                f"        if {self.constant(pattern)}.search(k) and not {self.function_for(sub)}(v): return False"
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
                    f"        if {is_extra} and not {self.function_for(extra)}(v): return False"
                )
        if "propertyNames" in node:
            inner.append(f"for k in x:\n    if not {self.function_for(node['propertyNames'])}(k): return False")
        if "minProperties" in node:
            inner.append(f"if len(x) < {node['minProperties']!r}: return False")
        if "maxProperties" in node:
            inner.append(f"if len(x) > {node['maxProperties']!r}: return False")
        for name, needed in node.get("dependentRequired", {}).items():
            inner.append(f"if {name!r} in x and not all(n in x for n in {list(needed)!r}): return False")
        return out + [textwrap.indent(line, "    ") for line in inner] if inner else []

    def array_keywords(self, node: Mapping[str, Any]) -> list[str]:
        inner: list[str] = []
        if "items" in node:
            items = node["items"]
            if isinstance(items, list):
                raise Unsupported("items as an array (tuple validation)")
            if items is False:
                inner.append("if x: return False")
            elif items is not True:
                inner.append(f"for v in x:\n    if not {self.function_for(items)}(v): return False")
        if "minItems" in node:
            inner.append(f"if len(x) < {node['minItems']!r}: return False")
        if "maxItems" in node:
            inner.append(f"if len(x) > {node['maxItems']!r}: return False")
        if node.get("uniqueItems"):
            inner.append("if not _uniq(x): return False")
        return ["if isinstance(x, list):"] + [textwrap.indent(line, "    ") for line in inner] if inner else []

    def scalar_keywords(self, node: Mapping[str, Any]) -> list[str]:
        out: list[str] = []
        bounds = [("minimum", "<"), ("maximum", ">"), ("exclusiveMinimum", "<="), ("exclusiveMaximum", ">=")]
        numeric = [f"if x {op} {node[k]!r}: return False" for k, op in bounds if k in node]
        for key, _ in bounds:
            if key in node and (isinstance(node[key], bool) or not isinstance(node[key], (int, float))):
                raise Unsupported(f"{key} of {node[key]!r}")
        if numeric:
            out.append("if _is_number(x):")
            out.extend("    " + line for line in numeric)
        text = []
        if "minLength" in node:
            text.append(f"if len(x) < {node['minLength']!r}: return False")
        if "maxLength" in node:
            text.append(f"if len(x) > {node['maxLength']!r}: return False")
        if "pattern" in node:
            text.append(f"if not {self.constant(re.compile(node['pattern']))}.search(x): return False")
        if text:
            out.append("if isinstance(x, str):")
            out.extend("    " + line for line in text)
        if "format" in node:
            out.append(f"if not _conforms(x, {node['format']!r}): return False")
        return out

    def combinators(self, node: Mapping[str, Any]) -> list[str]:
        out: list[str] = []
        for sub in node.get("allOf", ()):
            out.append(f"if not {self.function_for(sub)}(x): return False")
        if "anyOf" in node:
            calls = " or ".join(f"{self.function_for(sub)}(x)" for sub in node["anyOf"])
            out.append(f"if not ({calls}): return False")
        if "oneOf" in node:
            calls = ", ".join(f"{self.function_for(sub)}(x)" for sub in node["oneOf"])
            out.append(f"if sum(({calls},)) != 1: return False")
        if "not" in node:
            out.append(f"if {self.function_for(node['not'])}(x): return False")
        if "if" in node and ("then" in node or "else" in node):
            condition = self.function_for(node["if"])
            out.append(f"if {condition}(x):")
            out.append(f"    if not {self.function_for(node['then'])}(x): return False" if "then" in node else "    pass")
            if "else" in node:
                out.append("else:")
                out.append(f"    if not {self.function_for(node['else'])}(x): return False")
        return out
