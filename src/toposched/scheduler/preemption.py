"""Topology-aware preemption: which whole running gangs to evict so that a pending gang that does
not fit is placed inside its required domain, losing the fewest GPU-hours.

For each candidate domain (every domain of the level the gang requires, or the whole cluster
when it requires none, ``trials.Domains``) the victims are the gangs holding capacity with nodes
there that the rule allows (``PreemptionRule``; the default, ``LowerPriority``, allows gangs of
lower priority). A victim set costs the GPU time its gangs lose, since a restart loses it: GPUs
times seconds since admission. Sets are compared by that cost, then fewer gangs, then the lower
highest priority, then the newer (the latest oldest admission), then workload ids. A set is
only chosen when the engine places the gang with the set's bookings given back
(``trials.Ask``): the same placement search the cycle runs, on what would be left, so no node is
over-committed, and victims are always whole gangs.

The search is bounded. Domains are tried in order of a lower bound of their cost (the cheapest
GPUs per GPU-second that cover the shortfall, fractionally), and a domain whose bound exceeds
the best set found is not tried, at most ``MAX_DOMAINS`` of them. In a domain of at most
``EXACT_VICTIMS`` candidate victims every subset is ordered by cost and tried until the first
that places, which is that domain's optimum; with more, victims are taken cheapest per GPU
first, the shortest such prefix that places is found by bisection, and then each victim, the
costliest first, is spared when the gang still places without it. A set the rule does not allow
as a whole (``Candidates.together``: a queue reclaimed from only while it borrows) is skipped
(exact) or gives no plan for that domain (greedy). All the trials of one
decision share ``MAX_TRIALS`` placements and ``SECONDS`` of the search clock, and the decisions of
one cycle ``contention.CYCLE_SECONDS``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from toposched.model import Gang, Placement, Resources
from toposched.scheduler.running import Held, gpus_of
from toposched.scheduler.trials import Ask, Domains, by_domain, gang_gpus

MAX_DOMAINS = 16
EXACT_VICTIMS = 10
MAX_TRIALS = 96
SECONDS = 2.0


@dataclass(frozen=True, slots=True)
class Contender:
    """A gang taking part in a preemption: its workload, priority and compiled gang (None when
    the loop has not compiled it, e.g. a victim admitted before a restart)."""

    workload: int
    priority: int
    gang: Gang | None = None


class PreemptionRule(Protocol):
    """Which gangs a pending gang may evict, and the words that say why."""

    def may_preempt(self, preemptor: Contender, victim: Contender) -> bool: ...

    def reason(self, preemptor: Contender, victim: Contender) -> str: ...


class LowerPriority:
    """The default rule: a gang may evict gangs of strictly lower priority."""

    def may_preempt(self, preemptor: Contender, victim: Contender) -> bool:
        return victim.priority < preemptor.priority

    def reason(self, preemptor: Contender, victim: Contender) -> str:
        return f"priority {victim.priority} < {preemptor.priority}"


@dataclass(frozen=True, slots=True)
class Victim:
    """A candidate victim: its workload, GPUs, lost GPU-seconds, priority and admission time."""

    workload: int
    gpus: int
    cost: float
    priority: int
    admitted_at: float


SetKey = tuple[float, int, int, float, tuple[int, ...]]


def set_key(victims: Sequence[Victim]) -> SetKey:
    """How victim sets compare (smaller is better): GPU-seconds lost, gangs, highest priority,
    newest (minus the oldest admission), then workload ids."""
    return (
        sum(v.cost for v in victims),
        len(victims),
        max(v.priority for v in victims),
        -min(v.admitted_at for v in victims),
        tuple(sorted(v.workload for v in victims)),
    )


@dataclass(frozen=True, slots=True)
class Plan:
    """A preemption decided: the victims, the domain the gang goes in, and its placement there."""

    victims: tuple[Victim, ...]
    domain: str
    placement: Placement
    key: SetKey

    @property
    def gpu_hours(self) -> float:
        return self.key[0] / 3600.0


@dataclass(frozen=True, slots=True)
class Candidates:
    """What the search reads of the gangs holding capacity: their bookings, facts and the
    allowed victims (``victims``: the workloads the rule lets the preemptor evict, each on its
    own; ``together``, when given: whether it lets the preemptor evict a set of them at once)."""

    booked: Mapping[int, Mapping[str, Resources]]
    held: Mapping[int, Held]
    victims: Sequence[int]
    now: float
    gpu: str
    together: Callable[[Sequence[int]], bool] | None = None


def plan(ask: Ask, candidates: Candidates) -> Plan | None:
    """The cheapest victim set (and domain) with which ``ask``'s gang places, or None."""
    gpu = candidates.gpu
    domains = Domains(ask.gang, ask.snapshot, gpu)
    need = gang_gpus(ask.gang, gpu)
    victims = {w: _victim(w, candidates) for w in candidates.victims}
    ranked: list[tuple[float, int, dict[int, int]]] = []
    for domain, members in by_domain(domains, candidates.booked, gpu, list(victims)).items():
        shortfall = need - int(domains.free[domain])
        if shortfall > sum(members.values()):
            continue  # even every victim there frees too few GPUs
        ranked.append((_lower_bound(shortfall, members, victims), domain, members))
    ranked.sort(key=lambda entry: (entry[0], entry[1]))
    best: Plan | None = None
    for bound, domain, members in ranked[:MAX_DOMAINS]:
        if ask.spent or (best is not None and bound > best.key[0]):
            break
        pool = sorted((victims[w] for w in members), key=lambda v: v.workload)
        shortfall = need - int(domains.free[domain])
        search = _exact if len(pool) <= EXACT_VICTIMS else _greedy
        found = search(ask, pool, _Domain(members, shortfall, best, candidates.together or _any))
        if found is not None and (best is None or found[0] < best.key):
            key, chosen, placement = found
            landed = _landed(domains, placement, domain)
            best = Plan(
                tuple(sorted(chosen, key=lambda v: v.workload)), domains.names[landed], placement, key
            )
    return best


