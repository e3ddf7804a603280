"""The assignment the controller records on each pod (annotation ``toposched.io/assignment``),
and the gang placement rebuilt from those records when the controller starts.

One record per pod, JSON: the gang, the topology and policy it was placed with and the search
that found it, the pod's PodSet and index, its node and the node's full domain path (coarsest
level first). The path is kept so a placement can be rebuilt even when the node has gone since
(its gang then sees it as failed). ``placement_of`` rebuilds the gang's ``Placement``, which the
scheduler stores as it stores any (``toposched.emit.result.placement_to_json``).

A gang's pods are written one request each (record, node selector and gate removal together),
so the first pod written carries the records of the others too (``BATCH``, ``encode_batch``): once
that write landed, every pod of the gang is recorded, as if each had its own record, and the others
can be written side by side; a pod's own record, once written, is read first.

A record also names the ``metadata.uid`` of the pod it was written on, and is read only on that
pod; a batch names the uid of the pod it was written on and of each pod it records. Anyone who may create pods can copy an annotation, or name any field manager, but not a uid:
the API server assigns it when the pod is created. So a copy of a member's record on another pod
(or on the member's successor of the same name) is no record, and the controller never acts on it.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from toposched.controller.keys import ASSIGNMENT, BATCH, annotations_of
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


BATCH_LIMIT = 128 * 1024  # characters: a pod's annotations may hold 256 KiB in all


def encode_batch(on: str, records: Sequence[PodRecord]) -> str:
    """The batch of ``records`` (one gang's, the same topology, policy and search), written on the
    pod whose uid is ``on``: each node's domain once, then per pod its uid, PodSet, index and node."""
    first = records[0]
    domains = {r.node: list(r.domain) for r in records}
    data = {
        "on": on,
        "gang": first.gang,
        "topology": first.topology,
        "policy": first.policy,
        "found_by": first.found_by,
        "domains": domains,
        "pods": [[r.uid, r.pod_set, r.index, r.node] for r in records],
    }
    return json.dumps(data, separators=(",", ":"), sort_keys=True)


def batch_of(pod: Mapping[str, Any]) -> dict[str, PodRecord]:
    """The records of the batch written on ``pod``, by the uid of the pod each records; none when
    it has no batch, it cannot be read or it was written on another pod."""
    raw = annotations_of(pod).get(BATCH)
    uid = uid_of(pod)
    if not isinstance(raw, str) or not uid:
        return {}
    try:
        data = json.loads(raw)
        if str(data["on"]) != uid:
            return {}
        domains = {str(n): tuple(str(v) for v in d) for n, d in dict(data["domains"]).items()}
        head = (str(data["gang"]), str(data["topology"]), str(data["policy"]))
        found_by = str(Search(data["found_by"]))
        records = [
            PodRecord(*head, str(s), int(i), str(n), domains[str(n)], str(u), found_by)
            for u, s, i, n in data["pods"]
        ]
    except (ValueError, KeyError, TypeError):
        return {}
    return {r.uid: r for r in records}


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
