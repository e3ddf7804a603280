"""The two write phases for one admitted gang of the ungater (``gang_reconciler`` tells why two):
record each slot of the placement on a pod, then, once every slot is recorded, give each recorded
gated pod its node selector and lift the gate in one patch. Pods are told apart from slots by
name, then in order; a pod pinned to a slot the scheduler moved is cleared (gated) or deleted.
The pods' statuses are reported to the scheduler on the way."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from toposched.controller.gangs import GangPods
from toposched.controller.keys import ASSIGNMENT, GATE, GangKey, is_gated, name_of
from toposched.controller.kubeapi import Object, PatchType
from toposched.controller.pinning import pinned
from toposched.controller.podwrites import PodWrites
from toposched.controller.records import PodRecord, uid_of
from toposched.emit.kueue import node_selector_patches
from toposched.emit.result import placement_from_json
from toposched.model import Node, Search, Topology
from toposched.model.node import level_value
from toposched.scheduler import PodStatus, Scheduler
from toposched.store import WorkloadRecord, WorkloadState
from toposched.wire.core import annotations_patch


@dataclass(frozen=True, slots=True)
class Slot:
    """One pod of an admitted placement: as the workload names it, and where it goes."""

    name: str
    pod_set: str
    index: int
    node: str


@dataclass(frozen=True, slots=True)
class Ungated:
    """What one pass ungated of a gang: how many pods, and whether that was every gated pod
    (the gang is then fully ungated)."""

    pods: int
    whole: bool


@dataclass(slots=True)
class AssignmentWriter:
    """Writes an admitted gang's slots to its pods through ``writes`` (conditional patches)."""

    writes: PodWrites
    scheduler: Scheduler

    def unassign(self, key: GangKey, pod: Object, now: float) -> None:
        """Take a pod off its slot: a gated one loses its record; an ungated one is deleted (its
        owner recreates it, gated)."""
        if is_gated(pod):
            self.writes.patch(key, pod, annotations_patch({ASSIGNMENT: None}), now)
        else:
            self.writes.delete(pod)

    def reconcile(
        self, key: GangKey, gang: GangPods, record: WorkloadRecord, nodes: Mapping[str, Node], now: float
    ) -> Ungated:
        """Record the gang's free slots on its unrecorded pods, clear the pods pinned to slots the
        scheduler moved, and ungate once every slot is recorded."""
        topology = self.scheduler.topology_of(record.id)  # its own, or a stored one
        policy = str((record.placement or {}).get("policy", ""))
        found_by = str((record.placement or {}).get("foundBy") or Search.FAITHFUL)
        slots = [
            Slot(str(p["name"]), str(p["podSet"]), int(p["index"]), str(p["node"]))
            for p in (record.placement or {}).get("pods", [])
            if p.get("node") is not None
        ]
        records = gang.records()
        by_name = {name_of(p): p for p in gang.pods}
        filled: dict[Slot, str] = {}  # slot -> pod name
        stale: list[Object] = []
        for name, pod_record in records.items():
            slot = next(
                (
                    s
                    for s in slots
                    if (s.pod_set, s.index, s.node) == (pod_record.pod_set, pod_record.index, pod_record.node)
                    and s not in filled
                ),
                None,
            )
            if slot is None:
                stale.append(by_name[name])
            else:
                filled[slot] = name
        for pod in stale:  # pinned to a slot the scheduler moved away (node failure)
            self.unassign(key, pod, now)
        free = [s for s in slots if s not in filled]
        # A record names its pod's uid; a pod without one (never so on an API server) gets none.
        waiting = [p for p in gang.pods if name_of(p) not in records and uid_of(p)]
        assigned = _match(free, waiting)
        for slot, pod in assigned:
            node = nodes.get(slot.node)
            if node is None:
                continue  # the node went away: the next cycle replaces or evicts
            entry = PodRecord(
                str(key),
                topology.name,
                policy,
                slot.pod_set,
                slot.index,
                slot.node,
                _domain(node, topology),
                uid_of(pod),
                found_by,
            )
            self.writes.patch(key, pod, annotations_patch({ASSIGNMENT: entry.encode()}), now)
        self._report_statuses(record, filled, by_name)
        if stale or len(filled) < len(slots):
            return Ungated(0, False)  # phase 2 waits until every slot is recorded on a pod
        return self._ungate_recorded(key, gang, topology, record, filled, nodes, now)

    def _ungate_recorded(
        self,
        key: GangKey,
        gang: GangPods,
        topology: Topology,
        record: WorkloadRecord,
        filled: Mapping[Slot, str],
        nodes: Mapping[str, Node],
        now: float,
    ) -> Ungated:
        gated = {
            name: slot
            for slot, name in filled.items()
            if is_gated(next(p for p in gang.pods if name_of(p) == name))
        }
        if not gated:
            return Ungated(0, False)
        placement = placement_from_json(record.placement, gang=record.name)
        pods = []
        chosen: dict[str, Node] = {}  # pod name -> its node
        for pod in placement.pods:
            slot = next((s for s in gated.values() if (s.pod_set, s.index) == (pod.group, pod.index)), None)
            node = nodes.get(pod.node or "")
            if slot is None or node is None:
                continue
            name = next(n for n, s in gated.items() if s == slot)
            pods.append(pod._replace(pod=name, domain=_domain(node, topology)))
            chosen[name] = node
        patches = node_selector_patches(replace(placement, pods=tuple(pods)), topology, gate=GATE)
        by_name = {name_of(p): p for p in gang.pods}
        written = [
            self.writes.patch(
                key,
                by_name[name],
                pinned(patch, by_name[name], chosen[name], topology),
                now,
                PatchType.STRATEGIC,
            )
            for name, patch in sorted(patches.items())
        ]
        return Ungated(sum(written), len(patches) == len(gated) and all(written))

    def _report_statuses(
        self, record: WorkloadRecord, filled: Mapping[Slot, str], pods: Mapping[str, Object]
    ) -> None:
        """Tell the scheduler what the pods do (node-failure rules read it); the first running
        pod marks the gang running."""
        known = self.scheduler.pod_statuses(record.id)
        starting = record.state is WorkloadState.ADMITTED
        for slot, name in filled.items():
            status = _status(pods[name])
            if slot.name not in known:
                continue
            if known[slot.name] is not status or (starting and status is PodStatus.RUNNING):
                self.scheduler.set_pod_status(record.id, slot.name, status)
                starting = starting and status is not PodStatus.RUNNING


