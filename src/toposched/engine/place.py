"""Placing a whole gang: its PodSets in workload order, all-or-nothing."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from toposched.engine import messages
from toposched.engine.output import assignment, ordered_pods, place_pods
from toposched.engine.request import Invalid, compile_unit, units_of
from toposched.engine.solver import Failure, Solved, Workspace, solve
from toposched.model import (
    Cluster,
    Gang,
    PodPlacement,
    Policy,
    Resources,
    Topology,
    TopologyAssignment,
    Unschedulable,
)
from toposched.model.placement import Placement
from toposched.snapshot import Snapshot, per_slot_requests
from toposched.topology import TopologyTree


def place_gang(gang: Gang, snapshot: Snapshot, *, policy: Policy = Policy.MIXED) -> Placement | Unschedulable:
    """Place every pod of ``gang`` on ``snapshot`` or none (Kueue TAS semantics per PodSet).

    PodSets and PodSet groups are placed in order; each success counts as used capacity for the
    next. The snapshot is not changed: commit with ``snapshot.add_usage(key, usage_of(...))``.
    """
    tree = snapshot.tree
    units = units_of(gang.root)
    if isinstance(units, Invalid):
        return invalid(gang, tree, policy, units)
    ws = Workspace(snapshot)
    solved: list[Solved] = []
    for unit in units:
        if not unit.workers.pods and unit.leader is None:
            continue  # an empty PodSet needs no domain
        req = compile_unit(unit, tree, policy)
        if isinstance(req, Invalid):
            return invalid(gang, tree, policy, req)
        result = solve(ws, req)
        if isinstance(result, Failure):
            return failed(gang, tree, policy, result)
        commit(ws, result)
        solved.append(result)
    assignments: dict[str, TopologyAssignment] = {
        leaf.name: assignment(tree, ()) for leaf in gang.leaves() if not leaf.pods
    }
    pods: list[PodPlacement] = []
    for result in solved:
        req = result.request
        if req.leader is not None and result.leader is not None:
            leaf, node = result.leader
            assignments[req.leader.name] = assignment(tree, [(leaf, 1)])
            pods += place_pods(tree, req.leader, ordered_pods(req.leader), [(leaf, node)])
        assignments[req.workers.name] = assignment(tree, result.leaves)
        slots = node_slots(tree, result.nodes)
        pods += place_pods(tree, req.workers, ordered_pods(req.workers), slots)
    return Placement(gang.name, tree.topology.name, policy, tuple(pods), assignments)


def place(
    gang: Gang, cluster: Cluster, *, topology: Topology | None = None, policy: Policy | None = None
) -> Placement | Unschedulable:
    """Convenience: build the tree and snapshot of ``cluster`` and place ``gang`` on it.

    ``topology`` defaults to the one the gang names (or the cluster's only one); ``policy`` to the
    gang's own, else ``Policy.MIXED``.
    """
    chosen = topology if topology is not None else cluster.topology(gang.topology)
    tree = TopologyTree.build(chosen, cluster.nodes)
    snapshot = Snapshot.build(tree, cluster.pods)
    return place_gang(gang, snapshot, policy=policy or gang.policy or Policy.MIXED)


def usage_of(placement: Placement, gang: Gang) -> dict[str, Resources]:
    """What the placed pods take per node name, ``pods`` slot included, ready for
    ``Snapshot.add_usage``. Pods without a node are left out."""
    specs = {(leaf.name, pod.name): pod for leaf in gang.leaves() for pod in leaf.pods}
    usage: dict[str, dict[str, int]] = {}
    for pod in placement.pods:
        spec = specs.get((pod.group, pod.pod))
        if pod.node is None or spec is None:
            continue
        per_node = usage.setdefault(pod.node, {})
        for resource, amount in per_slot_requests(spec.requests).items():
            per_node[resource] = per_node.get(resource, 0) + amount
    return {node: Resources(amounts) for node, amounts in usage.items()}


def commit(ws: Workspace, result: Solved) -> None:
    """Count a placed request as used before the next request of the same gang."""
    req = result.request
    ws.charge(list(result.nodes), per_slot_requests(req.shape.requests))
    if result.leader is not None and req.leader_requests is not None:
        ws.charge([(result.leader[1], 1)], per_slot_requests(req.leader_requests))


def node_slots(tree: TopologyTree, nodes: Sequence[tuple[int, int]]) -> list[tuple[int, int | None]]:
    """(leaf, node) per pod for (node, pods) pairs, in order."""
    if not nodes:
        return []
    index = np.repeat(
        np.asarray([n for n, _ in nodes], dtype=np.int64), np.asarray([c for _, c in nodes], dtype=np.int64)
    )
    return list(zip(tree.node_domain[-1][index].tolist(), index.tolist(), strict=True))


def invalid(gang: Gang, tree: TopologyTree, policy: Policy, err: Invalid) -> Unschedulable:
    return messages.build(gang.name, tree.topology.name, policy, err.message, group=err.name, level=err.level)


def failed(gang: Gang, tree: TopologyTree, policy: Policy, failure: Failure) -> Unschedulable:
    return messages.build(
        gang.name,
        tree.topology.name,
        policy,
        failure.message,
        group=failure.group,
        level=failure.level,
        best_domain=failure.best_domain,
        fit=failure.fit,
        needed=failure.needed,
        unit=failure.unit,
        stats=failure.stats,
        shortfall=failure.shortfall,
        layers=failure.layers,
    )
