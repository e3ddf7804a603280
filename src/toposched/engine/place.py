"""Placing a whole gang: its PodSets in workload order, all-or-nothing."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np

from toposched.engine.core.budget import SearchBudget
from toposched.engine.core.caches import EngineCaches
from toposched.engine.core.ledger import Ledger
from toposched.engine.core.messages import Reasons
from toposched.engine.core.output import assignment, leaf_assignment, ordered_pods, place_on_rows, place_pods
from toposched.engine.core.policy_registry import PlacementPolicy
from toposched.engine.core.request import compile_unit, units_of
from toposched.engine.core.usage import PodRows
from toposched.engine.exact.complete import Resumable, search_complete
from toposched.engine.kai.hierarchy import place_hierarchical
from toposched.engine.kube.podgroups import place_kube, search_gang
from toposched.engine.kueue.phase_one import for_snapshot
from toposched.engine.kueue.phases import Solved, solve
from toposched.engine.profiles import as_policy
from toposched.model import (
    Gang,
    Group,
    PodPlacement,
    Policy,
    Resources,
    Search,
    Semantics,
    TopologyAssignment,
    Unschedulable,
)
from toposched.model.placement import Placement
from toposched.snapshot import Snapshot, per_slot_requests
from toposched.topology import IntArray, TopologyTree

COMPLETE_WOULD_PLACE = "a complete search would place it (--search complete)"


def place_gang(
    gang: Gang,
    snapshot: Snapshot,
    *,
    policy: str | PlacementPolicy = Policy.MIXED,
    snapshots: Mapping[str, Snapshot] | None = None,
    search: Search = Search.FAITHFUL,
    budget: SearchBudget | None = None,
    probe: bool = False,
    caches: EngineCaches | None = None,
    resumable: Resumable | None = None,
) -> Placement | Unschedulable:
    """Place ``gang`` on ``snapshot``; the snapshots are not changed (commit with
    ``snapshot.add_usage(key, usage_of(...))``). ``caches``: what placements before this one
    derived from the same snapshots (a placement session's; None keeps nothing).

    Gangs with ``Semantics.KUEUE`` under a Kueue policy get Kueue TAS semantics: PodSets in
    order, each success used capacity for the next, all-or-nothing. ``Semantics.HIERARCHY``
    gangs, Kueue gangs whose tree needs it (``Gang.needs_hierarchy``: deeper trees, minimums,
    per-group topologies, running pods) and ``Policy.BINPACK`` go to the hierarchical solver
    (``toposched.engine.kai.hierarchy``); groups naming another Topology find its snapshot in
    ``snapshots`` (by topology name). ``Semantics.KUBE`` gangs are placed as kube-scheduler
    places PodGroups whatever the policy (``toposched.engine.kube.podgroups``).

    ``search=Search.COMPLETE``: when that refuses, an exact search within ``budget``
    (``toposched.engine.exact.complete``). ``probe`` (faithful search only): when the faithful answer
    refuses, run that search anyway and say in the refusal's note whether it would place the
    gang; the answer stays the faithful one.
    """
    caches = caches if caches is not None else EngineCaches()
    rules = as_policy(policy)
    faithful = _faithful(gang, snapshot, rules, snapshots, caches)
    if isinstance(faithful, Placement) or (search is Search.FAITHFUL and not probe):
        return faithful
    kube = gang.semantics is Semantics.KUBE
    kueue = not kube and not hierarchical(gang, rules)
    found = search_complete(
        search_gang(gang) if kube else gang,
        snapshot,
        faithful,
        policy=rules,
        kueue=kueue,
        snapshots=snapshots,
        budget=budget,
        caches=caches,
        resumable=resumable,
    )
    if search is Search.COMPLETE or (isinstance(found, Unschedulable) and found.searching):
        return found
    if isinstance(found, Placement):
        return replace(faithful, note=COMPLETE_WOULD_PLACE)
    return faithful


def _faithful(
    gang: Gang,
    snapshot: Snapshot,
    policy: PlacementPolicy,
    snapshots: Mapping[str, Snapshot] | None,
    caches: EngineCaches,
) -> Placement | Unschedulable:
    """The upstream scheduler's own answer (Kueue's, KAI's or kube-scheduler's)."""
    if gang.semantics is Semantics.KUBE:
        return place_kube(gang, snapshot, policy=policy.name, snapshots=snapshots, caches=caches)
    if hierarchical(gang, policy):
        return place_hierarchical(gang, snapshot, policy=policy, snapshots=snapshots, caches=caches)
    tree = snapshot.tree
    reasons = Reasons(gang.name, tree.topology.name, policy.name)
    units = units_of(gang.root, reasons)
    if isinstance(units, Unschedulable):
        return units
    ledger = Ledger(snapshot.free, snapshot.columns)
    solved: list[Solved] = []
    for unit in units:
        if not unit.workers.pods and unit.leader is None:
            continue  # an empty PodSet needs no domain
        req = compile_unit(unit, tree, policy, reasons)
        if isinstance(req, Unschedulable):
            return req
        if solved:
            commit(ledger, solved[-1])  # only a later request needs the capacity an earlier one took
        # Until something is charged the ledger holds the snapshot's capacity: phase 1 may be
        # one an earlier placement on this snapshot version made.
        result = solve(tree, ledger, req, reasons, kept=None if solved else for_snapshot(snapshot, caches))
        if isinstance(result, Unschedulable):
            return result
        solved.append(result)
    assignments: dict[str, TopologyAssignment] = {}  # a PodSet of no pods gets none, as in Kueue
    for result in solved:
        req = result.request
        if req.leader is not None and result.leader is not None:
            assignments[req.leader.name] = assignment(tree, [(result.leader[0], 1)])
        assignments[req.workers.name] = leaf_assignment(tree, result.leaf_ids, result.leaf_pods)
    return Placement(gang.name, tree.topology.name, policy.name, pod_records(tree, solved), assignments)


def pod_records(tree: TopologyTree, solved: Sequence[Solved]) -> PodRows:
    """One record per placed pod (each request's leader, then its workers in index order),
    built when first read: the solver's node arrays are the placement until then, and what it
    takes per node is summed from them (``usage_of``)."""
    parts: list[tuple[Group, IntArray]] = []
    for result in solved:
        req = result.request
        if req.leader is not None and result.leader is not None:
            parts.append((req.leader, np.asarray([result.leader[1]], dtype=np.int64)))
        parts.append((req.workers, result.pod_rows()))

    def build() -> list[PodPlacement]:
        pods: list[PodPlacement] = []
        rows = iter(parts)
        for result in solved:
            req = result.request
            if req.leader is not None and result.leader is not None:
                next(rows)
                leaf, node = result.leader
                pods += place_pods(tree, req.leader, ordered_pods(req.leader), [(leaf, node)])
            pods += place_on_rows(tree, req.workers, next(rows)[1])
        return pods

    size = sum(  # a solved request places ``count`` workers (the solver checks)
        min(len(r.request.workers.pods), r.request.count)
        + (r.request.leader is not None and r.leader is not None)
        for r in solved
    )
    return PodRows(build, size, tree, tuple(parts))


def named_topologies(gang: Gang) -> tuple[str, ...]:
    """The topologies the gang and its groups name, gang's first: the snapshots a placement
    needs besides the main one."""
    names = [gang.topology, *(g.topology for g in gang.root.walk())]
    return tuple(dict.fromkeys(n for n in names if n))


def hierarchical(gang: Gang, policy: PlacementPolicy) -> bool:
    """Whether the hierarchical solver places ``gang``: KAI-style semantics, a tree Kueue's
    solver cannot place (``Gang.needs_hierarchy``), or an ordering only the hierarchical solver
    implements (binpack)."""
    return gang.hierarchical or policy.hierarchical


def usage_of(placement: Placement, gang: Gang) -> dict[str, Resources]:
    """What the placed pods take per node name, ``pods`` slot included, ready for
    ``Snapshot.add_usage``. Pods without a node are left out. Summed from the solver's rows when
    the placement keeps them (``PodRows``), else pod by pod."""
    pods = placement.pods
    if isinstance(pods, PodRows) and pods.of(gang):
        return pods.usage()
    charged = {(leaf.name, pod.name): pod.requests for leaf in gang.leaves() for pod in leaf.pods}
    # Pods counted per (node, requests) first: a gang has few distinct requests, so the sums
    # below run once per node and shape, not once per pod.
    placed = Counter(
        (pod.node, charged[pod.group, pod.pod])
        for pod in placement.pods
        if pod.node is not None and (pod.group, pod.pod) in charged
    )
    usage: dict[str, dict[str, int]] = {}
    for (node, requests), count in placed.items():
        per_node = usage.setdefault(node, {})
        for resource, amount in per_slot_requests(requests).items():
            per_node[resource] = per_node.get(resource, 0) + amount * count
    return {node: Resources(amounts) for node, amounts in usage.items()}


def commit(ledger: Ledger, result: Solved) -> None:
    """Count a placed request as used before the next request of the same gang."""
    req = result.request
    ledger.charge(result.node_ids, result.node_pods, ledger.vector(req.shape.requests))
    if result.leader is not None and req.leader_requests is not None:
        one = np.ones(1, dtype=np.int64)
        ledger.charge(np.asarray([result.leader[1]], dtype=np.int64), one, ledger.vector(req.leader_requests))


def node_slots(tree: TopologyTree, nodes: Sequence[tuple[int, int]]) -> list[tuple[int, int | None]]:
    """(leaf, node) per pod for (node, pods) pairs, in order."""
    if not nodes:
        return []
    index = np.repeat(
        np.asarray([n for n, _ in nodes], dtype=np.int64), np.asarray([c for _, c in nodes], dtype=np.int64)
    )
    return list(zip(tree.node_domain[-1][index].tolist(), index.tolist(), strict=True))
