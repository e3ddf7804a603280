"""Small explicit JSON codecs for the model values the store keeps (never pickle).

Resources are stored as ``{name: canonical integer}``; nodes and topologies as plain objects whose
fields mirror the model. Decoding checks shapes, so a damaged row surfaces as ``StoreError``, except
a workload's placement, explanation or own topologies: those are reported on the record
(``damage``), so one damaged workload does not make every listing fail.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from sys import intern
from typing import Any

from toposched.model import Node, Quota, Resources, SpecError, StoreError, Taint, TaintEffect, Topology
from toposched.store.records import Json, WorkloadRecord, WorkloadState


def dumps(value: Json) -> str:
    """Canonical JSON text: sorted keys, no spaces, no NaN. Raises TypeError for non-JSON values."""
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except ValueError as exc:  # NaN / infinity: not JSON
        raise TypeError(f"value is not JSON-serialisable: {exc}") from exc


def loads(text: str | None, what: str) -> Json:
    """Parse stored JSON text; None stays None."""
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError as exc:
        raise StoreError(f"stored {what} is not valid JSON: {exc}") from exc


def copy_json(value: Json) -> Json:
    """A deep copy through JSON: what a caller gets back from any store."""
    return None if value is None else json.loads(dumps(value))


def resources_to_json(resources: Mapping[str, int]) -> dict[str, int]:
    return {name: int(amount) for name, amount in sorted(resources.items()) if amount}


def resources_from_json(raw: Json, what: str) -> Resources:
    if not isinstance(raw, dict) or not all(
        isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) for k, v in raw.items()
    ):
        raise StoreError(f"stored {what} is not a map of resource name to integer: {raw!r}")
    return Resources(raw)


def node_to_json(node: Node) -> dict[str, Any]:
    return {
        "name": node.name,
        "labels": dict(sorted(node.labels.items())),
        "allocatable": resources_to_json(node.allocatable),
        "taints": [{"key": t.key, "value": t.value, "effect": str(t.effect)} for t in node.taints],
        "ready": node.ready,
        "unschedulable": node.unschedulable,
    }


@functools.lru_cache(maxsize=256)
def _shared_resources(items: tuple[tuple[str, int], ...]) -> Resources:
    return resources_from_json(dict(items), "node allocatable")


def node_from_json(raw: Json) -> Node:
    """A stored node. Its name and labels are interned and its allocatable shared with the
    nodes that have the same (label keys and most values recur on every node, and nodes mostly
    share a few shapes): a scheduler holds every node, a third of the memory they took."""
    what = "node"
    try:
        what = f"node {raw['name']!r}"
        allocatable = raw["allocatable"]
        return Node.create(
            intern(str(raw["name"])),
            {intern(str(k)): intern(str(v)) for k, v in raw["labels"].items()},
            _shared_resources(tuple(allocatable.items()))
            if isinstance(allocatable, dict)
            else resources_from_json(allocatable, f"{what} allocatable"),
            tuple(Taint(str(t["key"]), str(t["value"]), TaintEffect(t["effect"])) for t in raw["taints"]),
            ready=bool(raw["ready"]),
            unschedulable=bool(raw["unschedulable"]),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise StoreError(f"stored {what} is damaged: {exc!r}") from exc


def topology_to_json(topology: Topology) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": topology.name,
        "levels": list(topology.levels),
        "aliases": dict(sorted(topology.aliases.items())),
    }
    if topology.every_node:  # kube-scheduler's view of a constraint key (absent: False)
        out["everyNode"] = True
    return out


def topology_from_json(raw: Json) -> Topology:
    what = "topology"
    try:
        what = f"topology {raw['name']!r}"
        return Topology.create(
            str(raw["name"]),
            [str(level) for level in raw["levels"]],
            {str(k): str(v) for k, v in raw["aliases"].items()},
            every_node=raw.get("everyNode") is True,
        )
    except (KeyError, TypeError, ValueError, AttributeError, SpecError) as exc:
        raise StoreError(f"stored {what} is damaged: {exc}") from exc


def quota_to_json(quota: Quota) -> dict[str, int]:
    return {"workloads": quota.workloads, "pods": quota.pods, "specBytes": quota.spec_bytes}


def quota_from_json(raw: Json, what: str) -> Quota:
    try:
        return Quota(raw["workloads"], raw["pods"], raw["specBytes"])
    except (KeyError, TypeError, SpecError) as exc:
        raise StoreError(f"stored {what} is damaged: {exc}") from exc


def own_topologies_text(topologies: tuple[Topology, ...]) -> str | None:
    """How a workload's own topologies are stored: a JSON list, None for none."""
    return dumps([topology_to_json(t) for t in topologies]) if topologies else None


def own_topologies_from_text(text: str | None, wid: int) -> tuple[Topology, ...]:
    """``own_topologies_text`` read back (StoreError when damaged)."""
    raw = loads(text, f"workload {wid} topologies")
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise StoreError(f"stored workload {wid} topologies are not a list")
    return tuple(topology_from_json(item) for item in raw)


def workload_from_row(row: tuple[Any, ...]) -> WorkloadRecord:
    """A ``workloads`` row (columns in ``sqlite_rows.WORKLOAD_COLUMNS`` order) as a record."""
    (
        wid,
        sequence,
        name,
        kind,
        owner,
        spec,
        priority,
        topology,
        pool,
        submitted_at,
        state,
        placement,
        why,
        own,
        pods,
    ) = row
    try:
        parsed_state = WorkloadState(state)
    except ValueError as exc:
        raise StoreError(f"stored workload {wid} has an unknown state {state!r}") from exc
    damage = ""
    try:
        parsed_placement = loads(placement, f"workload {wid} placement")
    except StoreError as exc:
        parsed_placement, damage = None, str(exc)
    try:
        own_topologies = own_topologies_from_text(own, wid)
    except StoreError as exc:  # its topology is then unknown: the workload waits, saying so
        own_topologies, damage = (), damage or str(exc)
    try:
        parsed_explanation = loads(why, f"workload {wid} explanation")
    except StoreError as exc:  # rewritten by the next explanation; nothing depends on it
        parsed_explanation = {"reason": str(exc)}
    return WorkloadRecord(
        name=name,
        kind=kind,
        owner=owner,
        spec=spec,
        priority=priority,
        topology=topology,
        pool=pool,
        submitted_at=submitted_at,
        own_topologies=own_topologies,
        pods=pods,
        id=wid,
        sequence=sequence,
        state=parsed_state,
        placement=parsed_placement,
        explanation=parsed_explanation,
        damage=damage,
    )
