"""A ``scheduling.k8s.io`` object decoded and checked as the API server does it, from the Go
types of its version (``toposched.wire.scheduling_types``, generated from k8s.io/api).

Decoding is strict, as ``kubectl apply`` asks for: a field the version's type does not have is
refused ("strict decoding error: unknown field ..."), and so is a value of the wrong JSON type
or out of an int32's range ("json: cannot unmarshal ..."). A document that does not decode is
not validated further, as the API server answers such a request before validating it.

Validation interprets the declarative markers the way the generated validators of
k8s.io/kubernetes v1.37.2 do (``pkg/apis/scheduling/*/zz_generated.validations.go``), in their
order and with apimachinery's messages: unions (exactly one member set), ``required`` (a zero
value or nil counts as missing), ``forbidden``, ``maxItems``, ``minimum`` / ``maximum``,
the string formats (``k8s-short-name``, ``k8s-long-name``, ``k8s-label-key``,
``k8s-path-segment-name``), enums, unique keys of map lists, ``dependentRequired`` and
defaults. Every feature gate the markers name (``ifEnabled``) is taken as on: the objects are
read as a cluster with these APIs enabled reads them. ``metav1`` types (``ObjectMeta``,
``Condition``) are not described here: ``rules.check_metadata`` checks the metadata.

On an update, ``update_problems`` applies the transition markers (``immutable``,
``update=NoSet/NoUnset``, ``update=NoAddItem/NoRemoveItem``) to the fields that changed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toposched.model import Problem
from toposched.model.k8s_content import (
    FieldErrorType,
    dns1123_label_errors,
    dns1123_subdomain_errors,
    field_error,
    label_key_errors,
    path_segment_errors,
    supported_values,
)
from toposched.wire.go_types import INTEGERS, GoField, GoType
from toposched.wire.scheduling_types import TYPES

MAX_NESTING = 100  # deeper than any object the parser lets through (64 levels)
_FORMATS = {
    "k8s-short-name": (
        dns1123_label_errors,
        "use a DNS label: lower-case letters, digits and '-', at most 63",
    ),
    "k8s-long-name": (
        dns1123_subdomain_errors,
        "use a DNS subdomain: lower-case letters, digits, '-' and '.'",
    ),
    "k8s-label-key": (label_key_errors, "use a node label key, e.g. example.com/rack"),
    "k8s-path-segment-name": (path_segment_errors, "leave out '/' and '%'"),
}


def go_type(api_version: str, name: str) -> GoType | None:
    return TYPES.get(api_version, {}).get(name)


def served_kinds(api_version: str) -> tuple[str, ...]:
    """The kinds a version serves: its types with a ``spec``."""
    return tuple(n for n, t in TYPES.get(api_version, {}).items() if t.field("spec") and t.field("metadata"))


@dataclass
class _Walk:
    """One object's check: where its fields are reported, and what was found."""

    api_version: str
    kind: str
    base: str  # the document's path (``podGroups[g]``)
    decoding: list[Problem] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def at(self, path: str) -> str:
        return f"{self.base}.{path}" if self.base and path else self.base or path

    def refuse(self, path: str, detail: str, hint: str) -> None:
        version = self.api_version.rsplit("/", 1)[-1]
        message = f'{self.kind} in version "{version}" cannot be handled as a {self.kind}: {detail}'
        self.decoding.append(Problem(self.at(path), message, hint))

    def report(self, path: str, message: str, hint: str) -> None:
        self.problems.append(Problem(self.at(path), message, hint))


def object_problems(
    obj: Mapping[str, Any], api_version: str, kind: str, path: str, *, old: Mapping[str, Any] | None = None
) -> tuple[list[Problem], bool]:
    """Decoding and declarative validation of one object of ``kind`` (its spec; metadata is
    ``rules.check_metadata``'s), and whether it decoded: decoding problems come alone. With
    ``old`` (the stored object) it is an update: changed fields get the transition rules,
    unchanged ones are not checked again."""
    root = go_type(api_version, kind)
    if root is None:
        return [], True
    body = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind", "metadata")}
    before = (
        None if old is None else {k: v for k, v in old.items() if k not in ("apiVersion", "kind", "metadata")}
    )
    return _check(_Walk(api_version, kind, path), body, root, kind, "", before)


def value_problems(
    value: object, api_version: str, type_name: str, *, kind: str, base: str, path: str, old: object = None
) -> tuple[list[Problem], bool]:
    """The same for a value of one named type at ``path`` of an object of ``kind`` (a Job's
    ``spec.scheduling``), reported under ``base``; ``old``: its stored value, on an update."""
    root = go_type(api_version, type_name)
    if root is None or value is None:
        return [], True
    return _check(_Walk(api_version, kind, base), value, root, type_name, path, old)


