"""KAI's PodGroups in a running cluster (KAI, OSMO and Grove pods): a pod names its PodGroup by the
``pod-group-name`` annotation, or Grove's ``grove.io/podgang`` label, and the gang is whole when
that PodGroup exists and has at least ``minMember`` pods (the sum of its subgroups' when the top
level sets none). The PodGroup is compiled with the pods."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toposched.frontends.kai.keys import GROVE_PODGANG, POD_GROUP_NAME
from toposched.frontends.membership import (
    Completion,
    GangKey,
    GroupCaches,
    Object,
    kind_of,
    metadata_of,
    namespace_of,
)
from toposched.wire.kai import PODGROUP_API, PODGROUP_KIND

KEY = "kai"
PODGROUPS = kind_of(PODGROUP_API.split("/")[0], PODGROUP_KIND)  # the cache of KAI PodGroups


def min_member(podgroup: Mapping[str, Any]) -> int:
    """The pods a PodGroup waits for: its ``minMember``, else its subgroups' summed, at least 1."""
    spec = podgroup.get("spec") or {}
    top = spec.get("minMember")
    if isinstance(top, int) and top > 0:
        return top
    subgroups = spec.get("subGroups") or []
    total = sum(int(s.get("minMember") or 0) for s in subgroups if isinstance(s, Mapping))
    return max(total, 1)


@dataclass(frozen=True, slots=True)
class KaiPodGroups:
    """The membership rules of KAI PodGroups."""

    frontend: str = "kai"
    keys: frozenset[str] = frozenset({KEY})

    def over(self, caches: GroupCaches) -> _Grouping:
        return _Grouping(caches)


@dataclass(frozen=True, slots=True)
class _Grouping:
    caches: GroupCaches

    def gang_of(self, pod: Object) -> GangKey | None:
        name = metadata_of(pod, "annotations").get(POD_GROUP_NAME) or metadata_of(pod, "labels").get(
            GROVE_PODGANG
        )
        return GangKey(KEY, namespace_of(pod), str(name)) if name else None

    def complete(self, key: GangKey, pods: Sequence[Object]) -> Completion:
        podgroup = self.caches.get(PODGROUPS, key.namespace, key.name)
        if podgroup is None:
            return Completion(missing=f"PodGroup {key.namespace}/{key.name} does not exist yet")
        need = min_member(podgroup)
        missing = None if len(pods) >= need else f"{len(pods)} of minMember {need} pods exist"
        return Completion(heads=(podgroup,), missing=missing)
