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
from toposched.controller.records import PodRecord, record_of
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
        """The pods' recorded assignments that belong to this gang, by pod name."""
        out: dict[str, PodRecord] = {}
        for pod in self.pods:
            record = record_of(pod)
            if record is not None and record.gang == str(self.key):
                out[name_of(pod)] = record
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


def group_pods(
    pods: Iterable[Object], caches: GroupCaches, memberships: Sequence[Membership]
) -> dict[GangKey, GangPods]:
    """The controller's live pods by gang, under the first membership rules that find a gang each
    names, read against this pass's ``caches``."""
    groupings = [(m.frontend, m.over(caches)) for m in memberships]
    gangs: dict[GangKey, GangPods] = {}
    rules: dict[GangKey, PodGrouping] = {}
    for pod in pods:
        if not is_live(pod) or not is_managed(pod):
            continue
        named = ((f, g, k) for f, g in groupings if (k := g.gang_of(pod)) is not None)
        found = next(named, None)
        if found is None:
            continue
        frontend, grouping, key = found
        gang = gangs.get(key)
        if gang is None:
            gang = gangs[key] = GangPods(key, frontend=frontend)
            rules[key] = grouping
        gang.pods.append(pod)
    for key, gang in gangs.items():
        gang.pods.sort(key=name_of)
        gang.completion = rules[key].complete(key, gang.pods)
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
