"""``Search.COMPLETE`` after a faithful refusal: the exact search, and what the result says.

The faithful solvers reproduce each upstream scheduler's choice, and those give up on some gangs
that fit (a greedy domain choice starves a sibling). When the faithful result is
``Unschedulable``, ``search_complete`` runs ``ExactSearch`` on the same snapshots. A placement
found that way carries ``found_by=Search.COMPLETE`` and a note naming the faithful reason; when
the search finds nothing the faithful reason stands, with a note saying the complete search found
no placement either or stopped at its budget (``Unschedulable.budget_exhausted``).

A caller that shares a round's time among several gangs passes a ``Resumable``: the search stops
when its ``pause`` says so and is kept there, and the next call with the same ``Resumable`` goes
on where it stopped (the snapshots must be as they were); the refusal meanwhile says it is still
searching (``Unschedulable.searching``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from toposched.engine.core.budget import SearchBudget
from toposched.engine.core.caches import EngineCaches
from toposched.engine.core.members import build
from toposched.engine.core.messages import Reasons
from toposched.engine.core.output import pods_and_assignments
from toposched.engine.core.policy_registry import PlacementPolicy
from toposched.engine.core.request import compile_unit, units_of
from toposched.engine.core.space import NodeSpace
from toposched.engine.exact.backtrack import MAX_GROUPS, ExactSearch
from toposched.model import Gang, Group, Search, Unschedulable
from toposched.model.placement import Placement
from toposched.snapshot import Snapshot


@dataclass(slots=True)
class Resumable:
    """One gang's exact search across calls: ``pause`` (asked every few hundred steps) stops it
    for now; ``search`` and ``space`` are where a paused search waits."""

    pause: Callable[[], bool] | None = None
    search: ExactSearch | None = None
    space: NodeSpace | None = None

    @property
    def paused(self) -> bool:
        return self.search is not None


def search_complete(
    gang: Gang,
    snapshot: Snapshot,
    faithful: Unschedulable,
    *,
    policy: PlacementPolicy,
    kueue: bool,
    snapshots: Mapping[str, Snapshot] | None = None,
    budget: SearchBudget | None = None,
    caches: EngineCaches | None = None,
    resumable: Resumable | None = None,
) -> Placement | Unschedulable:
    """The exact search's placement of ``gang``, or ``faithful`` with a note on why there is none.
    The snapshots are not changed. ``resumable``: see the module docstring.

    ``kueue``: the faithful solver read the gang as Kueue PodSets and PodSet groups; the search
    then keeps Kueue's reading (a group's level binds its PodSets, whose own levels Kueue ignores)
    and leaves a request Kueue rejects as invalid refused."""
    root = gang.root
    if kueue:
        podsets = _kueue_podsets(
            root, snapshot, Reasons(gang.name, snapshot.tree.topology.name, policy.name), policy
        )
        if podsets is None:
            return faithful
        root = podsets
    budget = budget or SearchBudget()
    if resumable is not None and resumable.search is not None and resumable.space is not None:
        search, space = resumable.search, resumable.space
    else:
        space = NodeSpace(snapshot, snapshots, caches)
        search = ExactSearch(space, build(root, gang.topology), budget)
    outcome = search.resume(None if resumable is None else resumable.pause)
    if resumable is not None:
        resumable.search, resumable.space = (search, space) if outcome is None else (None, None)
    if outcome is None:
        note = f"complete search paused at its share of this round after {search.steps.count} steps"
        return replace(faithful, note=note, searching=True)
    if outcome.found:
        pods, assignments = pods_and_assignments(gang, space, outcome.where)
        note = f"faithful placement failed: {faithful.message}; complete search placed it"
        return Placement(
            gang.name, space.default, policy.name, pods, assignments, found_by=Search.COMPLETE, note=note
        )
    if outcome.too_large:
        note = f"complete search not run: the gang has more than {MAX_GROUPS} groups, slices or pod shapes"
    elif outcome.exhausted:
        steps = min(outcome.steps, budget.steps)
        note = f"complete search stopped at its budget after {steps} steps without a placement"
    else:
        note = f"complete search found no placement either ({outcome.steps} steps)"
    return replace(faithful, note=note, budget_exhausted=outcome.exhausted)


def _kueue_podsets(
    root: Group, snapshot: Snapshot, reasons: Reasons, policy: PlacementPolicy
) -> Group | None:
    """The gang as Kueue places it, one child per PodSet or PodSet group, under that unit's level
    (the workers carry the unit's slices); None when Kueue rejects a request as invalid."""
    units = units_of(root, reasons)
    if isinstance(units, Unschedulable):
        return None
    children: list[Group] = []
    for unit in units:
        members = tuple(
            replace(m, required=None, preferred=None, slices=unit.slices if m is unit.workers else ())
            for m in unit.members
        )
        if not unit.workers.pods and unit.leader is None:
            children.append(Group(f"{unit.name}/podset", children=members))  # needs no domain
            continue
        if isinstance(compile_unit(unit, snapshot.tree, policy, reasons), Unschedulable):
            return None
        children.append(Group(f"{unit.name}/podset", unit.required, unit.preferred, children=members))
    return Group(f"{root.name}/podsets", children=tuple(children))
