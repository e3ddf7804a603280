"""YAML text → the Kubernetes objects in it, each with its location in the text.

Accepts a ``v1 List`` (as ``kubectl get ... -o yaml`` prints it), typed lists such as
``NodeList`` whose items carry no ``kind``, a multi-document stream, or a mix of these.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toposched.frontends.parse import parse_documents
from toposched.model import Problem, SpecError


@dataclass(frozen=True, slots=True)
class Located:
    """One object and where it sits (``items[3]``, ``documents[1].items[0]``; "" = the whole text)."""

    where: str
    kind: str
    obj: Mapping[str, Any]


def at(base: str, field: str) -> str:
    """Join a location and a field path."""
    return f"{base}.{field}" if base else field


def parse_yaml(text: str, *, source: str) -> tuple[list[Any], list[Problem]]:
    """Every YAML document of ``text`` (empty ones dropped), or the problems (syntax error with
    line/column, input bounds) as a list."""
    try:
        return parse_documents(text, source=source), []
    except SpecError as exc:
        return [], list(exc.problems)


def read_objects(documents: list[Any]) -> tuple[list[Located], list[Problem]]:
    """Flatten lists into objects; report documents and items that are not objects."""
    objects: list[Located] = []
    problems: list[Problem] = []
    several = len(documents) > 1
    for d, doc in enumerate(documents):
        where = f"documents[{d}]" if several else ""
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
        if isinstance(kind, str) and kind.endswith("List") and "items" in doc:
            objects.extend(_items(doc, kind, where, problems))
        else:
            objects.extend(_one(doc, "", where, problems))
    return objects, problems


def _items(doc: Mapping[str, Any], kind: str, where: str, problems: list[Problem]) -> list[Located]:
    items = doc.get("items") or []
    if not isinstance(items, list):
        problems.append(Problem(at(where, "items"), f"items must be a list, got {_type(items)}", ""))
        return []
    implied = kind.removesuffix("List")  # NodeList items omit their kind; a plain List's do not
    out: list[Located] = []
    for i, item in enumerate(items):
        out.extend(_one(item, implied, at(where, f"items[{i}]"), problems))
    return out


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