Found = tuple[SetKey, Sequence[Victim], Placement]
Together = Callable[[Sequence[int]], bool]


def _any(victims: Sequence[int]) -> bool:
    return True


@dataclass(frozen=True, slots=True)
class _Domain:
    """One domain's search: the GPUs each victim frees there, how many are short, the best plan
    found so far, and whether the rule lets a set be evicted at once."""

    members: Mapping[int, int]
    shortfall: int
    best: Plan | None
    together: Together

    def enough(self, chosen: Sequence[Victim]) -> bool:
        return sum(self.members[v.workload] for v in chosen) >= self.shortfall

    def beaten(self, key: SetKey) -> bool:
        return self.best is not None and key >= self.best.key


def _exact(ask: Ask, pool: Sequence[Victim], here: _Domain) -> Found | None:
    """Every allowed subset of ``pool`` freeing enough GPUs here, in key order; the first that
    places."""
    subsets: list[tuple[SetKey, tuple[Victim, ...]]] = []
    for size in range(1, len(pool) + 1):
        for chosen in itertools.combinations(pool, size):
            if here.enough(chosen) and here.together([v.workload for v in chosen]):
                subsets.append((set_key(chosen), chosen))
    subsets.sort(key=lambda entry: entry[0])
    for key, chosen in subsets:
        if here.beaten(key) or ask.spent:
            return None
        placement = ask.fits_without(v.workload for v in chosen)
        if placement is not None:
            return key, chosen, placement
    return None


def _greedy(ask: Ask, pool: Sequence[Victim], here: _Domain) -> Found | None:
    """Cheapest GPU-seconds per GPU freed here first: the shortest prefix that places (bisected:
    giving back more never makes a gang stop fitting), then spare the costliest that are not
    needed."""
    order = sorted(
        pool,
        key=lambda v: (
            v.cost / max(here.members[v.workload], 1),
            v.cost,
            v.priority,
            -v.admitted_at,
            v.workload,
        ),
    )
    covered, low = 0, len(order)
    for count, victim in enumerate(order, start=1):
        covered += here.members[victim.workload]
        if covered >= here.shortfall:
            low = count
            break
    placed = ask.fits_without(v.workload for v in order)
    if placed is None:
        return None
    high = len(order)  # the shortest placing prefix is in [low, high]; ``placed`` is at ``high``
    while low < high and not ask.spent:
        middle = (low + high) // 2
        found = ask.fits_without(v.workload for v in order[:middle])
        if found is not None:
            high, placed = middle, found
        else:
            low = middle + 1
    chosen = list(order[:high])
    for victim in sorted(chosen, key=lambda v: (-v.cost, v.workload)):
        if len(chosen) == 1 or ask.spent:
            break
        rest = [v for v in chosen if v is not victim]
        if not here.enough(rest):
            continue
        found = ask.fits_without(v.workload for v in rest)
        if found is not None:
            chosen, placed = rest, found
    key = set_key(chosen)
    if here.beaten(key) or not here.together([v.workload for v in chosen]):
        return None
    return key, chosen, placed


def _landed(domains: Domains, placement: Placement, searched: int) -> int:
    """The domain the gang was placed in: the one searched, unless victims with nodes in
    another too made room there instead."""
    for pod in placement.pods:
        found = domains.domain_of(pod.node) if pod.node is not None else None
        if found is not None:
            return found
    return searched


def _victim(workload: int, candidates: Candidates) -> Victim:
    held = candidates.held[workload]
    gpus = gpus_of(candidates.booked.get(workload, {}), candidates.gpu)
    ran = max(0.0, candidates.now - held.admitted_at)
    return Victim(workload, gpus, gpus * ran, held.priority, held.admitted_at)


def _lower_bound(shortfall: int, members: Mapping[int, int], victims: Mapping[int, Victim]) -> float:
    """No victim set of this domain costs less: its GPUs bought cheapest per GPU, fractionally."""
    if shortfall <= 0:
        return 0.0
    bound = 0.0
    for workload in sorted(members, key=lambda w: victims[w].cost / max(members[w], 1)):
        gpus = members[workload]
        if gpus <= 0:
            continue
        take = min(gpus, shortfall)
        bound += victims[workload].cost * take / gpus
        shortfall -= take
        if shortfall <= 0:
            break
    return bound
