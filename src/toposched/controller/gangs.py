"""Pods grouped into gangs, and when a gang is whole.

The controller's pods are the live ones (not terminating, not finished) that name a gang and
either still carry the gate or hold a recorded assignment. A Kueue pod group is whole when as many
pods exist as its ``pod-group-total-count``; a KAI PodGroup (KAI, OSMO, Grove) when its
PodGroup exists and has at least ``minMember`` pods (the sum of its subgroups' when the top
level sets none); a ``scheduling.k8s.io`` PodGroup when it exists and has at least its gang
``minCount`` pods (one for a ``basic`` group), as kube-scheduler's PreEnqueue waits; pods linked
by 1.35's ``workloadRef`` wait for their Workload instead, whose template the front end makes the
PodGroup from. Only a whole gang is compiled and placed.

Each upstream PodGroup without a parent is a gang of its own, as kube-scheduler schedules each
PodGroup independently. Its Workload is not passed: a PodGroup carries its own copy of the
template's settings and its ``workloadRef`` is informational. The PodGroups under one root
CompositePodGroup are one gang (``composites``), compiled with the root's Workload, if cached.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from toposched.controller.composites import CompositeTree, composite_trees
from toposched.controller.keys import (
    GangKey,
    Membership,
    gang_of,
    is_gated,
    is_terminating,
    kueue_total,
    name_of,
)
from toposched.controller.kubeapi import Object
from toposched.controller.pinning import unpin
from toposched.controller.records import PodRecord, batch_of, record_of, uid_of
from toposched.model import HOSTNAME, Topology
from toposched.wire.scheduling import read_pod_group, read_pod_link, read_workload

FINISHED = frozenset({"Succeeded", "Failed"})


@dataclass(slots=True)
class GangPods:
    """The controller's live pods of one gang (sorted by name), its PodGroup (KAI or upstream),
    if any, the Workload whose template a 1.35 upstream gang's pods name (or a tree's root was
    stamped from) and a CompositePodGroup tree's cached objects."""

    key: GangKey
    pods: list[Object] = field(default_factory=list)
    podgroup: Object | None = None
    workload: Object | None = None
    tree: CompositeTree | None = None

    @property
    def names(self) -> list[str]:
        return [name_of(p) for p in self.pods]

    def records(self) -> dict[str, PodRecord]:
        """The pods' recorded assignments that belong to this gang, by pod name: a pod's own, else
        (for a gated pod) the one a batch holds for it, written on a recorded pod of the gang."""
        out: dict[str, PodRecord] = {}
        batched: dict[str, PodRecord] = {}  # by the uid of the pod recorded
        gang = str(self.key)
        for pod in self.pods:
            record = record_of(pod)
            if record is not None and record.gang == gang:
                out[name_of(pod)] = record
                batched.update((uid, r) for uid, r in batch_of(pod).items() if r.gang == gang)
        for pod in self.pods:
            found = batched.get(uid_of(pod)) if name_of(pod) not in out and is_gated(pod) else None
            if found is not None:
                out[name_of(pod)] = found
        return out

    def missing(self) -> str | None:
        """Why the gang is not whole yet (None: it is)."""
        have = len(self.pods)
        if self.key.membership is Membership.KUEUE:
            totals = {kueue_total(p) for p in self.pods}
            if len(totals) != 1 or None in totals:
                return "its pods disagree on (or lack) a positive kueue.x-k8s.io/pod-group-total-count"
            total = totals.pop() or 0
            return None if have >= total else f"{have} of {total} pods exist"
        if self.tree is not None:
            return self.tree.missing(self.key.name, self.pods)
        if self.key.membership is Membership.KUBE:
            need = self._min_count()
            if need is None:
                return f"PodGroup {self.key.namespace}/{self.key.name} (or its Workload template) does not exist yet"
            return None if have >= need else f"{have} of minCount {need} pods exist"
        if self.podgroup is None:
            return f"PodGroup {self.key.namespace}/{self.key.name} does not exist yet"
        need = min_member(self.podgroup)
        return None if have >= need else f"{have} of minMember {need} pods exist"

    def versions(self) -> tuple[str, ...]:
        """The resourceVersions of everything the gang is compiled from: its pods and the objects
        that group them (a gang refused as it stands is not compiled again until one changes)."""
        heads = [o for o in (self.podgroup, self.workload) if o is not None]
        trees = self.tree.objects() if self.tree is not None else []
        return tuple(
            f"{o.get('kind')}/{name_of(o)}@{(o.get('metadata') or {}).get('resourceVersion')}"
            for o in (*heads, *trees, *self.pods)
        )

    def documents(self, topology: Topology | None = None) -> list[Object]:
        """The input the front end compiles: the PodGroup (KAI or upstream; for 1.35 pods the
        Workload; for a tree its Workload, CompositePodGroups and PodGroups) and the pods as submitted, that is without the selector the controller added
        (``topology`` names the recorded one)."""
        pods = [original_pod(p, topology) for p in self.pods]
        if self.key.membership is Membership.KUEUE:
            return pods
        if self.tree is not None:
            workload = [self.workload] if self.workload is not None else []
            return [*workload, *self.tree.objects(), *pods]
        head = self.podgroup or self.workload
        return [head, *pods] if head is not None else pods

    def _min_count(self) -> int | None:
        """An upstream gang's minCount (1 for a basic group); None while its PodGroup (or the
        Workload template its 1.35 pods name) does not exist."""
        if self.podgroup is not None:
            settings = read_pod_group(self.podgroup).settings
        else:
            template = read_pod_link(self.pods[0]).template if self.pods else None
            templates = read_workload(self.workload).pod_groups if self.workload is not None else ()
            found = next((t for t in templates if t.name == template), None)
            if found is None:
                return None
            settings = found
        return settings.min_count or 1


