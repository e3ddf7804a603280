"""The rows the store keeps, as frozen values: workloads, events, OSMO pools, API tokens.

Payloads (placements, explanations, event data, pool settings) are JSON values: plain dicts, lists,
strings, numbers, booleans and None. The store copies them through JSON on write and read, so a
caller can never change stored state by mutating a record it holds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from toposched.model import Node, Resources, Topology

Json = Any
"""A JSON-serialisable value. Kept as ``Any`` because JSON is recursive and has no closed type."""


class WorkloadState(StrEnum):
    PENDING = "pending"
    ADMITTED = "admitted"
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"
    EVICTED = "evicted"

    @property
    def holds_capacity(self) -> bool:
        """Admitted and running workloads own reservations; no other state does."""
        return self in (WorkloadState.ADMITTED, WorkloadState.RUNNING)

    @property
    def terminal(self) -> bool:
        """Finished and cancelled workloads never change again."""
        return self in (WorkloadState.FINISHED, WorkloadState.CANCELLED)


ACTIVE_STATES = frozenset({WorkloadState.PENDING, WorkloadState.ADMITTED, WorkloadState.RUNNING})
"""States in which a workload still references its topology and pool."""


@dataclass(frozen=True, slots=True)
class QueueEntry:
    """What ordering a queue needs of a workload, without decoding its spec, placement and
    explanation (the scheduler loop lists the whole queue every cycle)."""

    id: int
    priority: int
    sequence: int
    # When it last became pending (submitted, or requeued after an eviction), on the clock of
    # the caller that wrote it; None when the store does not know. Aging counts from it.
    since: float | None = None


@dataclass(frozen=True, slots=True)
class WorkloadRecord:
    """A submitted workload. ``id`` and ``sequence`` (arrival order) are assigned by the store.

    ``spec`` is the text the user submitted, ``kind`` what the front end parsed it as (``Job``,
    ``JobSet``, ``workflow``...), ``topology`` and ``pool`` the names it references ("" for none).
    ``own_topologies`` are the topologies its spec itself brought (a kube constraint key no stored
    topology has, a Grove file's ClusterTopology): the workload's own, resolved before the stored
    ones for this workload only, and never stored among the shared topologies.
    ``placement`` is set while the workload holds capacity; ``explanation`` says why it waits.
    ``damage`` says what of the stored row could not be read (its placement then reads as None),
    so one damaged row is reported on its workload instead of failing every listing.
    """

    name: str
    kind: str
    owner: str
    spec: str
    priority: int = 0
    topology: str = ""
    pool: str = ""
    submitted_at: float = 0.0
    own_topologies: tuple[Topology, ...] = field(default=(), hash=False)
    pods: int = 0  # the pods of its gang: counted against its owner's quota while it waits
    id: int = 0
    sequence: int = 0
    state: WorkloadState = WorkloadState.PENDING
    placement: Json = field(default=None, hash=False)
    explanation: Json = field(default=None, hash=False)
    damage: str = ""


@dataclass(frozen=True, slots=True)
class EventRecord:
    """One entry of the append-only event log. ``seq`` is assigned by the store, increasing.

    ``time`` comes from the caller's clock (the store never reads one).
    """

    type: str
    message: str
    time: float
    workload: int | None = None
    data: Json = field(default=None, hash=False)
    seq: int = 0


@dataclass(frozen=True, slots=True)
class PoolRecord:
    """An admin-managed OSMO pool: its name, the topology it uses, and its settings as JSON."""

    name: str
    topology: str = ""
    config: Json = field(default=None, hash=False)


@dataclass(frozen=True, slots=True)
class TokenRecord:
    """An API token an admin made: its name (unique), the user and role it authenticates as, the
    SHA-256 of its secret (the secret itself is never stored), when and by whom it was made."""

    name: str
    user: str
    role: str
    sha256: str  # hex
    created_at: float = 0.0
    created_by: str = ""


@dataclass(frozen=True, slots=True)
class Admission:
    """A decision of the loop: book a pending workload's placement, per node, and log its event."""

    workload: int
    placement: Json = field(hash=False)
    reservations: Mapping[str, Resources] = field(hash=False)
    event: EventRecord


@dataclass(frozen=True, slots=True)
class Note:
    """A decision of the loop: why a pending workload waits, and its event when the reason is new."""

    workload: int
    explanation: Json = field(hash=False)
    event: EventRecord | None = None


Decision = Admission | Note


@dataclass(frozen=True, slots=True)
class NodeChanges:
    """The nodes written or deleted since a generation (``Store.node_changes``). A node written
    again with the same value is listed too: a reader compares with what it holds."""

    generation: int  # what the next call passes as ``since``
    nodes: tuple[Node, ...]  # written since; every stored node when ``full``
    removed: tuple[str, ...]  # names deleted since (empty when ``full``)
    full: bool  # the store cannot tell what changed since then: ``nodes`` is all there is


@dataclass(frozen=True, slots=True)
class BookingChanges:
    """The workloads whose bookings changed since a generation (``Store.booking_changes``):
    admitted, reassigned or freed (finished, cancelled, evicted, requeued). A reader that applies
    them to what it held holds what the store holds.

    ``holding``: the changed ones that hold capacity now (every one when ``full``), in arrival
    order; a store may decode each record when it is read, so walk it once. ``reservations``:
    what each of them has booked, per node, by workload id. ``released``: the changed ones that
    hold none now, with their state (None: no longer stored); empty when ``full``."""

    generation: int  # what the next call passes as ``since``
    holding: Sequence[WorkloadRecord] = field(hash=False)
    reservations: Mapping[int, Mapping[str, Resources]] = field(hash=False)
    released: Mapping[int, WorkloadState | None] = field(hash=False)
    full: bool  # the store cannot tell what changed since then: ``holding`` is all there is
