"""Keeping a backend's KAI Topology objects in step with its pools' ``topology_keys``.

A Topology is immutable: a changed one is deleted and created again, never updated in place.
An existing object counts as current when ``apiVersion``, ``kind`` and ``spec`` are equal and
it carries every target label with the target value; server-set metadata, extra labels and
``status`` do not matter. Only objects labelled with the backend's namespace are touched.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from toposched.frontends.osmo.objects import NAMESPACE_LABEL, topology_object
from toposched.frontends.osmo.pool import Backend, Pool


class Op(StrEnum):
    CREATE = "create"
    DELETE = "delete"


@dataclass(frozen=True, slots=True)
class Operation:
    """One change to a Topology object; ``obj`` is the object to create (empty for deletes)."""

    op: Op
    name: str
    obj: Mapping[str, Any] = field(default_factory=dict)


def sync_topologies(
    backend: Backend, pools: Sequence[Pool], existing: Iterable[Mapping[str, Any]]
) -> list[Operation]:
    """Operations that make the cluster hold one Topology per pool with keys, in pool order;
    stale objects of this backend's namespace are deleted last."""
    ours = {_name(o): o for o in existing if _labels(o).get(NAMESPACE_LABEL) == backend.k8s_namespace}
    targets: dict[str, dict[str, Any]] = {}
    for pool in pools:
        obj = (
            topology_object(pool) if pool.backend.name == backend.name and backend.supports_topology else None
        )
        if obj is not None:
            targets[obj["metadata"]["name"]] = obj
    ops: list[Operation] = []
    for name, target in targets.items():
        current = ours.get(name)
        if current is not None and is_current(current, target):
            continue
        if current is not None:
            ops.append(Operation(Op.DELETE, name))
        ops.append(Operation(Op.CREATE, name, target))
    ops.extend(Operation(Op.DELETE, name) for name in ours if name not in targets)
    return ops


def is_current(existing: Mapping[str, Any], target: Mapping[str, Any]) -> bool:
    """Same apiVersion, kind and spec (level order counts), and the target labels present."""
    if existing.get("apiVersion") != target.get("apiVersion") or existing.get("kind") != target.get("kind"):
        return False
    if existing.get("spec") != target.get("spec"):
        return False
    have = _labels(existing)
    return all(have.get(k) == v for k, v in _labels(target).items())


def apply_operations(
    existing: Iterable[Mapping[str, Any]], operations: Iterable[Operation]
) -> list[Mapping[str, Any]]:
    """The objects after the operations ran (what a fake cluster would hold)."""
    state = {_name(o): o for o in existing}
    for op in operations:
        if op.op is Op.DELETE:
            state.pop(op.name, None)
        else:
            state[op.name] = op.obj
    return list(state.values())


def _name(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("name", ""))


def _labels(obj: Mapping[str, Any]) -> Mapping[str, str]:
    return (obj.get("metadata") or {}).get("labels") or {}
