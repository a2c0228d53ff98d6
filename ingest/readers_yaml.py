"""Read a YAML file (`.yaml`, `.yml`) as records: the suites of an ADP evaluation document.

- A document with a top-level `suites:` list, or an agent manifest whose `evaluation:` block holds one, gives one
  record per suite: its JSON rendering (key order as written), with `line` = the suite's position in the list
  (from 1, counting on across the documents of a multi-document file) and `offset` = the byte where the suite
  starts in the file. The stored raw text of such a record is that JSON rendering: the YAML file stays the system
  of record, and the offset finds the suite in it.
- An agent manifest with an empty `evaluation:` block (ADP-Minimal) gives no record.
- Any other document gives one record, the whole document, so detection quarantines it as an unknown format.

YAML is read with the YAML 1.2 core schema, not PyYAML's default YAML 1.1: `on`, `yes`, `no` stay strings (ADP's
`execution: {on: [...]}` would otherwise become `{true: [...]}`), and dates and `1:20` stay text. Duplicate keys,
invalid YAML, invalid UTF-8 and alias bombs make the file unreadable with a message that says where.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from ingest.byte_order_mark import carry_bom

YAML_SUFFIXES = (".yaml", ".yml")
# Expanding aliases can turn a small file into a huge document ("billion laughs"); refuse past this many nodes.
MAX_EXPANDED_NODES = 1_000_000


def read_yaml(path: Path, max_record_bytes: int) -> Iterator[Any]:
    """Yield a RawRecord per suite (see the module docstring). Raises SourceError when the file cannot be read."""
    # Imported here: ingest.sources registers this reader, so a module-level import would be circular.
    from ingest.sources import PREVIEW_BYTES, ConvertedRecord, SourceError

    size = path.stat().st_size
    if size > max_record_bytes:
        raise SourceError("too_large", f"the YAML file is {size:,} bytes, over the {max_record_bytes:,}-byte limit")
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as bad:
        raise SourceError(
            "invalid_utf8", f"invalid UTF-8: byte 0x{data[bad.start:bad.start + 1].hex()} at byte {bad.start + 1}; "
            "save the file as UTF-8"
        ) from bad
    bom = len(data) - len(text.encode("utf-8"))
    try:
        documents = list(_documents(text))
    except _Unreadable as exc:
        raise SourceError(exc.kind, exc.message) from exc
    except yaml.YAMLError as exc:
        raise SourceError("invalid_yaml", f"not valid YAML: {_describe_yaml_error(exc)}") from exc

    position = 0
    for document, suite_nodes in documents:
        # A document that is not an evaluation document is one record, the whole of it, for detection to name.
        pairs = [(document.node, document.value)] if suite_nodes is None else suite_nodes
        for node, value in pairs:
            position += 1
            record = _record(ConvertedRecord, PREVIEW_BYTES, position, bom, text, node, value, max_record_bytes)
            # The file's mark goes with its first record, to be repaired or refused (ingest/byte_order_mark.py).
            yield carry_bom(record) if bom and position == 1 else record


class _Unreadable(Exception):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind, self.message = kind, message


class _Document:
    def __init__(self, node: yaml.Node, value: Any) -> None:
        self.node, self.value = node, value


def _documents(text: str) -> Iterator[tuple[_Document, list[tuple[yaml.Node, Any]] | None]]:
    """Each YAML document with its suites' (node, value) pairs; None when it holds no suites list."""
    loader = _Yaml12Loader(text)
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is None:
                continue
            _check_size(node)
            value = loader.construct_document(node)
            yield _Document(node, value), _suites(node, value)
    finally:
        loader.dispose()


def _suites(node: yaml.Node, value: Any) -> list[tuple[yaml.Node, Any]] | None:
    if not isinstance(value, dict) or not isinstance(node, yaml.MappingNode):
        return None
    if "suites" in value and isinstance(value["suites"], list):
        return list(zip(_child(node, "suites").value, value["suites"]))
    evaluation = value.get("evaluation")
    if "suites" not in value and isinstance(evaluation, dict):
        if not evaluation:  # ADP-Minimal: `evaluation: {}`
            return []
        if isinstance(evaluation.get("suites"), list):
            return list(zip(_child(_child(node, "evaluation"), "suites").value, evaluation["suites"]))
    return None


def _child(node: yaml.MappingNode, key: str) -> yaml.Node:
    return next(v for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == key)


