"""The policies a replay compares, each a placement ordering with a way of queueing.

The upstream ones are the engine's built-in orderings (Kueue's mixed, bestfit and leastfree,
balanced, KAI's binpack, and the spread baseline), queued as Kueue and KAI queue: fair share
across queues, aging, preemption, and one reservation a cycle for the first gang refused for
room (Slurm's EASY backfill, which neither Kueue nor KAI has: the baselines are given it so
that only the policy differs), and a gang refused for quota never reserves.

``toposched`` is our own and the service's default queueing: Kueue's mixed ordering, and a gang
refused only because the queues of its tree hold the quota it would borrow reserves where it
fits soonest, as a gang refused for room does (``SchedulerConfig.quota_reservations``). Without
that, on a cluster whose queues' quotas add up to its GPUs, a wide gang that does not fit is
refused for quota before it is tried for room, never reserves, and narrower gangs of its queue
take the capacity as it frees.
"""

from __future__ import annotations

from dataclasses import dataclass

from toposched.model import Policy, Problem, SpecError
from toposched.scheduler import builtin_policies

OWN = "toposched"


@dataclass(frozen=True, slots=True)
class SimPolicy:
    """A policy of the comparison: its name, the engine ordering it places with, and whether
    quota-refused gangs reserve."""

    name: str
    placement: str
    quota_reservations: bool = False


def sim_policies() -> tuple[SimPolicy, ...]:
    """Every policy a replay may compare, upstream ones first."""
    upstream = tuple(SimPolicy(name, name) for name in builtin_policies().names)
    return (*upstream, SimPolicy(OWN, Policy.MIXED.value, quota_reservations=True))


def queued_as(name: str) -> SimPolicy:
    """The policy called ``name``: one of ``sim_policies``, else an ordering a replay's own
    registry knows, queued as the upstream ones are."""
    return next((p for p in sim_policies() if p.name == name), SimPolicy(name, name))


def sim_policy(name: str, *, field: str = "--policy") -> SimPolicy:
    """The policy called ``name``; a ``SpecError`` on ``field`` naming the known ones."""
    known = {policy.name: policy for policy in sim_policies()}
    found = known.get(name.strip().lower())
    if found is None:
        raise SpecError([Problem(field, f"unknown policy {name!r}", f"use one of {', '.join(known)}")])
    return found
