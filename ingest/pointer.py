"""JSON Pointers (RFC 6901): how a quarantine row says which part of a record failed."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


def to_pointer(path: Iterable[str | int]) -> str:
    """`["messages", 3, "a/b"]` -> `/messages/3/a~1b`; the empty path is the whole record, `""`."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)


def resolve_pointer(document: Any, pointer: str) -> Any:
    """The value at `pointer` in `document` (`"/$defs/dimension"`); raises KeyError/IndexError when absent."""
    node = document
    for part in pointer.split("/")[1:] if pointer else []:
        part = part.replace("~1", "/").replace("~0", "~")
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def follow_local_refs(root: Mapping[str, Any], node: Any, limit: int = 16) -> Any:
    """Follow a schema node's local `$ref` ("#/$defs/x") until it has none; other refs are left as they are."""
    for _ in range(limit):
        ref = node.get("$ref") if isinstance(node, Mapping) else None
        if not isinstance(ref, str) or not ref.startswith("#"):
            return node
        node = resolve_pointer(root, ref[1:])
    return node
