"""The assignment the controller records on each pod (annotation ``toposched.io/assignment``),
and the gang placement rebuilt from those records when the controller starts.

One record per pod, JSON: the gang, the topology and policy it was placed with and the search
that found it, the pod's PodSet and index, its node and the node's full domain path (coarsest
level first). The path is kept so a placement can be rebuilt even when the node has gone since
(its gang then sees it as failed). ``placement_of`` rebuilds the gang's ``Placement``, which the
scheduler stores as it stores any (``toposched.emit.result.placement_to_json``).

A record also names the ``metadata.uid`` of the pod it was written on, and is read only on that
pod. Anyone who may create pods can copy an annotation, or name any field manager, but not a uid:
the API server assigns it when the pod is created. So a copy of a member's record on another pod
(or on the member's successor of the same name) is no record, and the controller never acts on it.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from toposched.controller.keys import ASSIGNMENT, annotations_of
from toposched.model import HOSTNAME, DomainCount, PodPlacement, Search, Topology, TopologyAssignment
from toposched.model.placement import Placement


@dataclass(frozen=True, slots=True)
class PodRecord:
    """Where one pod of a placed gang goes."""

    gang: str  # str(GangKey)
    topology: str
    policy: str
    pod_set: str
    index: int
    node: str
    domain: tuple[str, ...]  # the node's value at every level of the topology
    uid: str  # the metadata.uid of the pod the record is written on
    found_by: str = Search.FAITHFUL.value  # the search that placed the gang (older records: none)

    def encode(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"), sort_keys=True)


def uid_of(pod: Mapping[str, Any]) -> str:
    return str((pod.get("metadata") or {}).get("uid") or "")


def record_of(pod: Mapping[str, Any]) -> PodRecord | None:
    """The pod's recorded assignment; None when it has none, it cannot be read or it was written
    on another pod (then the pod counts as unassigned: such a record is never trusted)."""
    raw = annotations_of(pod).get(ASSIGNMENT)
    uid = uid_of(pod)
    if not isinstance(raw, str) or not uid:
        return None
    try:
        data = json.loads(raw)
        record = PodRecord(
            str(data["gang"]),
            str(data["topology"]),
            str(data["policy"]),
            str(data["pod_set"]),
            int(data["index"]),
            str(data["node"]),
            tuple(str(v) for v in data["domain"]),
            str(data["uid"]),
            str(Search(data.get("found_by", Search.FAITHFUL))),
        )
    except (ValueError, KeyError, TypeError):
        return None
    return record if record.uid == uid else None


def placement_of(topology: Topology, gang: str, pods: Iterable[tuple[str, PodRecord]]) -> Placement:
    """The placement of gang ``gang`` from its ``(pod name, record)`` pairs, under the policy and
    search the first record names: the TopologyAssignment per PodSet counts pods per domain, in
    domain path order, at the hostname level alone when hostname is the topology's lowest level
    (as the engine reports it)."""
    listed = list(pods)
    hostname = topology.hostname_is_lowest
    levels = (HOSTNAME,) if hostname else topology.levels
    counts: dict[str, Counter[tuple[str, ...]]] = {}
    for _, record in listed:
        counts.setdefault(record.pod_set, Counter())[record.domain] += 1
    assignments = {
        pod_set: TopologyAssignment(
            levels,
            tuple(DomainCount(path[-1:] if hostname else path, n) for path, n in sorted(per_domain.items())),
        )
        for pod_set, per_domain in counts.items()
    }
    first = listed[0][1] if listed else None
    return Placement(
        gang,
        topology.name,
        first.policy if first is not None else "",
        tuple(PodPlacement(name, r.pod_set, r.index, r.node, r.domain) for name, r in listed),
        assignments,
        found_by=Search(first.found_by) if first is not None else Search.FAITHFUL,
    )