def _match(free: list[Slot], waiting: list[Object]) -> list[tuple[Slot, Object]]:
    """Free slots for unrecorded pods: a pod takes the slot of its own name, else the next one."""
    out: list[tuple[Slot, Object]] = []
    left = list(free)
    rest: list[Object] = []
    for pod in waiting:
        own = next((s for s in left if s.name == name_of(pod)), None)
        if own is None:
            rest.append(pod)
        else:
            left.remove(own)
            out.append((own, pod))
    out.extend(zip(left, rest, strict=False))
    return out


def _domain(node: Node, topology: Topology) -> tuple[str, ...]:
    """The node's value at each level, as the engine reads it (``NODE_LEVEL``: its hostname
    label, else its name); a level the node has no label for (never so once it was placed
    there) reads as the node's name."""
    return tuple(level_value(node, level) or node.name for level in topology.levels)


def _status(pod: Object) -> PodStatus:
    if (pod.get("metadata") or {}).get("deletionTimestamp"):
        return PodStatus.TERMINATING
    phase = (pod.get("status") or {}).get("phase")
    if phase == "Failed":
        return PodStatus.FAILED
    bound = bool((pod.get("spec") or {}).get("nodeName"))
    return PodStatus.RUNNING if bound and phase == "Running" else PodStatus.PENDING