def _check(
    walk: _Walk, value: object, root: GoType, name: str, path: str, old: object = None
) -> tuple[list[Problem], bool]:
    typed = Typed(walk.api_version, name, root)
    decoded = _decode_struct(walk, value, typed, path, 0)
    if walk.decoding or decoded is None:
        return walk.decoding, False
    if not path:
        decoded.pop("status", None)  # decoded, but a create or update of the object resets it
    stored = (
        _decode_struct(_Walk(walk.api_version, walk.kind, ""), old, typed, path, 0)
        if old is not None
        else None
    )
    _validate_struct(walk, decoded, typed, path, 0, stored)
    return walk.problems, True


@dataclass(frozen=True, slots=True)
class Typed:
    """A type and the group/version it belongs to (where the names of its fields' types live)."""

    scope: str
    name: str
    spec: GoType


def _resolve(owner: Typed, entry: GoField) -> Typed | None:
    """The type of a field's element: of the owner's group/version, or named with its own
    (``scheduling.k8s.io/v1alpha3.WorkloadPodGroupSchedulingPolicy``); None for scalars and
    ``metav1`` types."""
    if entry.external:
        return None
    gv, _, local = entry.base.rpartition(".") if "/" in entry.base else ("", "", entry.base)
    spec = go_type(gv or owner.scope, local)
    return None if spec is None else Typed(gv or owner.scope, local, spec)


# -- decoding ---------------------------------------------------------------------------------


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _json_kind(value: object, *, literal: bool = False) -> str:
    """What Go's decoder calls a JSON value ("string", "number", "object", ...); ``literal``:
    a number with its text, as an integer field's error shows it."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return f"number {json.dumps(value)}" if literal else "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _go_path(path: str) -> str:
    """A field path as Go's decoder names it: JSON names only, no list indexes."""
    return re.sub(r"\[\d+\]", "", path)


def _mismatch(walk: _Walk, value: object, owner: str, path: str, go: str, hint: str) -> object:
    literal = go in INTEGERS
    walk.refuse(
        path,
        f"json: cannot unmarshal {_json_kind(value, literal=literal)} into Go struct field "
        f"{owner}.{_go_path(path)} of type {go}",
        hint,
    )
    return _BAD


_BAD = object()


def _decode_struct(walk: _Walk, value: object, typed: Typed, path: str, depth: int) -> dict[str, Any] | None:
    spec, name = typed.spec, typed.name
    if depth > MAX_NESTING:
        walk.refuse(path, "the object is nested too deeply", "flatten the object")
        return None
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        _mismatch(walk, value, name, path, name, "write a mapping (key: value lines) here")
        return None
    out: dict[str, Any] = {}
    for key in value:
        if not isinstance(key, str) or spec.field(key) is None:
            where = _join(path, str(key))
            known = ", ".join(f.json for f in spec.fields) or "none"
            walk.refuse(
                where, f'strict decoding error: unknown field "{_go_path(where)}"', f"fields here: {known}"
            )
    for entry in spec.fields:
        raw = value.get(entry.json)
        if raw is None:
            continue
        where = _join(path, entry.json)
        if entry.slice:
            if not isinstance(raw, list):
                _mismatch(walk, raw, name, where, entry.go, "write a list (- item lines) here")
                continue
            items = [
                _decode_one(walk, item, typed, entry, f"{where}[{i}]", depth) for i, item in enumerate(raw)
            ]
            if not any(item is _BAD for item in items):
                out[entry.json] = items
        elif (decoded := _decode_one(walk, raw, typed, entry, where, depth)) is not _BAD:
            out[entry.json] = decoded
    return out


def _decode_one(walk: _Walk, value: object, parent: Typed, entry: GoField, path: str, depth: int) -> Any:
    base = entry.base
    owner = parent.name
    if entry.external:
        return value
    if base in INTEGERS:
        low, high = INTEGERS[base]
        if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high:
            return value
        return _mismatch(walk, value, owner, path, base, "write a whole number")
    if base == "bool":
        return (
            value
            if isinstance(value, bool)
            else _mismatch(walk, value, owner, path, base, "write true or false")
        )
    typed = _resolve(parent, entry)
    spec = typed.spec if typed is not None else None
    if base == "string" or (spec is not None and spec.string):
        return (
            value
            if isinstance(value, str)
            else _mismatch(walk, value, owner, path, entry.go.lstrip("*[]"), "quote the value")
        )
    if typed is None:
        return value
    decoded = _decode_struct(walk, value, typed, path, depth + 1)
    return _BAD if decoded is None else decoded


