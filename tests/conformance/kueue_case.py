"""Kueue conformance cases as toposched inputs: cluster, gang (the IR), policy, assignments."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from conformance.case_nodes import case_node
from toposched.model import (
    DomainCount,
    Gang,
    Group,
    Node,
    PodSpec,
    Policy,
    Resources,
    Role,
    RunningPod,
    SliceLayer,
    Topology,
    TopologyAssignment,
)
from toposched.model.podspec import parse_tolerations

PROFILES = {"Mixed": Policy.MIXED, "BestFit": Policy.BESTFIT, "BalancedPlacement": Policy.BALANCED}


def topology_of(case: Mapping[str, Any]) -> Topology:
    spec = case["topology"]
    return Topology.create(spec["name"], spec["levels"])


def nodes_of(case: Mapping[str, Any]) -> tuple[list[Node], list[RunningPod]]:
    """Nodes, and the pods of other workloads that ``used`` stands for: one pod carrying the
    requests, plus empty pods until the ``pods`` count is reached."""
    nodes: list[Node] = []
    pods: list[RunningPod] = []
    for raw in case["nodes"]:
        allocatable = Resources.parse(raw.get("allocatable"))
        used = Resources.parse(raw.get("used"))
        count = used["pods"]
        if used and count == 0:
            allocatable = allocatable - used  # usage without pods: charge it to the node itself
        elif count:
            requests = Resources({k: v for k, v in used.items() if k != "pods"})
            pods.append(RunningPod(f"{raw['name']}-used-0", "other", raw["name"], requests))
            pods += [RunningPod(f"{raw['name']}-used-{i}", "other", raw["name"]) for i in range(1, count)]
        nodes.append(case_node(raw, allocatable))
    return nodes, pods


def _slices(request: Mapping[str, Any]) -> tuple[SliceLayer, ...]:
    if request.get("sliceConstraints"):
        return tuple(SliceLayer(c["topology"], int(c["size"])) for c in request["sliceConstraints"])
    if request.get("sliceRequired"):
        return (SliceLayer(request["sliceRequired"], int(request.get("sliceSize") or 0)),)
    return ()


def _leaf(podset: Mapping[str, Any], *, constrained: bool) -> Group:
    request = podset.get("topologyRequest") or {}
    requests = Resources.parse(podset.get("requests"))
    tolerations = parse_tolerations(podset.get("tolerations"))
    selector = dict(podset.get("nodeSelector") or {})
    pods = tuple(
        PodSpec(f"{podset['name']}-{i}", i, requests, tolerations, selector)
        for i in range(int(podset["count"]))
    )
    if not constrained:
        return Group(podset["name"], pods=pods)
    return Group(
        podset["name"],
        required=request.get("required"),
        preferred=request.get("preferred"),
        slices=_slices(request),
        pods=pods,
    )


def gang_of(case: Mapping[str, Any]) -> Gang:
    """PodSets become leaves; a PodSet group becomes an inner group carrying the workers' level
    (the larger PodSet; on a tie the first listed) with both PodSets as leaves."""
    order: list[str] = []
    members: dict[str, list[Mapping[str, Any]]] = {}
    for podset in case["podSets"]:
        group = (podset.get("topologyRequest") or {}).get("podSetGroup")
        key = f"group:{group}" if group else f"podset:{podset['name']}"
        if key not in members:
            order.append(key)
            members[key] = []
        members[key].append(podset)
    children: list[Group] = []
    for key in order:
        podsets = members[key]
        if key.startswith("podset:"):
            children.append(_leaf(podsets[0], constrained=True))
            continue
        workers = (
            podsets[0] if len(podsets) == 1 or podsets[0]["count"] >= podsets[1]["count"] else podsets[1]
        )
        request = workers.get("topologyRequest") or {}
        leaves = []
        for podset in podsets:
            leaf = _leaf(podset, constrained=False)
            if podset is workers:
                leaf = Group(leaf.name, slices=_slices(request), pods=leaf.pods, role=Role.WORKERS)
            else:
                leaf = replace(leaf, role=Role.LEADER)
            leaves.append(leaf)
        children.append(
            Group(
                key.removeprefix("group:"),
                required=request.get("required"),
                preferred=request.get("preferred"),
                children=tuple(leaves),
            )
        )
    return Gang(case["id"], Group("workload", children=tuple(children)))


def policy_of(case: Mapping[str, Any]) -> Policy:
    return PROFILES[case.get("profile", "Mixed")]


def assignment_of(raw: Mapping[str, Any]) -> TopologyAssignment:
    return TopologyAssignment(
        tuple(raw["levels"]), tuple(DomainCount(tuple(d["values"]), int(d["count"])) for d in raw["domains"])
    )


def domains_multiset(ta: TopologyAssignment) -> dict[tuple[str, ...], int]:
    out: dict[tuple[str, ...], int] = {}
    for d in ta.domains:
        out[d.values] = out.get(d.values, 0) + d.count
    return out
