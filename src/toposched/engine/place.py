"""Placing a whole gang: its PodSets in workload order, all-or-nothing."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from toposched.engine import messages
from toposched.engine.hierarchy import place_hierarchical
from toposched.engine.output import assignment, leaf_assignment, ordered_pods, place_on_rows, place_pods
from toposched.engine.request import Invalid, compile_unit, units_of
from toposched.engine.solver import Failure, Solved, Workspace, solve
from toposched.model import (
    Cluster,
    Gang,
    Group,
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


def place_gang(
    gang: Gang,
    snapshot: Snapshot,
    *,
    policy: Policy = Policy.MIXED,
    snapshots: Mapping[str, Snapshot] | None = None,
) -> Placement | Unschedulable:
    """Place ``gang`` on ``snapshot``; the snapshots are not changed (commit with
    ``snapshot.add_usage(key, usage_of(...))``).

    Kueue-shaped gangs (PodSets and PodSet groups under the root) under a Kueue policy get Kueue
    TAS semantics: PodSets in order, each success used capacity for the next, all-or-nothing.
    Under ``Policy.BINPACK``, and for any deeper tree or one using minimums, per-group
    topologies or running pods, the hierarchical solver places it with KAI's semantics
    (``toposched.engine.hierarchy``); groups naming another Topology find its snapshot in
    ``snapshots`` (by topology name).
    """
    if policy is Policy.BINPACK or needs_hierarchy(gang.root):
        return place_hierarchical(gang, snapshot, policy=policy, snapshots=snapshots)
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
        if solved:
            commit(ws, solved[-1])  # only a later request needs the capacity an earlier one took
        result = solve(ws, req)
        if isinstance(result, Failure):
            return failed(gang, tree, policy, result)
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
        assignments[req.workers.name] = leaf_assignment(tree, result.leaf_ids, result.leaf_pods)
        pods += place_on_rows(tree, req.workers, result.pod_rows())
    return Placement(gang.name, tree.topology.name, policy, tuple(pods), assignments)


def place(
    gang: Gang, cluster: Cluster, *, topology: Topology | None = None, policy: Policy | None = None
) -> Placement | Unschedulable:
    """Convenience: build the tree and snapshot of ``cluster`` and place ``gang`` on it.

    ``topology`` defaults to the one the gang names (or the cluster's only one); ``policy`` to the
    gang's own, else ``Policy.MIXED``. Hierarchical placements get a snapshot of the main
    topology and of every topology the gang's groups name (as the service gives them).
    """
    chosen_policy = policy or gang.policy or Policy.MIXED
    if (chosen_policy is Policy.BINPACK or needs_hierarchy(gang.root)) and cluster.topologies:
        by_name = {t.name: t for t in cluster.topologies}
        if topology is not None:
            by_name[topology.name] = topology
        named = [n for n in named_topologies(gang) if n in by_name]
        main = topology.name if topology is not None else (named or sorted(by_name))[0]
        snapshots = {
            name: Snapshot.build(TopologyTree.build(by_name[name], cluster.nodes), cluster.pods)
            for name in sorted({main, *named})
        }
        return place_gang(gang, snapshots[main], policy=chosen_policy, snapshots=snapshots)
    chosen = topology if topology is not None else cluster.topology(gang.topology)
    tree = TopologyTree.build(chosen, cluster.nodes)
    snapshot = Snapshot.build(tree, cluster.pods)
    return place_gang(gang, snapshot, policy=chosen_policy)


def named_topologies(gang: Gang) -> tuple[str, ...]:
    """The topologies the gang and its groups name, gang's first: the snapshots a placement
    needs besides the main one."""
    names = [gang.topology, *(g.topology for g in _groups(gang.root))]
    return tuple(dict.fromkeys(n for n in names if n))


def _groups(group: Group) -> list[Group]:
    out = [group]
    for child in group.children:
        out += _groups(child)
    return out


def needs_hierarchy(root: Group) -> bool:
    """True unless the tree is Kueue-shaped: PodSets (leaves) and PodSet groups (a level over
    leaves) under the root, without minimums, per-group topologies or running pods."""
    for group in _groups(root):
        if group.min_member is not None or group.min_sub_group is not None or group.topology is not None:
            return True
        if any(pod.node is not None for pod in group.pods):
            return True
    if root.is_leaf:
        return False
    if root.level is not None:
        return any(not child.is_leaf for child in root.children)
    return any(not grandchild.is_leaf for child in root.children for grandchild in child.children)


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
