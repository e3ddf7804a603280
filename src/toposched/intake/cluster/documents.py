"""Parsed values → the Kubernetes objects in them, each with its location in the text.

Accepts a ``v1 List`` (as ``kubectl get ... -o yaml`` prints it), typed lists such as
``NodeList`` whose items carry no ``kind``, a multi-document stream, or a mix of these. Reads
what ``parse_stream`` hands out, so the items of a List are turned into objects one by one as
they are parsed; a document with a non-empty ``items`` list is a List whatever the order of its
keys (kubectl prints ``items`` before ``kind``). Locations are ``items[3]`` in the first
document and ``documents[1].items[0]`` in later ones ("" = the whole first document).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from toposched.intake.parse import Parsed, split_items
from toposched.model import Problem


@dataclass(frozen=True, slots=True)
class Located:
    """One object and where it sits (``items[3]``, ``documents[1].items[0]``; "" = the whole text)."""

    where: str
    kind: str
    obj: Mapping[str, Any]


def at(base: str, field: str) -> str:
    """Join a location and a field path."""
    return f"{base}.{field}" if base else field


def read_objects(documents: list[Any]) -> tuple[list[Located], list[Problem]]:
    """The objects of parsed documents; problems for documents and items that are not objects."""
    problems: list[Problem] = []
    return list(located_objects(split_items(documents), problems)), problems


def located_objects(values: Iterable[Parsed], problems: list[Problem]) -> Iterator[Located]:
    """The objects of what the parser hands out, each as soon as it is known; problems (documents
    and items that are not objects) are appended."""
    waiting: list[Located] = []  # items without a kind, before their List's kind is known
    listed = -1  # the document whose items were handed out
    for value in values:
        where = f"documents[{value.document}]" if value.document else ""
        if value.item is not None:
            listed = value.document
            item_at = at(where, f"items[{value.item}]")
            kind = value.head.get("kind")
            implied = kind.removesuffix("List") if isinstance(kind, str) and kind.endswith("List") else None
            if implied is None and isinstance(value.value, Mapping) and not value.value.get("kind"):
                waiting.append(Located(item_at, "", value.value))  # the List's kind may follow
            else:
                yield from _one(value.value, implied or "", item_at, problems)
            continue
        doc = value.value
        if not isinstance(doc, Mapping):
            problems.append(
                Problem(
                    where or "document",
                    f"a document must be a mapping (a Kubernetes object or List), got {_type(doc)}",
                    "write objects with apiVersion, kind and metadata, or a kind: List with items",
                )
            )
            continue
        kind = doc.get("kind")
        is_list = isinstance(kind, str) and kind.endswith("List")
        if listed == value.document and not is_list:
            problems.append(
                Problem(
                    at(where, "kind"),
                    f"a document with items is a List, but its kind is {kind!r}",
                    "set kind: List, or remove items",
                )
            )
        elif isinstance(kind, str) and is_list and "items" in doc:
            implied = kind.removesuffix("List")  # NodeList items omit their kind; a plain List's do not
            for late in waiting:
                yield from _one(late.obj, implied, late.where, problems)
            items = doc.get("items") or []
            if not isinstance(items, list):
                problems.append(Problem(at(where, "items"), f"items must be a list, got {_type(items)}", ""))
        else:
            yield from _one(doc, "", where, problems)
        waiting.clear()


def _one(obj: object, implied: str, where: str, problems: list[Problem]) -> list[Located]:
    if not isinstance(obj, Mapping):
        problems.append(Problem(where or "document", f"an object must be a mapping, got {_type(obj)}", ""))
        return []
    kind = obj.get("kind") or implied
    if not isinstance(kind, str) or not kind:
        problems.append(
            Problem(at(where, "kind"), "the object has no kind", "set kind: Node, Pod or Topology")
        )
        return []
    return [Located(where, kind, obj)]


def _type(value: object) -> str:
    return {list: "a list", str: "a string", int: "a number", float: "a number", bool: "a boolean"}.get(
        type(value), type(value).__name__
    )