# -- validation -------------------------------------------------------------------------------


def _markers(entry: GoField) -> list[str]:
    """The markers that apply with every feature gate on: ``ifEnabled(G)=X`` and ``alpha(...)=X``
    are X; ``ifDisabled(G)=X`` never applies."""
    out = []
    for marker in entry.markers:
        if marker.startswith("+k8s:ifDisabled"):
            continue
        if marker.startswith(("+k8s:ifEnabled", "+k8s:alpha")):
            marker = marker.split(")=", 1)[1]
        out.append(marker)
    return out


def _set(value: object) -> bool:
    """A union member is set: a list with items, any other value present."""
    return bool(value) if isinstance(value, list) else value is not None


def _validate_struct(
    walk: _Walk, value: Mapping[str, Any], typed: Typed, path: str, depth: int, old: Mapping[str, Any] | None
) -> None:
    """A struct's rules; ``old`` is the stored value on an update (None: a create, or a new
    list item), and then only what changed is checked, as the API server's ratcheting does."""
    spec = typed.spec
    members = [f.json for f in spec.fields if "+k8s:unionMember" in _markers(f)]
    chosen = [m for m in members if _set(value.get(m))]
    before = None if old is None else [m for m in members if _set(old.get(m))]
    if members and chosen != before:
        listed = ", ".join(f"`{m}`" for m in members)
        if len(chosen) > 1:
            shown = "{" + ", ".join(chosen) + "}"
            message = field_error(FieldErrorType.INVALID, shown, f"must specify exactly one of: {listed}")
            walk.report(path, message, f"keep one of {', '.join(members)}")
        elif not chosen:
            message = field_error(FieldErrorType.INVALID, "", f"must specify one of: {listed}")
            walk.report(path, message, f"set one of {', '.join(members)}")
    for entry in spec.fields:
        _validate_field(walk, value, typed, entry, _join(path, entry.json), depth, old)


def _with_default(entry: GoField, value: Any) -> Any:
    if value is None and (default := entry.value("+default")) is not None:
        return json.loads(default)
    return value


def _validate_field(
    walk: _Walk,
    owner: Mapping[str, Any],
    parent: Typed,
    entry: GoField,
    path: str,
    depth: int,
    old_owner: Mapping[str, Any] | None,
) -> None:
    markers = _markers(entry)
    value: Any = _with_default(entry, owner.get(entry.json))
    old: Any = None if old_owner is None else _with_default(entry, old_owner.get(entry.json))
    if old_owner is not None and old == value:
        return  # unchanged data is not validated again
    for marker in markers:
        if marker.startswith("+k8s:dependentRequired("):
            other = marker.split("(", 1)[1].rstrip(")").strip('"')
            if value is not None and owner.get(other) is None:
                message = field_error(FieldErrorType.REQUIRED, detail=f"must be set when {entry.json} is set")
                walk.report(_join(path.rpartition(".")[0], other), message, f"set {other} as well")
    # The checks that stop the field's others, all run as upstream's generated code runs them.
    before = len(walk.problems)
    if old_owner is not None:
        _transition_problems(walk, entry, markers, old, value, path)
    absent = value is None or (entry.slice and not value) or (not entry.pointer and value in ("", 0, False))
    if absent and "+k8s:required" in markers:
        walk.report(path, field_error(FieldErrorType.REQUIRED), "set this field")
    elif not absent and "+k8s:forbidden" in markers:
        walk.report(path, field_error(FieldErrorType.FORBIDDEN), "leave this field out")
    limit = entry.value("+k8s:maxItems")
    if entry.slice and limit is not None and len(value or ()) > int(limit):
        what = "item" if int(limit) == 1 else "items"
        message = field_error(FieldErrorType.TOO_MANY, len(value), f"must have at most {limit} {what}")
        walk.report(path, message, f"keep at most {limit}")
    if len(walk.problems) > before:
        return
    if absent:
        if entry.pointer or entry.slice or value is not None or _struct(parent, entry) is None:
            return
        value = {}  # a struct value: its zero value is validated (an empty union, say)
    if entry.slice:
        _validate_list(walk, value, parent, entry, markers, path, depth, old)
    else:
        _validate_one(walk, value, parent, entry, markers, path, depth, old)


