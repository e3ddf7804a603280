"""KAI placement cases as toposched inputs: snapshots per Topology, and the gang (the IR) built
from the case's flattened ``podGroup`` and ``pods`` (FORMAT.md §6.1, §6.3)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toposched.model import Gang, Group, Node, PodSpec, Policy, Resources, RunningPod, Semantics, Topology
from toposched.snapshot import Snapshot
from toposched.topology import TopologyTree


def topologies_of(case: Mapping[str, Any]) -> list[Topology]:
    """``topologies`` when present (authoritative), else ``topology``."""
    raw = case.get("topologies") or [case["topology"]]
    return [Topology.create(t["name"], t["levels"]) for t in raw]


def nodes_of(case: Mapping[str, Any]) -> tuple[list[Node], list[RunningPod]]:
    """Nodes, and one pod of another workload per node carrying its ``used`` resources."""
    nodes: list[Node] = []
    pods: list[RunningPod] = []
    for raw in case["nodes"]:
        nodes.append(Node.create(raw["name"], raw.get("labels", {}), Resources.parse(raw.get("allocatable"))))
        used = Resources.parse(raw.get("used"))
        if used:
            requests = Resources({k: v for k, v in used.items() if k != "pods"})
            pods.append(RunningPod(f"{raw['name']}-used", "other", raw["name"], requests))
    return nodes, pods


def snapshots_of(case: Mapping[str, Any]) -> tuple[Snapshot, dict[str, Snapshot]]:
    """The snapshot of the case's ``topology`` and one per Topology object."""
    nodes, pods = nodes_of(case)
    snaps = {t.name: Snapshot.build(TopologyTree.build(t, nodes), pods) for t in topologies_of(case)}
    return snaps[case["topology"]["name"]], snaps


def _pods(case: Mapping[str, Any], subgroup: str | None) -> tuple[PodSpec, ...]:
    """The pods of one leaf, in name order (KAI handles a subgroup's pods in name order)."""
    mine = sorted((p for p in case["pods"] if p.get("subGroup") == subgroup), key=lambda p: p["name"])
    return tuple(
        PodSpec(
            p["name"],
            i,
            Resources.parse(p.get("requests")),
            node_selector=dict(p.get("nodeSelector") or {}),
            node=p.get("nodeName"),
        )
        for i, p in enumerate(mine)
    )


def gang_of(case: Mapping[str, Any]) -> Gang:
    """PodGroup -> root group, subgroups -> child groups (a constraint only with a topology)."""
    pg = case["podGroup"]
    subgroups = pg.get("subGroups") or []

    def build(raw: Mapping[str, Any] | None) -> Group:
        name = raw["name"] if raw is not None else None
        spec = raw if raw is not None else pg
        kids = tuple(build(s) for s in subgroups if s.get("parent") == name)
        topology = spec.get("topology")
        leaf_pods = _pods(case, name) if not kids else ()
        # KAI ignores the PodGroup's minMember once subgroups exist; inner groups have none.
        min_member = None if kids or (raw is None and subgroups) else spec.get("minMember")
        return Group(
            name or "podgroup",
            required=spec.get("required") if topology else None,
            preferred=spec.get("preferred") if topology else None,
            min_member=min_member,
            min_sub_group=spec.get("minSubGroup"),
            children=kids,
            pods=leaf_pods,
            topology=topology,
        )

    root = build(None)
    return Gang(
        case["id"],
        root,
        topology=root.topology,
        kind="PodGroup",
        policy=Policy.BINPACK,
        semantics=Semantics.HIERARCHY,
    )
