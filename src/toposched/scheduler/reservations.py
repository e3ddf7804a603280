"""Reservations for the gang at the head of the queue, and backfill around them (Slurm's
backfill with reservations is the model).

When the first gang of a cycle's order does not fit (nor after preemption), it gets a
reservation: the domain where it will fit soonest, found from when the gangs holding capacity
are expected to end (admission + declared run time, ``running``). In each candidate domain (see
``trials.Domains``) the gangs there are given back in order of expected end, and the shortest
such prefix with which the engine places the gang (bisected: giving back more never makes it
stop fitting) says when: the end of the last of them. Domains are tried in order of the time
enough GPUs are back there, at most ``MAX_DOMAINS``, within ``MAX_TRIALS`` placements and
``SECONDS`` of the search clock.

The reservation holds the nodes of that trial placement: for the rest of the cycle their free
capacity is kept out of the snapshots, so the gangs after it in the order are placed around
them, except a gang expected to end before the reservation starts (now + its run time ≤ the
start), which may use them. It is made again each cycle from the state of that cycle (the
capacity freed on its nodes meanwhile stays kept); while the gang holding it waits out its
backoff, the reservation of the last cycle stands.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from toposched.model import Placement, Resources, Topology
from toposched.scheduler.running import Held
from toposched.scheduler.trials import Ask, Domains, by_domain, gang_gpus
from toposched.snapshot import Snapshot

if TYPE_CHECKING:  # the view reads the loop's state, which keeps a ``Reservation``
    from toposched.scheduler.view import CycleView

MAX_DOMAINS = 8
MAX_TRIALS = 48
SECONDS = 1.0
HOLD_KEY = "reservation"  # the snapshots' usage key of the nodes kept for it


@dataclass(frozen=True, slots=True)
class Reservation:
    """Nodes kept for a pending gang from ``start`` (clock time) on, in ``domain``."""

    workload: int
    domain: str
    start: float
    nodes: tuple[str, ...]
    waits_for: tuple[int, ...]  # the gangs whose end it waits for


def find(
    ask: Ask,
    workload: int,
    booked: Mapping[int, Mapping[str, Resources]],
    held: Mapping[int, Held],
    now: float,
    default_run_seconds: float,
    gpu: str,
) -> Reservation | None:
    """Where and when ``ask``'s gang fits soonest as the gangs holding capacity end; None when
    it fits nowhere even once all of them have ended (or the trials are used up)."""
    domains = Domains(ask.gang, ask.snapshot, gpu)
    need = gang_gpus(ask.gang, gpu)
    ends = {w: max(now, facts.expected_end(default_run_seconds)) for w, facts in held.items() if w in booked}
    ranked: list[tuple[float, int, list[int]]] = []
    for domain, members in by_domain(domains, booked, gpu, sorted(ends)).items():
        order = sorted(members, key=lambda w: (ends[w], w))
        earliest = _enough_back(order, members, need - int(domains.free[domain]), ends)
        if earliest is not None:
            ranked.append((earliest, domain, order))
    ranked.sort(key=lambda entry: (entry[0], entry[1]))
    best: Reservation | None = None
    for earliest, domain, order in ranked[:MAX_DOMAINS]:
        if ask.spent or (best is not None and earliest >= best.start):
            break
        found = _soonest(ask, order, ends)
        if found is None:
            continue
        count, placement = found
        start = ends[order[count - 1]] if count else now
        if best is None or start < best.start:
            nodes = tuple(sorted({p.node for p in placement.pods if p.node is not None}))
            best = Reservation(workload, domains.names[domain], start, nodes, tuple(order[:count]))
    return best


def _enough_back(
    order: Sequence[int], members: Mapping[int, int], shortfall: int, ends: Mapping[int, float]
) -> float | None:
    """When enough GPUs are back in the domain (a lower bound of when the gang fits there)."""
    if shortfall <= 0:
        return 0.0
    for workload in order:
        shortfall -= members[workload]
        if shortfall <= 0:
            return ends[workload]
    return None


def _soonest(ask: Ask, order: Sequence[int], ends: Mapping[int, float]) -> tuple[int, Placement] | None:
    """The shortest prefix of ``order`` (whole runs of equal end times: they are given back
    together) with which the gang places, as its length, and that placement; None when even all
    of it is not enough."""
    placed = ask.fits_without(order)
    if placed is None:
        return None
    cuts = [0] + [i for i in range(1, len(order)) if ends[order[i]] != ends[order[i - 1]]] + [len(order)]
    low, high = 0, len(cuts) - 1  # the answer is cuts[k] for some k in [low, high]
    while low < high and not ask.spent:
        middle = (low + high) // 2
        found = ask.fits_without(order[: cuts[middle]])
        if found is not None:
            high, placed = middle, found
        else:
            low = middle + 1
    return cuts[high], placed


class Backfill:
    """The cycle's reservations, each kept out of the view's snapshots until the cycle ends.

    With ``depth`` 1 only the first refused gang holds one (Slurm's EASY backfill); with more,
    each of the first ``depth`` refused gangs does, on nodes no earlier reservation holds, and a
    gang after them may use a reservation's nodes only when it ends before that one starts
    (conservative backfill, bounded)."""

    def __init__(self, view: CycleView, depth: int = 1) -> None:
        self.view = view
        self.depth = depth
        self.held: list[tuple[Reservation, Topology]] = []

    def hold(self, reservation: Reservation, topology: Topology) -> None:
        """Keep the reservation's nodes (what is free on them now, in ``topology``'s snapshot)
        from the gangs placed after it."""
        self.held.append((reservation, topology))
        self._keep(reservation, topology)

    @property
    def full(self) -> bool:
        """Every reservation this cycle may make is made."""
        return len(self.held) >= self.depth

    def of(self, workload: int) -> Reservation | None:
        """The reservation ``workload`` holds this cycle, if any."""
        return next((r for r, _ in self.held if r.workload == workload), None)

    @property
    def nodes(self) -> frozenset[str]:
        """The nodes every reservation keeps (none without one)."""
        return self.kept_from(now=0.0, run_seconds=float("inf"))

    def kept_from(self, now: float, run_seconds: float) -> frozenset[str]:
        """The nodes a gang of ``run_seconds`` admitted at ``now`` may not use: those of the
        reservations starting before it would end."""
        return frozenset(
            node for r, _ in self.held if not _ends_before(r, now, run_seconds) for node in r.nodes
        )

    def may_use(self, now: float, run_seconds: float) -> bool:
        """Whether a gang of ``run_seconds`` admitted now ends before some reservation starts."""
        return any(_ends_before(r, now, run_seconds) for r, _ in self.held)

    @contextmanager
    def lifted(self, now: float, run_seconds: float) -> Iterator[None]:
        """The nodes of the reservations a gang of ``run_seconds`` ends before open for it; kept
        again afterwards, less what that gang took."""
        opened = [(r, t) for r, t in self.held if _ends_before(r, now, run_seconds)]
        for reservation, _ in opened:
            self.view.unhold(_key(reservation))
        try:
            yield
        finally:
            for reservation, topology in opened:
                self._keep(reservation, topology)

    def kept(self) -> tuple[tuple[Reservation, Topology], ...]:
        """The reservations and their topologies, for the next cycle."""
        return tuple(self.held)

    def release(self) -> None:
        """Give the reservations' nodes back to the view (the cycle ends)."""
        for reservation, _ in self.held:
            self.view.unhold(_key(reservation))

    def _keep(self, reservation: Reservation, topology: Topology) -> None:
        snapshot = self.view.snapshot(topology)
        self.view.hold(_key(reservation), free_of(snapshot, reservation.nodes))


def _ends_before(reservation: Reservation, now: float, run_seconds: float) -> bool:
    return now + run_seconds <= reservation.start


def _key(reservation: Reservation) -> str:
    """The snapshots' usage key of the nodes kept for ``reservation``."""
    return f"{HOLD_KEY}-{reservation.workload}"


def free_of(snapshot: Snapshot, nodes: Sequence[str]) -> dict[str, Resources]:
    """The free capacity of ``nodes`` on ``snapshot`` (nothing below zero)."""
    out: dict[str, Resources] = {}
    for node in nodes:
        try:
            free = snapshot.free_of(node)
        except KeyError:  # not a member of this tree
            continue
        out[node] = Resources({k: v for k, v in free.items() if v > 0})
    return out
