"""Hold one record to the schema of its format and version: a verdict, the JSON pointer of the failing part,
and a message a person can act on.

With `strict`, the verdict is exactly the `jsonschema` package's on the same schema with its format checker
(tests/ingest/test_strict_verdicts.py holds them equal). Without it, a record that fails may be repaired by
its format's documented compatibility repairs and checked again.

Speed: each schema is also compiled to a Python predicate (ingest/fastcheck.py). It only ever says "valid";
a record it finds invalid goes to `jsonschema`, which gives the verdict, the pointer and the message.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jsonschema import exceptions as js_exceptions
from jsonschema import validators as js_validators

from ingest.fastcheck import Unsupported, compile_check
from ingest.formats.base import Record, RecordFormat
from ingest.pointer import follow_local_refs, to_pointer

_COMBINATORS = {"allOf", "anyOf", "oneOf", "if", "then", "else", "not"}
_MAX_MESSAGE = 1000


@dataclass(frozen=True, slots=True)
class Verdict:
    ok: bool
    kind: str | None = None  # 'schema' or 'unsupported_version' when not ok
    pointer: str | None = None
    message: str | None = None
    # Accepted: the repairs that made the record valid. Refused under `strict` (asked for with `name_repairs`):
    # the repairs that would make it valid without `strict`, if they do.
    repairs: tuple[str, ...] = ()


ACCEPTED = Verdict(True)


class SchemaCheck:
    """One compiled schema (a format at one version) with the `jsonschema` validator its draft calls for."""

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self.schema = schema
        cls = js_validators.validator_for(schema)
        # The format checker matters: without it a bad uuid or a created_at of "yesterday" passes silently.
        self.validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
        try:
            self.is_valid: Callable[[Any], bool] = compile_check(schema)
        except Unsupported:
            self.is_valid = self.validator.is_valid

    def errors(self, record: Record) -> list[js_exceptions.ValidationError]:
        """Every error, the most relevant first (jsonschema's best_match); empty when the record is valid."""
        errors = list(self.validator.iter_errors(record))
        if not errors:
            return errors
        best = js_exceptions.best_match(errors)
        return [best, *(e for e in errors if e is not best)]

    def describe(self, errors: Sequence[js_exceptions.ValidationError]) -> tuple[str, str]:
        """(JSON pointer of the most relevant failing part, a message that says what is wrong, the rule behind
        it, what to write instead, and where else the record fails)."""
        pointer, message = self._describe_one(errors[0])
        advice = _advice(errors[0])
        if advice:
            message = f"{message}; {advice}"
        others = [self._describe_one(e) for e in errors[1:]]
        distinct = list(dict.fromkeys(f"{p or '/'}: {m}" for p, m in others if p != pointer))
        if distinct:
            shown = "; ".join(distinct[:3])
            more = f" and {len(distinct) - 3} more" if len(distinct) > 3 else ""
            message = f"{message} [also {shown}{more}]"
        return pointer, _clip(message)

    def _describe_one(self, error: js_exceptions.ValidationError) -> tuple[str, str]:
        path = list(error.absolute_path)
        message = _message(error)
        missing = _named_property(error)
        if missing is not None:
            path.append(missing)
        rule = _rule_description(self.schema, error.absolute_schema_path)
        if rule and rule not in message:
            message = f"{message} (rule: {rule})"
        return to_pointer(path), message


class Validators:
    """The schema checks of a run, compiled once per (format, version) on first use."""

    def __init__(self) -> None:
        self._checks: dict[tuple[str, str], SchemaCheck] = {}

    def check_for(self, fmt: RecordFormat, version: str) -> SchemaCheck:
        key = (fmt.name, version)
        check = self._checks.get(key)
        if check is None:
            with fmt.schema_path(version).open("rb") as handle:
                check = self._checks[key] = SchemaCheck(json.load(handle))
        return check

    def validate(self, record: Record, fmt: RecordFormat, *, strict: bool,
                 versions: tuple[str | None, str | None] | None = None, name_repairs: bool = False) -> Verdict:
        """The record's verdict. Without `strict`, repairs edit `record` in place when they are needed.
        `versions` is fmt.schema_version_for(record), when the caller has it already. With `strict` and
        `name_repairs`, a refused record's verdict names the repairs that would accept it without `strict` (tried
        on a copy, for refused records only: the verdict stays jsonschema's)."""
        declared, version = versions if versions is not None else fmt.schema_version_for(record)
        if version is None:
            supported = ", ".join(sorted(fmt.schemas, key=str))
            return Verdict(
                False, "unsupported_version", f"/{fmt.version_field}",
                f"{fmt.title} version {declared!r} has no schema here (supported: {supported}); if the record "
                f"follows one of those versions, write it in /{fmt.version_field}, otherwise evalhouse needs this "
                "version's schema (under schemas/, named in its format's module under ingest/formats/) to load it",
            )
        check = self.check_for(fmt, version)
        if check.is_valid(record):
            return ACCEPTED
        if not strict and fmt.repairs:
            applied = tuple(r.name for r in fmt.repairs if r.apply(record, check.schema))
            if applied and check.is_valid(record):
                return Verdict(True, repairs=applied)
        errors = check.errors(record)
        if not errors:  # jsonschema has the last word on "invalid"
            return ACCEPTED
        pointer, message = check.describe(errors)
        repairable = _repairs_that_accept(record, fmt, check) if strict and name_repairs else ()
        return Verdict(False, "schema", pointer, message, repairable)


def _repairs_that_accept(record: Record, fmt: RecordFormat, check: SchemaCheck) -> tuple[str, ...]:
    """The compatibility repairs that make a copy of `record` valid, or () when they do not."""
    if not fmt.repairs:
        return ()
    repaired = copy.deepcopy(record)
    applied = tuple(r.name for r in fmt.repairs if r.apply(repaired, check.schema))
    return applied if applied and check.validator.is_valid(repaired) else ()


def _message(error: js_exceptions.ValidationError) -> str:
    keyword, instance = error.validator, error.instance
    if keyword == "type":
        expected = error.validator_value
        expected = " or ".join(expected) if isinstance(expected, list) else expected
        shown = "" if instance is None or isinstance(instance, (dict, list)) else f" {_short(instance)}"
        return f"expected {expected}, found {_json_type(instance)}{shown}"
    if keyword in ("enum", "const"):
        allowed = error.validator_value if keyword == "enum" else [error.validator_value]
        return f"{_short(instance)} is not one of {', '.join(_short(a) for a in allowed)}"
    if keyword == "format":
        return f"{_short(instance)} is not a valid {error.validator_value}"
    if keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        bound = {"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}[keyword]
        return f"{_short(instance)} is out of range: must be {bound} {error.validator_value}"
    if keyword == "maxLength":
        return f"text of {len(instance)} characters is longer than the limit of {error.validator_value}"
    if keyword == "minLength" and error.validator_value == 1:
        return "must not be empty"
    if keyword == "not":
        return f"{_short(instance)} is not allowed here"
    if keyword in ("oneOf", "anyOf"):
        return f"{_short(instance)} does not match any of the allowed shapes"
    return error.message


# A value of each checked format, to show what one looks like.
_FORMAT_EXAMPLES = {
    "date-time": "2026-11-24T09:30:00Z", "date": "2026-11-24", "time": "09:30:00Z",
    "uuid": "6f1c2b9e-3d7a-4c51-9a43-0d2a8f7c1e55", "uri": "https://example.com/eval/1", "email": "name@example.com",
}


def _advice(error: js_exceptions.ValidationError) -> str | None:
    """What to write instead, for the failures whose fix the error itself tells: a number in quotes, a value not
    among those allowed, a date written otherwise, a field missing or misspelt. None where the rule and the
    message are the advice (a bound, a conditional rule)."""
    keyword, instance, value = error.validator, error.instance, error.validator_value
    if keyword == "type":
        return _type_advice(value if isinstance(value, list) else [value], instance)
    if keyword == "enum":
        return "write one of them"
    if keyword == "const":
        return "write exactly that"
    if keyword == "format" and value in _FORMAT_EXAMPLES:
        return f"write it as a {value}, for example {_FORMAT_EXAMPLES[value]}"
    if keyword == "required":
        return "add it"
    if keyword in ("additionalProperties", "unevaluatedProperties"):
        return "remove it, or check its spelling against the schema"
    if keyword == "maxLength":
        return "shorten it"
    if keyword == "minLength" and value == 1:
        return "give it a value"
    return None


def _type_advice(expected: list[str], instance: Any) -> str:
    numeric = "integer" in expected or "number" in expected
    if isinstance(instance, str) and numeric:
        number = _as_number(instance)
        if number is not None and ("number" in expected or float(number).is_integer()):
            return f"write the number without quotes: {_short(number)}"
        if number is not None:
            return "write a whole number, without quotes"
    if isinstance(instance, str) and "boolean" in expected and instance.strip().lower() in ("true", "false"):
        return f"write {instance.strip().lower()} without quotes"
    if isinstance(instance, float) and "integer" in expected and "number" not in expected:  # 4.0 is an integer
        return "write a whole number"
    if isinstance(instance, (int, float)) and "string" in expected:  # True and 1 alike
        return f"write it in quotes: {_short(json.dumps(instance))}"
    if instance is None:
        return f"write a value ({' or '.join(expected)}), or leave the field out where the schema allows"
    return f"write {' or '.join(expected)} there"


def _as_number(text: str) -> int | float | None:
    """The number a string holds, if it holds only a finite one ("4", " 4.5 "); None otherwise."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        number = float(text)
    except ValueError:
        return None
    return number if number == number and abs(number) != float("inf") else None


def _named_property(error: js_exceptions.ValidationError) -> str | None:
    """For a missing or unexpected property, its name, so the pointer names the exact field."""
    instance = error.instance
    if not isinstance(instance, dict):
        return None
    if error.validator == "required":
        return next((p for p in error.validator_value if p not in instance), None)
    if error.validator in ("additionalProperties", "unevaluatedProperties"):
        declared = error.schema.get("properties", {})
        patterns = [re.compile(p) for p in error.schema.get("patternProperties", {})]
        return next(
            (k for k in sorted(instance) if k not in declared and not any(p.search(k) for p in patterns)),
            None,
        )
    return None


def _rule_description(schema: Mapping[str, Any], schema_path: Sequence[Any]) -> str | None:
    """The description of the closest conditional rule (if/then, anyOf, ...) the error was raised under.

    jsonschema leaves `$ref` out of schema paths: a step missing from a node is looked up where its $ref points.
    """
    node: Any = schema
    found = None
    via_combinator = False
    for part in list(schema_path)[:-1]:
        try:
            if isinstance(node, Mapping) and part not in node:
                node = follow_local_refs(schema, node)
            node = node[part]
        except (KeyError, IndexError, TypeError):
            break
        if part in _COMBINATORS:
            via_combinator = True
        if via_combinator and isinstance(node, Mapping) and isinstance(node.get("description"), str):
            found = node["description"]
    return found


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "boolean", int: "integer", float: "number", str: "string", list: "array", dict: "object"}.get(
        type(value), type(value).__name__
    )


def _short(value: Any, limit: int = 60) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _clip(message: str) -> str:
    return message if len(message) <= _MAX_MESSAGE else message[: _MAX_MESSAGE - 3] + "..."
