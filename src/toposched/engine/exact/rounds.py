"""The exact search's own share of a round, and what a caller's gangs keep between rounds.

A caller that places many gangs again and again (the scheduler: once per cycle) opens a round
for each pass (``ExactRounds.begin``). The exact searches of one round share ``round_seconds`` of
the session's clock: each gang that needs one gets the time left divided among the gangs still
expected to need one (as many as in the last round), so one gang that cannot be placed costs a
bounded, fair share of a round instead of its whole budget. A search that reaches its share
pauses and goes on in the next round, from where it stopped, while the rows its pods may use
stay as they were (its steps and seconds count toward its own budget across rounds): other gangs
admitted meanwhile on nodes none of its pods may go to (taints, node selectors) leave it going
on. When a row it may use changed, or the snapshots were replaced, it starts again on the new
capacity.

A gang's answer is kept per caller key (a workload) with the state of the snapshots it was given
on: the same gang on the same, unchanged snapshots gets its refusal again without a search until
the snapshots change (a booking charged or given back, a node or pod changed) or the gang does.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from weakref import ReferenceType, ref

import numpy as np

from toposched.engine.core.budget import SearchBudget, WorkMeter
from toposched.engine.core.space import NodeSpace
from toposched.engine.exact.complete import Resumable
from toposched.model import Gang, Placement, Unschedulable
from toposched.snapshot import BoolArray, Snapshot

Clock = Callable[[], float]
State = tuple[tuple[ReferenceType[Snapshot], int], ...]  # each snapshot (weakly) and its version
_KEPT = 4096  # keys kept: beyond that the oldest are forgotten (their gangs are searched again)
_PAUSED = 16  # paused searches kept (each holds a copy of the free capacity)


def state_of(snapshot: Snapshot, snapshots: Mapping[str, Snapshot] | None) -> State:
    """The snapshots a placement reads, as they are now."""
    every = {id(s): s for s in (snapshot, *(snapshots or {}).values())}
    return tuple((ref(s), s.version) for s in every.values())


def _same(a: State, b: State) -> bool:
    return len(a) == len(b) and all(
        x() is y() and x() is not None and v == w for (x, v), (y, w) in zip(a, b, strict=True)
    )


def _usable(space: NodeSpace, gang: Gang) -> BoolArray:
    """Rows of ``space`` some pod of ``gang`` may go to (it tolerates their taints and its node
    selector matches): capacity elsewhere changes nothing its search reads."""
    usable = np.zeros(space.size, dtype=np.bool_)
    shapes = {
        (pod.tolerations, tuple(sorted(pod.node_selector.items())))
        for leaf in gang.leaves()
        for pod in leaf.pods
    }
    for tolerations, selector in shapes:
        usable |= space.eligible(tolerations, selector)
    return usable


def _unused_changes(entry: Kept, state: State) -> bool:
    """Whether every change from the entry's snapshots to ``state`` is on rows its paused search
    never uses (the same snapshot objects, each change known row by row)."""
    space = entry.resumable.space
    if space is None or len(entry.state) != len(state):
        return False
    usable: BoolArray | None = None
    for (was, version), (now, _) in zip(entry.state, state, strict=True):
        snapshot = was()
        if snapshot is None or snapshot is not now():
            return False
        changed = snapshot.changed_rows(version)
        if changed is None:
            return False
        if len(changed) == 0:
            continue
        usable = _usable(space, entry.gang) if usable is None else usable
        names = snapshot.tree.node_names
        rows = [space.row.get(names[int(r)], -1) for r in np.unique(changed)]
        if any(row < 0 or usable[row] for row in rows):
            return False
    return True


@dataclass(slots=True)
class Kept:
    """One key's gang, the snapshots' state, its kept refusal or its paused search, and the
    seconds its search has spent so far."""

    gang: Gang
    policy: str
    state: State
    refusal: Unschedulable | None = None
    resumable: Resumable = field(default_factory=Resumable)
    spent: float = 0.0  # seconds searched in the rounds before this one
    resumed: float = 0.0  # when this round's search began (clock seconds)
    budget: SearchBudget | None = None


class ExactRounds:
    """Rounds of one caller: the share of each, and what each key keeps."""

    def __init__(self, seconds: float, clock: Clock) -> None:
        self.seconds = seconds
        self.clock = clock
        self._left = seconds
        self._expected = 1  # gangs that needed an exact search in the last round
        self._needing = 0  # ... and in this one so far
        self._kept: dict[Hashable, Kept] = {}

    def begin(self) -> None:
        """A new round: its whole share is left."""
        self._expected = max(1, self._needing)
        self._needing = 0
        self._left = self.seconds

    def kept(self, key: Hashable, gang: Gang, policy: str, state: State) -> Kept:
        """What ``key`` keeps for ``gang`` on snapshots in ``state``: the entry when neither
        changed, else a fresh one."""
        found = self._kept.pop(key, None)
        if found is None or found.gang is not gang or found.policy != policy:
            found = Kept(gang, policy, state)
        elif not _same(found.state, state):
            if found.resumable.paused and _unused_changes(found, state):
                found.state, found.refusal = state, None  # paused: its search goes on
            else:
                found = Kept(gang, policy, state)
        elif found.refusal is not None and found.refusal.searching:
            found.refusal = None  # paused: its search goes on
        self._kept[key] = found  # the most recent last
        if len(self._kept) > _KEPT:
            self._kept.pop(next(iter(self._kept)))
        return found

    def budget(self, entry: Kept, steps: int, seconds: float, meter: WorkMeter) -> SearchBudget:
        """The budget of the entry's search over all its rounds: ``steps``, and ``seconds`` of
        the clock counted only while it searches."""
        if entry.budget is None:
            clock = self.clock
            entry.budget = SearchBudget(
                steps, lambda: entry.spent + (clock() - entry.resumed) > seconds, meter
            )
        return entry.budget

    def search(self, entry: Kept, run: Callable[[], Placement | Unschedulable]) -> Placement | Unschedulable:
        """``run()`` (a placement that may search) with the entry's share of this round as the
        pause of its exact search, counting the time that search took against the round and the
        entry, and keeping a refusal. The share is settled when the search first asks (the
        faithful answer did not place the gang): the time left, divided among the gangs still
        expected to need one."""
        clock = self.clock
        deadline: list[float] = []

        def pause() -> bool:
            now = clock()
            if not deadline:
                self._needing += 1
                entry.resumed = now
                deadline.append(now + self._left / max(1, self._expected - self._needing + 1))
            return now >= deadline[0]

        entry.resumable.pause = pause
        try:
            found = run()
        finally:
            entry.resumable.pause = None
            if deadline:
                took = clock() - entry.resumed
                self._left = max(0.0, self._left - took)
                entry.spent += took
        if entry.resumable.paused:
            paused = [k for k, e in self._kept.items() if e.resumable.paused]
            for key in paused[: max(0, len(paused) - _PAUSED)]:
                self._kept.pop(key)  # the oldest start again when their turn comes
        entry.refusal = found if isinstance(found, Unschedulable) else None
        return found

    def forget(self, key: Hashable) -> None:
        """Drop what ``key`` keeps (its workload ended or was placed)."""
        self._kept.pop(key, None)
