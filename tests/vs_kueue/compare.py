"""Kueue's answer (the admitted Workload's TopologyAssignments, or its pending message) against
toposched's for the same cluster dump and profile, and the verdict."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from tests.conformance import kueue_case

from toposched.emit.kueue.v1beta2_decode import from_v1beta2
from toposched.engine import place_gang
from toposched.intake.cluster import cluster_from_objects, parse_topology_object
from toposched.model import Node, Placement, RunningPod, TopologyAssignment, Unschedulable
from toposched.snapshot import Snapshot
from toposched.topology import TopologyTree

Domains = dict[tuple[str, ...], int]
Answer = dict[str, tuple[tuple[str, ...], Domains]] | str  # per PodSet, or why it does not fit


class Verdict(StrEnum):
    SAME_PLACEMENT = "same placement"
    BOTH_REFUSE = "both refuse"
    DIFFERENT = "different"


HOSTNAME = "kubernetes.io/hostname"
KUEUE_PREFIX = "couldn't assign flavors to pod set "
COARSE_LEAVES = (
    "documented difference: where the lowest level is not the hostname, toposched keeps each node's "
    "taints, selectors and capacity (a pod fits a node, not a sum of nodes); Kueue merges a leaf's nodes "
    "into one and ignores taints and selectors there (README, Kueue TAS semantics; DESIGN.md)"
)


@dataclass(frozen=True, slots=True)
class Outcome:
    case: Mapping[str, Any]
    kueue: Answer
    toposched: Answer
    verdict: Verdict
    explanation: str | None = None  # for a disagreement: why, when the harness can show it

    @property
    def same_message(self) -> bool:
        return same_refusal_text(self.kueue, self.toposched)


def same_refusal_text(kueue: Answer, toposched: Answer) -> bool:
    """Both refuse with the same text (Kueue's event prefix naming the PodSet left out)."""
    if not (isinstance(kueue, str) and isinstance(toposched, str)):
        return False
    reason = kueue.split(": ", 1)[1] if kueue.startswith(KUEUE_PREFIX) else kueue
    return reason == toposched


def kueue_answer(workload: Mapping[str, Any]) -> Answer | None:
    """The admitted assignments; the pending message once Kueue has tried; None before that."""
    status = workload.get("status") or {}
    conditions = {c.get("type"): c for c in status.get("conditions") or []}
    reserved = conditions.get("QuotaReserved")
    if reserved is None:
        return None
    if reserved.get("status") != "True":
        return str(reserved.get("message") or reserved.get("reason") or "pending")
    answer: dict[str, tuple[tuple[str, ...], Domains]] = {}
    for assignment in (status.get("admission") or {}).get("podSetAssignments") or []:
        raw = assignment.get("topologyAssignment")
        if raw is not None:
            answer[str(assignment["name"])] = _domains(from_v1beta2(raw))
    return answer


def toposched_answer(
    case: Mapping[str, Any], dump: Sequence[Mapping[str, Any]], topology: Mapping[str, Any]
) -> Answer:
    """toposched's faithful placement of the case's workload on the cluster dump (Nodes and Pods
    as the API server lists them) with the Topology object Kueue read."""
    cluster, _warnings = cluster_from_objects(dump, source="vs-kueue dump")
    return _placed(case, list(cluster.nodes), list(cluster.pods), topology)


def _placed(
    case: Mapping[str, Any], nodes: list[Node], pods: list[RunningPod], topology: Mapping[str, Any]
) -> Answer:
    tree = TopologyTree.build(parse_topology_object(topology), nodes)
    result = place_gang(
        kueue_case.gang_of(case), Snapshot.build(tree, pods), policy=kueue_case.policy_of(case)
    )
    if isinstance(result, Unschedulable):
        return result.message
    assert isinstance(result, Placement)
    return {name: _domains(ta) for name, ta in result.assignments.items()}


def explain(
    case: Mapping[str, Any], dump: Sequence[Mapping[str, Any]], topology: Mapping[str, Any], kueue: Answer
) -> str | None:
    """Why toposched differs (in placement, or in the words of a refusal), when a known
    difference accounts for it: placed again on the cluster as Kueue sees it, toposched gives
    Kueue's answer, word for word."""
    levels = [str(level["nodeLabel"]) for level in topology["spec"]["levels"]]
    if levels[-1] == HOSTNAME:
        return None
    cluster, _warnings = cluster_from_objects(dump, source="vs-kueue dump")
    nodes, pods = _merged_leaves(list(cluster.nodes), list(cluster.pods), levels)
    blind_case = {
        **case,
        "podSets": [{k: v for k, v in p.items() if k != "nodeSelector"} for p in case["podSets"]],
    }
    seen_as_kueue = _placed(blind_case, nodes, pods, topology)
    if kueue == seen_as_kueue or same_refusal_text(kueue, seen_as_kueue):
        return COARSE_LEAVES
    return None


def _merged_leaves(
    nodes: list[Node], pods: list[RunningPod], levels: list[str]
) -> tuple[list[Node], list[RunningPod]]:
    """Kueue's tree when the lowest level is not the hostname: the usable nodes of one leaf
    become one node holding their summed allocatable, with no taints (reference kueue-tas.md
    §2.1-2.3); the pods on them move with them."""
    merged: dict[tuple[str, ...], Node] = {}
    into: dict[str, str] = {}
    for node in nodes:
        if not node.ready or node.unschedulable or any(level not in node.labels for level in levels):
            continue
        leaf = tuple(node.labels[level] for level in levels)
        first = merged.get(leaf)
        if first is None:
            merged[leaf] = Node.create(node.name, node.labels, node.allocatable)
        else:
            merged[leaf] = Node.create(first.name, first.labels, first.allocatable + node.allocatable)
        into[node.name] = merged[leaf].name
    moved = [replace(pod, node=into[pod.node]) for pod in pods if pod.node in into]
    return list(merged.values()), moved


def verdict(kueue: Answer, toposched: Answer) -> Verdict:
    if isinstance(kueue, str) and isinstance(toposched, str):
        return Verdict.BOTH_REFUSE
    if isinstance(kueue, dict) and isinstance(toposched, dict) and kueue == toposched:
        return Verdict.SAME_PLACEMENT
    return Verdict.DIFFERENT


def _domains(assignment: TopologyAssignment) -> tuple[tuple[str, ...], Domains]:
    domains: Domains = {}
    for domain in assignment.domains:
        domains[domain.values] = domains.get(domain.values, 0) + domain.count
    return tuple(assignment.levels), domains