def _transition_problems(
    walk: _Walk, entry: GoField, markers: Sequence[str], old: Any, value: Any, path: str
) -> None:
    """An update's rules for a field that changed: ``immutable``, ``update=NoSet`` /
    ``NoUnset`` and, for a list, ``NoAddItem`` / ``NoRemoveItem`` by its map key."""
    keep = "keep the stored value; delete and recreate the object to change it"
    if "+k8s:immutable" in markers:
        walk.report(path, field_error(FieldErrorType.INVALID, None, "field is immutable"), keep)
        return
    was, now = _set(old), _set(value)
    if "+k8s:update=NoSet" in markers and not was and now:
        walk.report(path, field_error(FieldErrorType.INVALID, None, "field cannot be set once created"), keep)
    if "+k8s:update=NoUnset" in markers and was and not now:
        walk.report(path, field_error(FieldErrorType.INVALID, None, "field cannot be cleared once set"), keep)
    key = entry.value("+k8s:listMapKey")
    if entry.slice and key is not None:
        old_keys = [_key(item, key) for item in old or []]
        new_keys = [_key(item, key) for item in value or []]
        if "+k8s:update=NoAddItem" in markers:
            for i, mine in enumerate(new_keys):
                if mine not in old_keys:
                    walk.report(
                        f"{path}[{i}]",
                        field_error(FieldErrorType.FORBIDDEN, detail="item may not be added"),
                        keep,
                    )
        if "+k8s:update=NoRemoveItem" in markers:
            for mine in old_keys:
                if mine not in new_keys:
                    walk.report(
                        path, field_error(FieldErrorType.FORBIDDEN, detail="item may not be removed"), keep
                    )


def _key(item: object, key: str) -> object:
    return item.get(key) if isinstance(item, Mapping) else None


def _zero(typed: Typed | None, key: str) -> object:
    """The Go zero value of a list item's key field: "" for a string, 0 for an integer."""
    entry = typed.spec.field(key) if typed is not None else None
    return 0 if entry is not None and entry.base in INTEGERS else ""


def _struct(parent: Typed, entry: GoField) -> Typed | None:
    typed = _resolve(parent, entry)
    return typed if typed is not None and not typed.spec.string else None


def _validate_list(
    walk: _Walk,
    items: list[Any],
    parent: Typed,
    entry: GoField,
    markers: Sequence[str],
    path: str,
    depth: int,
    old: Any,
) -> None:
    key = entry.value("+k8s:listMapKey")
    if "+k8s:listType=map" in markers and key is not None:
        seen: list[object] = []
        zero = _zero(_struct(parent, entry), key)
        for i, item in enumerate(items):
            mine = _key(item, key)
            mine = zero if mine is None else mine  # a key left out is its Go zero value ("")
            if mine in seen:
                walk.report(
                    f"{path}[{i}]", field_error(FieldErrorType.DUPLICATE, item), f"every {key} must differ"
                )
            seen.append(mine)
    stored = (
        {_key(item, key): item for item in old or []} if key is not None and isinstance(old, list) else {}
    )
    for i, item in enumerate(items):
        before = stored.get(_key(item, key)) if key is not None else None
        _validate_one(walk, item, parent, entry, markers, f"{path}[{i}]", depth, before)


def _validate_one(
    walk: _Walk,
    value: Any,
    parent: Typed,
    entry: GoField,
    markers: Sequence[str],
    path: str,
    depth: int,
    old: Any,
) -> None:
    typed = _struct(parent, entry)
    if typed is not None:
        if isinstance(value, Mapping) and depth < MAX_NESTING:
            _validate_struct(walk, value, typed, path, depth + 1, old if isinstance(old, Mapping) else None)
        return
    if old is not None and old == value:
        return
    for marker in markers:
        name, _, argument = marker.partition("=")
        if name == "+k8s:format" and isinstance(value, str) and argument in _FORMATS:
            check, hint = _FORMATS[argument]
            for message in check(value):
                walk.report(path, field_error(FieldErrorType.INVALID, value, message), hint)
        elif name == "+k8s:minimum" and isinstance(value, int) and value < int(argument):
            walk.report(
                path,
                field_error(FieldErrorType.INVALID, value, f"must be greater than or equal to {argument}"),
                f"use at least {argument}",
            )
        elif name == "+k8s:maximum" and isinstance(value, int) and value > int(argument):
            walk.report(
                path,
                field_error(FieldErrorType.INVALID, value, f"must be less than or equal to {argument}"),
                f"use at most {argument}",
            )
    enum = _resolve(parent, entry)
    if enum is not None and enum.spec.enum and value not in enum.spec.enum:
        values = tuple(sorted(enum.spec.enum))
        walk.report(
            path,
            field_error(FieldErrorType.NOT_SUPPORTED, value, supported_values(values)),
            f"use one of {', '.join(values)}",
        )
