"""Pods grouped into gangs, and when a gang is whole.

The controller's pods are the live ones (not terminating, not finished) that name a gang and
either still carry the gate or hold a recorded assignment. How a pod names its gang, which
objects complete the gang and when it is whole are its front end's rules, registered in the
front-end registry (``toposched.frontends.membership``); the first rules that find a gang a pod
names win. Only a whole gang is compiled and placed.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toposched.controller.keys import GangKey, is_gated, is_terminating, name_of
from toposched.controller.kubeapi import Object
from toposched.controller.pinning import unpin
from toposched.controller.records import PodRecord, batch_of, record_of, uid_of
from toposched.frontends.membership import Completion, GroupCaches, Membership, PodGrouping
from toposched.model import HOSTNAME, Topology

FINISHED = frozenset({"Succeeded", "Failed"})


@dataclass(slots=True)
class GangPods:
    """The controller's live pods of one gang (sorted by name), the front end that compiles it
    and what completes it (the objects that group its pods, and why it is not whole yet)."""

    key: GangKey
    pods: list[Object] = field(default_factory=list)
    frontend: str = ""
    completion: Completion = field(default_factory=Completion)

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
        return self.completion.missing

    def versions(self) -> tuple[str, ...]:
        """The resourceVersions of everything the gang is compiled from or was judged by: its pods
        and the objects that group them (a gang refused as it stands is not compiled again until
        one changes)."""
        return tuple(
            f"{o.get('kind')}/{name_of(o)}@{(o.get('metadata') or {}).get('resourceVersion')}"
            for o in (*self.completion.heads, *self.completion.read, *self.pods)
        )

    def documents(self, topology: Topology | None = None) -> list[Mapping[str, Any]]:
        """The input the front end compiles: the objects that group the pods, then the pods as
        submitted, that is without the selector the controller added (``topology`` names the
        recorded one)."""
        return [*self.completion.heads, *(original_pod(p, topology) for p in self.pods)]


def is_live(pod: Mapping[str, Any]) -> bool:
    phase = (pod.get("status") or {}).get("phase")
    return not is_terminating(pod) and phase not in FINISHED


def is_managed(pod: Mapping[str, Any]) -> bool:
    """Gated by toposched, or ungated by it (a recorded assignment)."""
    return is_gated(pod) or record_of(pod) is not None


# Per pod (namespace/name): the resourceVersion read and the (front end, gang) it is the
# controller's for. Valid while the grouping objects do not change (the caller clears it then).
MemberMemo = dict[str, tuple[str, tuple[str, GangKey] | None]]


def group_pods(
    pods: Iterable[Object],
    caches: GroupCaches,
    memberships: Sequence[Membership],
    memo: MemberMemo | None = None,
) -> dict[GangKey, GangPods]:
    """The controller's live pods by gang, under the first membership rules that find a gang each
    names, read against this pass's ``caches``. ``memo`` (the caller's, kept between calls)
    spares reading again a pod whose resourceVersion did not change; it is left holding the pods
    seen."""
    groupings = {m.frontend: m.over(caches) for m in memberships}
    gangs: dict[GangKey, GangPods] = {}
    rules: dict[GangKey, PodGrouping] = {}
    seen: MemberMemo = {}
    for pod in pods:
        metadata = pod.get("metadata") or {}
        ident = f"{metadata.get('namespace')}/{metadata.get('name')}"
        version = str(metadata.get("resourceVersion") or "")
        known = memo.get(ident) if memo is not None and version else None
        if known is not None and known[0] == version:
            found = known[1]
        else:
            found = _member_of(pod, groupings) if is_live(pod) and is_managed(pod) else None
        seen[ident] = (version, found)
        if found is None:
            continue
        frontend, key = found
        gang = gangs.get(key)
        if gang is None:
            gang = gangs[key] = GangPods(key, frontend=frontend)
            rules[key] = groupings[frontend]
        gang.pods.append(pod)
    for key, gang in gangs.items():
        gang.pods.sort(key=name_of)
        gang.completion = rules[key].complete(key, gang.pods)
    if memo is not None:
        memo.clear()
        memo.update(seen)
    return gangs


def _member_of(pod: Object, groupings: Mapping[str, PodGrouping]) -> tuple[str, GangKey] | None:
    """The front end and gang of the first membership rules that find a gang ``pod`` names."""
    for frontend, grouping in groupings.items():
        key = grouping.gang_of(pod)
        if key is not None:
            return frontend, key
    return None


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
