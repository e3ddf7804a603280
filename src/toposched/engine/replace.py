"""Replacing a failed node in an admitted gang (Kueue's findReplacementAssignment).

Only the pods of the failed node move. When the PodSet is required, or a slice would otherwise
be broken, the replacements must land inside the domain that keeps the constraint intact; leaves
outside it are excluded (``topologyDomain`` in the message). The kept domains and the new ones
are merged (same leaf: counts added). Whether the kept pods use capacity is up to the snapshot:
a live scheduler has committed them, the upstream unit tests have not.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from toposched.engine.core.ledger import Ledger
from toposched.engine.core.messages import Reasons
from toposched.engine.core.output import assignment, ordered_pods, place_pods, slots_in_leaf
from toposched.engine.core.policy_registry import PlacementPolicy
from toposched.engine.core.request import Unit, compile_unit, units_of
from toposched.engine.kueue.phases import Solved, solve
from toposched.engine.place import commit, node_slots
from toposched.engine.profiles import as_policy
from toposched.model import Gang, Group, PodPlacement, Policy, SliceLayer, TopologyAssignment, Unschedulable
from toposched.model.placement import Placement
from toposched.snapshot import BoolArray, Snapshot
from toposched.topology import TopologyTree


def replace_failed_node(
    gang: Gang,
    snapshot: Snapshot,
    current: Mapping[str, TopologyAssignment],
    failed_hostname: str,
    *,
    policy: str | PlacementPolicy = Policy.MIXED,
) -> Placement | Unschedulable:
    """The gang's assignments with the pods of ``failed_hostname`` (a hostname label value, the
    last value of an assignment domain) moved elsewhere; PodSets not on that node keep theirs."""
    tree = snapshot.tree
    topology = tree.topology.name
    rules = as_policy(policy)
    reasons = Reasons(gang.name, topology, rules.name)
    units = units_of(gang.root, reasons)
    if isinstance(units, Unschedulable):
        return units
    ledger = Ledger(snapshot.free, snapshot.columns)
    assignments: dict[str, TopologyAssignment] = {}
    pods: list[PodPlacement] = []
    for unit in units:
        for leaf in unit.members:
            ta = current.get(leaf.name)
            if ta is None:
                if not leaf.pods:
                    continue  # a PodSet of no pods has no assignment to repair
                return reasons.refuse(
                    f"no current assignment for PodSet {leaf.name!r}",
                    group=leaf.name,
                )
            old = _slots(tree, ta)
            if not any(d.values[-1] == failed_hostname for d in ta.domains):
                if any(d is None for d in old):
                    return _stale(reasons, leaf, ta, tree)
                assignments[leaf.name] = ta
                pods += _moved_pods(snapshot, leaf, old, None, [])
                continue
            outcome = _repair(tree, ledger, unit.alone(leaf), ta, failed_hostname, rules, reasons)
            if isinstance(outcome, Unschedulable):
                return outcome
            result, kept = outcome
            commit(ledger, result)
            moved = node_slots(tree, result.nodes)
            assignments[leaf.name] = assignment(tree, [*kept, *result.leaves])
            pods += _moved_pods(snapshot, leaf, old, failed_hostname, moved)
    return Placement(gang.name, topology, rules.name, tuple(pods), assignments)


def _slots(tree: TopologyTree, ta: TopologyAssignment) -> list[int | None]:
    """The assignment's leaves expanded into pod slots (rank order); None for unknown domains."""
    slots: list[int | None] = []
    for domain in ta.domains:
        slots += [tree.leaf_for_values(domain.values)] * domain.count
    return slots


def _stale(reasons: Reasons, leaf: Group, ta: TopologyAssignment, tree: TopologyTree) -> Unschedulable:
    stale = next(d for d in ta.domains if tree.leaf_for_values(d.values) is None)
    return reasons.refuse(
        "Cannot replace the node, because the existing topologyAssignment is invalid, "
        f"as it contains the stale domain {stale.values[0]}",
        group=leaf.name,
        best_domain=stale.values,
    )