def _record(raw_record: type, preview_bytes: int, position: int, bom: int, text: str, node: yaml.Node,
            value: Any, max_record_bytes: int) -> Any:
    rendered = json.dumps(value, ensure_ascii=False, default=str).encode("utf-8")
    offset = bom + len(text[: node.start_mark.index].encode("utf-8"))
    if len(rendered) > max_record_bytes:
        return raw_record(position, offset, rendered[:preview_bytes], len(rendered), oversized=True)
    nonfinite_line = _nonfinite_line(node, value) if b"NaN" in rendered or b"Infinity" in rendered else None
    return raw_record(position, offset, rendered, len(rendered), nonfinite_line=nonfinite_line)


def _nonfinite_line(node: yaml.Node, value: Any) -> int | None:
    """The file's line (from 1) of the first value, in the rendering's order, that JSON has no number for (`.nan`,
    `.inf`, a float too large for a double); None when there is none."""
    if isinstance(value, float) and not math.isfinite(value):
        return node.start_mark.line + 1
    if isinstance(value, dict) and isinstance(node, yaml.MappingNode):
        # A merge (<<: *anchor) has put the anchor's key and value nodes into this mapping's by now: a merged value's
        # line is the anchor's, where it is written.
        children = {k.value: v for k, v in node.value if isinstance(k, yaml.ScalarNode)}
        for key, child in value.items():
            found = _nonfinite_line(children[key], child) if key in children else None
            if found is not None:
                return found
    if isinstance(value, list) and isinstance(node, yaml.SequenceNode):
        for child_node, child in zip(node.value, value):
            found = _nonfinite_line(child_node, child)
            if found is not None:
                return found
    return None


def _check_size(root: yaml.Node) -> None:
    """Refuse a document whose aliases expand past MAX_EXPANDED_NODES (counted without expanding them)."""
    sizes: dict[int, int] = {}

    def expanded(node: yaml.Node, depth: int = 0) -> int:
        if id(node) in sizes:
            return sizes[id(node)]
        if depth > 1000:
            raise _Unreadable("too_deep", "the YAML document is nested deeper than 1000 levels")
        if isinstance(node, yaml.SequenceNode):
            total = 1 + sum(expanded(child, depth + 1) for child in node.value)
        elif isinstance(node, yaml.MappingNode):
            total = 1 + sum(expanded(k, depth + 1) + expanded(v, depth + 1) for k, v in node.value)
        else:
            total = 1
        sizes[id(node)] = total
        if total > MAX_EXPANDED_NODES:
            raise _Unreadable("too_large", f"the YAML document expands (through its aliases) to more than "
                                           f"{MAX_EXPANDED_NODES:,} nodes")
        return total

    expanded(root)


def _describe_yaml_error(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    return f"{problem}{where}"


class _Yaml12Loader(yaml.SafeLoader):
    """SafeLoader with YAML 1.2 core-schema scalars and a rejection of duplicate keys."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        # Checked on the keys written in this mapping, before merge keys (<<: *anchor) bring in others: a key
        # written here legitimately overrides a merged one.
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            if not isinstance(key, str):
                raise _Unreadable(
                    "invalid_yaml",
                    f"the key {key!r} at line {key_node.start_mark.line + 1} is not a string; JSON objects have "
                    "string keys (quote it)",
                )
            if key in seen:
                raise _Unreadable(
                    "duplicate_key",
                    f"the key {key!r} appears more than once in the same mapping (line "
                    f"{key_node.start_mark.line + 1}); a YAML parser would silently keep only the last value",
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


# The YAML 1.2 core schema's implicit types (https://yaml.org/spec/1.2.2/#1032-tag-resolution), replacing 1.1's.
_Yaml12Loader.yaml_implicit_resolvers = {}
_IMPLICIT = [
    ("tag:yaml.org,2002:merge", r"^(?:<<)$", ["<"]),  # not YAML 1.2, but anchors with merge keys are common
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", list("tTfF")),
    ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", list("-+0123456789")),
    ("tag:yaml.org,2002:float",
     r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
     list("-+.0123456789")),
]
for _tag, _pattern, _first in _IMPLICIT:
    _Yaml12Loader.add_implicit_resolver(_tag, re.compile(_pattern), _first)


def _construct_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    value = loader.construct_scalar(node)
    if value.startswith("0o"):
        return int(value[2:], 8)
    if value.startswith("0x"):
        return int(value[2:], 16)
    return int(value)


_Yaml12Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)
