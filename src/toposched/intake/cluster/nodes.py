"""Kubernetes ``Node`` objects → ``Node``.

Readiness: a node whose ``status.conditions`` is absent or empty counts as Ready, because
hand-written dumps often leave out ``status``; a node with a Ready condition is Ready only when
its status is ``"True"``; a node that lists conditions but no Ready condition is NotReady (as
Kueue treats a missing Ready condition) and a warning says so. Allocatable resources fall back to
``status.capacity`` when ``status.allocatable`` is missing.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from toposched.intake.cluster.documents import Located, at
from toposched.model import EMPTY, Node, Problem, Resources, SpecError, Taint, TaintEffect

_EFFECTS = tuple(e.value for e in TaintEffect)


def object_name(located: Located, problems: list[Problem]) -> str | None:
    """``metadata.name`` of an object, or None with a problem recorded."""
    metadata = located.obj.get("metadata")
    name = metadata.get("name") if isinstance(metadata, Mapping) else None
    if isinstance(name, str) and name:
        return name
    problems.append(
        Problem(
            at(located.where, "metadata.name"),
            f"a {located.kind} without metadata.name",
            f"give every {located.kind} a name",
        )
    )
    return None


def parse_node(located: Located, problems: list[Problem], warnings: list[str]) -> Node | None:
    """One Node; problems are appended (path ``nodes[<name>]...``), None when the node is unusable."""
    name = object_name(located, problems)
    if name is None:
        return None
    base = f"nodes[{name}]"
    obj = located.obj
    before = len(problems)
    metadata: Mapping[str, Any] = obj.get("metadata") or {}
    spec = _mapping(obj.get("spec"), f"{base}.spec", problems)
    status = _mapping(obj.get("status"), f"{base}.status", problems)
    labels = _labels(metadata.get("labels"), f"{base}.metadata.labels", problems)
    allocatable = _allocatable(status, base, problems, warnings)
    taints = _taints(spec.get("taints"), f"{base}.spec.taints", problems)
    unschedulable = spec.get("unschedulable", False)
    if not isinstance(unschedulable, bool):
        problems.append(
            Problem(f"{base}.spec.unschedulable", f"expected true or false, got {unschedulable!r}", "")
        )
    ready = _ready(status.get("conditions"), name, f"{base}.status.conditions", problems, warnings)
    if len(problems) > before:
        return None
    return Node.create(name, labels, allocatable, taints, ready=ready, unschedulable=unschedulable is True)


def _mapping(raw: object, path: str, problems: list[Problem]) -> Mapping[str, Any]:
    if raw is None:
        return {}
    if isinstance(raw, Mapping):
        return raw
    problems.append(Problem(path, f"expected a mapping, got {raw!r}", ""))
    return {}


def _labels(raw: object, path: str, problems: list[Problem]) -> dict[str, str]:
    labels: dict[str, str] = {}
    for key, value in _mapping(raw, path, problems).items():
        # YAML reads unquoted 7 as a number; Kubernetes label values are always strings.
        if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
            labels[sys.intern(str(key))] = str(value)  # one copy of each key across all nodes
        else:
            problems.append(
                Problem(f"{path}[{key}]", f"label value {value!r} is not a string", "quote the value in YAML")
            )
    return labels


def _allocatable(
    status: Mapping[str, Any], base: str, problems: list[Problem], warnings: list[str]
) -> Resources:
    field = "allocatable"
    raw = status.get("allocatable")
    if raw is None and status.get("capacity") is not None:
        field, raw = "capacity", status["capacity"]
        warnings.append(f"{base}: no status.allocatable, using status.capacity")
    if raw is None:
        warnings.append(f"{base}: no status.allocatable, the node can take no pods")
        return EMPTY
    path = f"{base}.status.{field}"
    if not isinstance(raw, Mapping):
        problems.append(Problem(path, f"expected a mapping of resource quantities, got {raw!r}", ""))
        return EMPTY
    try:
        return _same_resources(tuple(raw.items()))
    except (TypeError, SpecError):  # a value that is not a quantity: parsed again below to name the node
        pass
    try:
        return Resources.parse(raw, path=path)
    except SpecError as exc:
        problems.extend(exc.problems)
        return EMPTY


@lru_cache(maxsize=1024)
def _same_resources(quantities: tuple[tuple[str, Any], ...]) -> Resources:
    """Nodes of one pool report the same allocatable quantities: parse them once and share the
    (immutable) result."""
    return Resources.parse(dict(quantities))


def _taints(raw: object, path: str, problems: list[Problem]) -> tuple[Taint, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        problems.append(
            Problem(path, "taints must be a list", "write - {key: k, value: v, effect: NoSchedule}")
        )
        return ()
    taints: list[Taint] = []
    for i, item in enumerate(raw):
        where = f"{path}[{i}]"
        if not isinstance(item, Mapping):
            problems.append(
                Problem(where, "a taint is a mapping", "write {key: k, value: v, effect: NoSchedule}")
            )
            continue
        key, value, effect = item.get("key"), item.get("value", ""), item.get("effect")
        ok = True
        if not isinstance(key, str) or not key:
            problems.append(Problem(f"{where}.key", "a taint needs a key", ""))
            ok = False
        if value is not None and not isinstance(value, str):
            problems.append(Problem(f"{where}.value", f"taint value {value!r} is not a string", "quote it"))
            ok = False
        if effect not in _EFFECTS:
            problems.append(
                Problem(
                    f"{where}.effect", f"unknown taint effect {effect!r}", f"use one of {', '.join(_EFFECTS)}"
                )
            )
            ok = False
        if ok:
            taints.append(Taint(str(key), str(value or ""), TaintEffect(str(effect))))
    return tuple(taints)


def _ready(raw: object, name: str, path: str, problems: list[Problem], warnings: list[str]) -> bool:
    if raw is None or raw == []:
        return True
    if not isinstance(raw, list):
        problems.append(Problem(path, "conditions must be a list", "write - {type: Ready, status: 'True'}"))
        return True
    for condition in raw:
        if isinstance(condition, Mapping) and condition.get("type") == "Ready":
            return condition.get("status") == "True"
    warnings.append(f"nodes[{name}]: conditions list no Ready condition, the node counts as NotReady")
    return False
