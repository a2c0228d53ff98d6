"""The compatibility repairs that let real files load without --strict, each named and documented.

A repair runs only on a record that failed its schema, edits the parsed copy (never the stored text), and
counts only when the repaired record then passes. README.md ("Compatibility repairs") lists them for users.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ingest.formats.base import Record, Repair
from ingest.pointer import follow_local_refs


def _null_as_absent(record: Record, schema: Mapping[str, Any]) -> bool:
    return _NullPlan.for_schema(schema).apply(record)


def _drop_single_turn_transcript(record: Record, schema: Mapping[str, Any]) -> bool:
    if record.get("interaction_type") != "single_turn":
        return False
    changed = False
    for key in ("interactions", "messages"):
        if isinstance(record.get(key), list):
            del record[key]
            changed = True
    return changed


def _drop_multi_turn_output(record: Record, schema: Mapping[str, Any]) -> bool:
    if record.get("interaction_type") not in ("multi_turn", "agentic") or record.get("output") is None:
        return False
    del record["output"]
    return True


NULL_AS_ABSENT = Repair(
    "null_as_absent",
    "A null in an optional field whose schema does not allow null (input.formatted, input.choices, "
    "output.reasoning_trace, tool_call_id, ...) counts as the field being absent.",
    _null_as_absent,
)
SINGLE_TURN_TRANSCRIPT = Repair(
    "single_turn_transcript_ignored",
    "A single_turn record that also carries an interactions/messages list, as the Inspect converter writes "
    "it: the list is kept in the stored record but not held to the schema's 'must be null' rule.",
    _drop_single_turn_transcript,
)
MULTI_TURN_OUTPUT = Repair(
    "multi_turn_output_ignored",
    "A multi_turn or agentic record that also carries output: kept in the stored record, not held to the "
    "schema's 'must be null' rule.",
    _drop_multi_turn_output,
)
EEE_INSTANCE_REPAIRS = (SINGLE_TURN_TRANSCRIPT, MULTI_TURN_OUTPUT, NULL_AS_ABSENT)


@dataclass
class _NullPlan:
    """Where in a record a null may be dropped: optional properties whose schema rejects null, per level."""

    droppable: frozenset[str] = frozenset()
    children: dict[str, _NullPlan] = field(default_factory=dict)
    items: _NullPlan | None = None

    @classmethod
    def for_schema(cls, schema: Mapping[str, Any]) -> _NullPlan:
        # Plans are built once per schema object; the schema is kept beside its plan so its id stays unique.
        entry = _PLANS.get(id(schema))
        if entry is None:
            entry = _PLANS[id(schema)] = (schema, _build(schema, schema, 0))
        return entry[1]

    def apply(self, value: Any) -> bool:
        changed = False
        if isinstance(value, dict):
            for key in self.droppable:
                if key in value and value[key] is None:
                    del value[key]
                    changed = True
            for key, plan in self.children.items():
                child = value.get(key)
                if child is not None:
                    changed |= plan.apply(child)
        elif isinstance(value, list) and self.items is not None:
            for element in value:
                changed |= self.items.apply(element)
        return changed


_PLANS: dict[int, tuple[Mapping[str, Any], _NullPlan]] = {}


def _resolve(node: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any]:
    return follow_local_refs(root, node)


def _accepts_null(node: Mapping[str, Any], root: Mapping[str, Any]) -> bool:
    node = _resolve(node, root)
    if not isinstance(node, Mapping):
        return bool(node)  # boolean schemas
    if "type" in node:
        kind = node["type"]
        if not (kind == "null" or (isinstance(kind, list) and "null" in kind)):
            return False
    if "const" in node and node["const"] is not None:
        return False
    if "enum" in node and None not in node["enum"]:
        return False
    for combinator in ("oneOf", "anyOf"):
        if combinator in node and not any(_accepts_null(branch, root) for branch in node[combinator]):
            return False
    return True


def _build(node: Mapping[str, Any], root: Mapping[str, Any], depth: int) -> _NullPlan:
    node = _resolve(node, root)
    plan = _NullPlan()
    if not isinstance(node, Mapping) or depth > 12:
        return plan
    required = set(node.get("required", ()))
    droppable = set()
    for key, sub in node.get("properties", {}).items():
        sub = _resolve(sub, root)
        if key not in required and not _accepts_null(sub, root):
            droppable.add(key)
        if isinstance(sub, Mapping) and ("properties" in sub or "items" in sub):
            child = _build(sub, root, depth + 1)
            if child.droppable or child.children or child.items:
                plan.children[key] = child
    plan.droppable = frozenset(droppable)
    items = node.get("items")
    if isinstance(items, Mapping):
        child = _build(items, root, depth + 1)
        if child.droppable or child.children or child.items:
            plan.items = child
    return plan