def _repair(
    tree: TopologyTree,
    ledger: Ledger,
    unit: Unit,
    ta: TopologyAssignment,
    failed: str,
    policy: PlacementPolicy,
    reasons: Reasons,
) -> tuple[Solved, list[tuple[int, int]]] | Unschedulable:
    missing = sum(d.count for d in ta.domains if d.values[-1] == failed)
    kept: list[tuple[int, int]] = []
    for domain in ta.domains:
        if domain.values[-1] == failed:
            continue
        leaf = tree.leaf_for_values(domain.values)
        if leaf is None:
            return reasons.refuse(
                "Cannot replace the node, because the existing topologyAssignment is invalid, "
                f"as it contains the stale domain {domain.values[0]}",
                group=unit.name,
            )
        kept.append((leaf, domain.count))
    base = compile_unit(unit, tree, policy, reasons, count=missing)
    if isinstance(base, Unschedulable):
        return base
    within = _required_domain(tree, unit, base.level, base.slice_size, base.required, kept, missing)
    if within is not None and unit.slices and missing % base.slice_size != 0:
        # Keep the displaced pods grouped by the innermost layer they still fill completely.
        layer = next((s for s in reversed(unit.slices) if missing % s.size == 0), None)
        slices = (SliceLayer(layer.level, layer.size),) if layer is not None else ()
        unit = Unit(unit.name, unit.workers, None, unit.required, unit.preferred, slices, unit.members)
    req = compile_unit(unit, tree, policy, reasons, count=missing)
    if isinstance(req, Unschedulable):
        return req
    allowed = _allowed(tree, within, failed)
    result = solve(tree, ledger, req, reasons, allowed)
    if isinstance(result, Unschedulable):
        return result
    if not result.leaves:
        return reasons.refuse(
            f"cannot find replacement assignment for unhealthy node: {failed}", group=unit.name
        )
    return result, kept


def _required_domain(
    tree: TopologyTree,
    unit: Unit,
    level: int,
    slice_size: int,
    required: bool,
    kept: list[tuple[int, int]],
    missing: int,
) -> tuple[int, int] | None:
    """(level, domain) the replacements must stay in, or None for anywhere."""
    if not kept:
        return None
    if unit.slices and missing % slice_size != 0:
        layer = unit.slices[0]
        if len(unit.slices) > 1:
            layer = next(s for s in reversed(unit.slices) if missing % s.size != 0)
        return _incomplete_slice(tree, kept, missing, layer.size, layer.level)
    if not required:
        return None
    return level, tree.ancestor(tree.leaf_level, kept[0][0], level)


def _incomplete_slice(
    tree: TopologyTree, kept: list[tuple[int, int]], missing: int, size: int, key: str
) -> tuple[int, int] | None:
    """The domain at the slice level whose kept pods plus the missing ones form whole slices."""
    level = tree.level_index(key)
    if level is None:
        return None
    pods: dict[int, int] = {}
    for leaf, count in kept:
        domain = tree.ancestor(tree.leaf_level, leaf, level)
        pods[domain] = pods.get(domain, 0) + count
    for domain in sorted(pods):
        if (pods[domain] + missing) % size == 0:
            return level, domain
    return None


def _allowed(tree: TopologyTree, within: tuple[int, int] | None, failed: str) -> BoolArray:
    leaves = len(tree.leaf_start)
    if within is None:
        allowed: BoolArray = np.ones(leaves, dtype=np.bool_)
    else:
        level, domain = within
        allowed = tree.node_domain[level][tree.leaf_start] == domain
    dead = tree.leaf_for_values((failed,)) if tree.hostname_is_lowest else None
    if dead is not None:
        allowed[dead] = False
    return allowed


def _moved_pods(
    snapshot: Snapshot,
    leaf: Group,
    old: list[int | None],
    failed: str | None,
    moved: list[tuple[int, int | None]],
) -> list[PodPlacement]:
    """Pods on surviving nodes stay; the failed node's pods take the new slots in order."""
    tree = snapshot.tree
    dead = {i for i, d in enumerate(old) if d is None or tree.path(tree.leaf_level, d)[-1] == failed}
    kept_slots: dict[int, list[tuple[int, int | None]]] = {}
    for domain in sorted({d for i, d in enumerate(old) if i not in dead and d is not None}):
        kept_slots[domain] = slots_in_leaf(snapshot, leaf, domain, sum(1 for d in old if d == domain))
    slots: list[tuple[int, int | None]] = []
    new = iter(moved)
    for i, where in enumerate(old):
        if i in dead or where is None:
            slots.append(next(new, (0, None)))
        else:
            slots.append(kept_slots[where].pop(0))
    return place_pods(tree, leaf, ordered_pods(leaf), slots)
