"""kube-scheduler's placement of PodGroups and CompositePodGroups (``Semantics.KUBE``).

The gang's root is a container; each child is one PodGroup (a leaf: ``required`` = the label
key of its topology constraint or None, ``min_member`` = minCount, 1 for basic) or one
CompositePodGroup (children of its own, ``min_sub_group`` = minGroupCount, None for basic: one
child). As kube-scheduler does it (``schedule_one_podgroup.go``):

1. Pods already bound (``PodSpec.node``) are charged first and count as scheduled.
2. Candidate placements of a group, inside its parent's placement: one per value of its key's
   label among the nodes that carry it (nodes without the label are never used), named by the
   value; no key: one placement of every node. Bound pods pin the group to the value of their
   nodes (refused when they sit in two values or on a node without the label).
3. A PodGroup is simulated in each placement pod by pod, in index order, each pod on the node
   ``KubeNodes.pick`` chooses; a pod that fits nowhere does not fail the placement while
   minCount stays reachable (scheduled + remaining >= minCount, else it stops early). The
   placement qualifies when scheduled (bound included) >= minCount. Pods beyond the minimum are
   placed when they fit; the others stay pending (left out of ``Placement.pods``).
4. A CompositePodGroup is simulated in each of its placements by placing its children in order,
   greedily, each one choosing its own best placement inside and keeping it for the next; a
   child that fails is dropped, never revisited (no sibling backtracking). The placement
   qualifies when minGroupCount children succeed.
5. The winner among qualifying placements has the highest score: ``PodGroupPodsCount`` (pods
   scheduled, normalised to 0-100 against the best placement) plus ``NodeResourcesFit``
   (``MostAllocated`` over the placement's nodes after its pods; see ``kube.nodes``), weights
   1 and 1. kube-scheduler breaks equal scores at random; here the placement whose name (label
   value) sorts first wins, so results are deterministic.

The one deliberate difference: kube-scheduler places each root child in its own cycle and lets
the ones that fit bind while another waits. toposched places them in order (each seeing what the
earlier ones took) but admits the gang whole: when any child cannot meet its minimum the gang is
``Unschedulable``, the reason naming that group with kube-scheduler's message ("0/N placements
are available, first placement status: minCount (M) cannot be satisfied: S scheduled, R
remaining", as kube-scheduler v1.37.2 words it for PodGroups and CompositePodGroups alike).

The simulation is ``kube.placer.KubePlacer``'s (each candidate on its own, every pod through
``KubeNodes.pick``, as kube-scheduler does it); ``kube.each.EachPlacer`` gives the same answers
with array work and places gangs here (``place_kube(..., by_pod=True)``: the readable one).

``search_gang`` is the same gang as the exact search of ``Search.COMPLETE`` reads it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from toposched.engine.core.caches import EngineCaches
from toposched.engine.core.messages import Reasons
from toposched.engine.core.output import pods_and_assignments
from toposched.engine.core.space import NodeSpace
from toposched.engine.kube.each import EachPlacer
from toposched.engine.kube.nodes import KubeNodes
from toposched.engine.kube.placer import GroupError, KubePlacer, Refusal, minimum
from toposched.model import Gang, Group, Unschedulable
from toposched.model.placement import Placement
from toposched.snapshot import Snapshot


def units(root: Group) -> tuple[Group, ...]:
    """The PodGroups and CompositePodGroups the gang holds (a lone PodGroup may be the root)."""
    return (root,) if root.is_leaf else root.children


def place_kube(
    gang: Gang,
    snapshot: Snapshot,
    *,
    policy: str,
    snapshots: Mapping[str, Snapshot] | None = None,
    by_pod: bool = False,
    caches: EngineCaches | None = None,
) -> Placement | Unschedulable:
    """Place ``gang`` as kube-scheduler would (module docstring), admitted whole; the snapshots
    are not changed. ``policy`` (a name) is only reported: kube-scheduler's scores order the domains.
    ``by_pod``: the readable twin (every pod through ``KubeNodes.pick``), same result."""
    reasons = Reasons(gang.name, snapshot.tree.topology.name, policy)
    with NodeSpace.open(snapshot, snapshots, caches or EngineCaches()) as space:
        nodes = KubeNodes(space, [snapshot, *(snapshots or {}).values()], gang.root.all_pods())
        placer = (KubePlacer if by_pod else EachPlacer)(space, nodes)
        where = placer.pin(gang.root)
        everything = space.every_row
        for unit in units(gang.root):
            try:
                # A group without a key uses every node of the gang's topology, whatever the main one.
                result = placer.evaluate(unit, everything, gang.root.topology or gang.topology)
            except GroupError as error:
                result = error.refusal
            if isinstance(result, Refusal):
                return reasons.refuse(
                    result.message,
                    group=result.group,
                    level=result.level,
                    fit=result.fit,
                    needed=result.needed,
                )
            placer.commit(result.pods)
            where.update(((leaf, pod.name), row) for leaf, pod, row in result.pods)
        pods, assignments = pods_and_assignments(gang, space, where)
        return Placement(gang.name, space.default, policy, pods, assignments)


def search_gang(gang: Gang) -> Gang:
    """The gang as the exact search reads it: every root child required, a PodGroup's minCount
    and a CompositePodGroup's minGroupCount spelled out (basic: one pod, one child)."""

    def spelled(group: Group) -> Group:
        if group.is_leaf:
            return replace(group, min_member=minimum(group))
        return replace(group, min_sub_group=minimum(group), children=tuple(map(spelled, group.children)))

    root = gang.root
    if root.is_leaf:
        return replace(gang, root=spelled(root))
    return replace(gang, root=replace(root, min_sub_group=None, children=tuple(map(spelled, root.children))))
