"""The writes for one admitted gang of the ungater (``gang_reconciler`` tells why the order matters):
each pod gets its record, its node selector and loses its gate in one conditional patch. The first
pod written also carries the records of the other pods being written (a batch, ``records``), so
once it landed the whole gang is recorded and the others go out side by side; a gang whose batch
would not fit in a pod's annotations, or that is not fully placed yet, is recorded first, pod by
pod, and ungated on a later pass. Pods are told apart from slots by name, then in order; a pod
pinned to a slot the scheduler moved is cleared (gated) or deleted. The pods' statuses are
reported to the scheduler on the way."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from toposched.controller.gangs import GangPods
from toposched.controller.keys import ASSIGNMENT, BATCH, GATE, GangKey, is_gated, name_of
from toposched.controller.kubeapi import Object, PatchType
from toposched.controller.pinning import pinned
from toposched.controller.podwrites import PodPatch, PodWrites
from toposched.controller.records import BATCH_LIMIT, PodRecord, encode_batch, record_of, uid_of
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
    """What one pass ungated of a gang: how many pods, whether that was every gated pod (the gang
    is then fully ungated), and the first write that failed otherwise than by a conflict."""

    pods: int
    whole: bool
    error: Exception | None = None


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
        """Clear the pods pinned to slots the scheduler moved, give the free slots to unrecorded
        pods and, once every slot has a pod, write and ungate every gated pod."""
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
        filled, stale = _filled(slots, records, by_name)
        for pod in stale:  # pinned to a slot the scheduler moved away (node failure)
            self.unassign(key, pod, now)
        free = [s for s in slots if s not in filled]
        # A record names its pod's uid; a pod without one (never so on an API server) gets none.
        waiting = [p for p in gang.pods if name_of(p) not in records and uid_of(p)]
        fresh: dict[str, PodRecord] = {}  # pod name -> the record it gets now
        taken: dict[Slot, str] = {}
        for slot, pod in _match(free, waiting):
            node = nodes.get(slot.node)
            if node is None:
                continue  # the node went away: the next cycle replaces or evicts
            fresh[name_of(pod)] = PodRecord(
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
            taken[slot] = name_of(pod)
        self._report_statuses(record, filled, by_name)
        whole = not stale and len(filled) + len(taken) == len(slots)
        batch = encode_batch(uid_of(by_name[min(fresh)]), list(fresh.values())) if len(fresh) > 1 else ""
        if fresh and (not whole or len(batch) > BATCH_LIMIT):
            # Not every slot has a pod yet (or too many pods for one batch): record only.
            recording = [
                PodPatch(by_name[n], annotations_patch({ASSIGNMENT: r.encode()}))
                for n, r in sorted(fresh.items())
            ]
            return Ungated(0, False, self.writes.patch_all(key, recording, now).error)
        if not whole:
            return Ungated(0, False)
        records.update(fresh)
        lead = min(fresh) if fresh else None
        return self._ungate(
            key, gang, topology, record, {**filled, **taken}, records, (lead, batch), nodes, now
        )

    def _ungate(
        self,
        key: GangKey,
        gang: GangPods,
        topology: Topology,
        record: WorkloadRecord,
        filled: Mapping[Slot, str],
        records: Mapping[str, PodRecord],
        lead: tuple[str | None, str],
        nodes: Mapping[str, Node],
        now: float,
    ) -> Ungated:
        """One patch per gated pod: its node selector, the gate lifted and, where the pod does not
        hold its own record yet, its record. ``lead`` names the pod written first, alone, and the batch
        it carries (the records of the pods not recorded before this pass, when more than one): the
        others go out together once it landed, so no pod is ungated before every pod is recorded."""
        by_name = {name_of(p): p for p in gang.pods}
        gated = {name: slot for slot, name in filled.items() if is_gated(by_name[name])}
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
        first, batch = lead
        writes: dict[str, PodPatch] = {}
        for name, patch in sorted(patches.items()):
            body = pinned(patch, by_name[name], chosen[name], topology)
            if record_of(by_name[name]) is None:
                notes = {ASSIGNMENT: records[name].encode()}
                if batch and name == first:
                    notes[BATCH] = batch
                body = {**body, **annotations_patch(notes)}
            writes[name] = PodPatch(by_name[name], body, PatchType.STRATEGIC)
        written = 0
        if first is not None:
            lead_write = self.writes.patch_all(key, [writes.pop(first)], now) if first in writes else None
            if lead_write is None or not lead_write.count:
                return Ungated(0, False, lead_write.error if lead_write is not None else None)
            written = 1
        rest = self.writes.patch_all(key, list(writes.values()), now)
        written += rest.count
        return Ungated(written, len(patches) == len(gated) and written == len(patches), rest.error)

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


def _filled(
    slots: list[Slot], records: Mapping[str, PodRecord], pods: Mapping[str, Object]
) -> tuple[dict[Slot, str], list[Object]]:
    """The slots the recorded pods hold (slot -> pod name), and the recorded pods whose slot the
    scheduler no longer has."""
    filled: dict[Slot, str] = {}
    stale: list[Object] = []
    for name, pod_record in records.items():
        held = (pod_record.pod_set, pod_record.index, pod_record.node)
        slot = next((s for s in slots if (s.pod_set, s.index, s.node) == held and s not in filled), None)
        if slot is None:
            stale.append(pods[name])
        else:
            filled[slot] = name
    return filled, stale


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
