"""Kueue's pod groups in a running cluster: a pod names its group by the
``kueue.x-k8s.io/pod-group-name`` label, and the group is whole when as many pods exist as its
``pod-group-total-count`` annotation says (every pod must say the same positive number). The pods
alone are compiled; no object groups them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from toposched.frontends.kueue.keys import POD_GROUP_NAME, POD_GROUP_TOTAL_COUNT
from toposched.frontends.membership import (
    Completion,
    GangKey,
    GroupCaches,
    Object,
    metadata_of,
    namespace_of,
)

KEY = "kueue"


def total_count(pod: Object) -> int | None:
    """The pod group's total count the pod carries; None when absent or not a positive number."""
    raw = metadata_of(pod, "annotations").get(POD_GROUP_TOTAL_COUNT)
    try:
        total = int(str(raw))
    except ValueError:
        return None
    return total if total > 0 else None


@dataclass(frozen=True, slots=True)
class KueuePodGroups:
    """The membership rules of Kueue's pod groups (they read no cache)."""

    frontend: str = "kueue"
    keys: frozenset[str] = frozenset({KEY})

    def over(self, caches: GroupCaches) -> KueuePodGroups:
        return self

    def gang_of(self, pod: Object) -> GangKey | None:
        name = metadata_of(pod, "labels").get(POD_GROUP_NAME)
        return GangKey(KEY, namespace_of(pod), str(name)) if name else None

    def complete(self, key: GangKey, pods: Sequence[Object]) -> Completion:
        totals = {total_count(p) for p in pods}
        if len(totals) != 1 or None in totals:
            return Completion(missing=f"its pods disagree on (or lack) a positive {POD_GROUP_TOTAL_COUNT}")
        total = totals.pop() or 0
        return Completion(missing=None if len(pods) >= total else f"{len(pods)} of {total} pods exist")