def min_member(podgroup: Mapping[str, Any]) -> int:
    spec = podgroup.get("spec") or {}
    top = spec.get("minMember")
    if isinstance(top, int) and top > 0:
        return top
    subgroups = spec.get("subGroups") or []
    total = sum(int(s.get("minMember") or 0) for s in subgroups if isinstance(s, Mapping))
    return max(total, 1)


def is_live(pod: Mapping[str, Any]) -> bool:
    phase = (pod.get("status") or {}).get("phase")
    return not is_terminating(pod) and phase not in FINISHED


def is_managed(pod: Mapping[str, Any]) -> bool:
    """Gated by toposched, or ungated by it (a recorded assignment)."""
    return is_gated(pod) or record_of(pod) is not None


@dataclass(frozen=True, slots=True)
class GroupObjects:
    """The informer caches gangs are read against, each keyed ``namespace/name``."""

    kai_podgroups: Mapping[str, Object] = field(default_factory=dict)
    kube_podgroups: Mapping[str, Object] = field(default_factory=dict)
    kube_workloads: Mapping[str, Object] = field(default_factory=dict)
    kube_composites: Mapping[str, Object] = field(default_factory=dict)

    def gang(self, key: GangKey, pod: Object, trees: Mapping[GangKey, CompositeTree]) -> GangPods:
        """An empty gang with the objects it is read against (``pod``: its first pod)."""
        name = f"{key.namespace}/{key.name}"
        if key.membership is Membership.KUBE_COMPOSITE:
            tree = trees.get(key) or CompositeTree()
            workload = tree.workload(key.name)
            found = self.kube_workloads.get(f"{key.namespace}/{workload}") if workload else None
            return GangPods(key, workload=found, tree=tree)
        if key.membership is Membership.KAI:
            return GangPods(key, podgroup=self.kai_podgroups.get(name))
        if key.membership is Membership.KUBE:
            workload = read_pod_link(pod).workload
            return GangPods(
                key,
                podgroup=self.kube_podgroups.get(name),
                workload=self.kube_workloads.get(f"{key.namespace}/{workload}") if workload else None,
            )
        return GangPods(key)


# Per pod (namespace/name): the resourceVersion read and the gang it is the controller's for.
MemberMemo = dict[str, tuple[str, GangKey | None]]


def group_pods(
    pods: Iterable[Object], objects: GroupObjects, memo: MemberMemo | None = None
) -> dict[GangKey, GangPods]:
    """The controller's live pods by gang. ``memo`` (the caller's, kept between calls) spares
    reading again a pod whose resourceVersion did not change; it is left holding the pods seen."""
    trees = composite_trees(objects.kube_podgroups, objects.kube_composites)
    gangs: dict[GangKey, GangPods] = {}
    seen: MemberMemo = {}
    for pod in pods:
        metadata = pod.get("metadata") or {}
        ident = f"{metadata.get('namespace')}/{metadata.get('name')}"
        version = str(metadata.get("resourceVersion") or "")
        known = memo.get(ident) if memo is not None and version else None
        if known is not None and known[0] == version:
            key = known[1]
        else:
            key = gang_of(pod)
            key = key if key is not None and is_live(pod) and is_managed(pod) else None
        seen[ident] = (version, key)
        if key is None:
            continue
        key = trees.key_of(key)
        gang = gangs.get(key)
        if gang is None:
            gang = gangs[key] = objects.gang(key, pod, trees.trees)
        gang.pods.append(pod)
    for gang in gangs.values():
        gang.pods.sort(key=name_of)
    if memo is not None:
        memo.clear()
        memo.update(seen)
    return gangs


def original_pod(pod: Object, topology: Topology | None) -> Object:
    """The pod without what the controller wrote: its selector keys on ``topology``'s levels
    (hostname alone on hostname topologies) or its pin on the recorded node's name
    (``pinning``), its node binding and status."""
    out = copy.deepcopy(pod)
    out.pop("status", None)
    spec = out.get("spec") or {}
    spec.pop("nodeName", None)
    record = record_of(pod)
    if topology is None or record is None:
        return out
    selector = spec.get("nodeSelector")
    if isinstance(selector, dict):
        added = [HOSTNAME] if topology.hostname_is_lowest else list(topology.levels)
        for key in added:
            selector.pop(key, None)
        if not selector:
            del spec["nodeSelector"]
    if topology.hostname_is_lowest and isinstance(spec.get("affinity"), dict):
        unpin(spec, record.node)
    return out
