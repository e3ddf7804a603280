"""The invariants every store enforces, written once and shared by all implementations.

Each function is a pure decision over values the caller read inside its transaction; the store
then writes (or not) in that same transaction.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from toposched.model import ConflictError, Node, Quota, QuotaExceededError, Resources, Taint, Usage
from toposched.model.resources import EMPTY
from toposched.store.records import WorkloadRecord, WorkloadState

RELEASE_STATES = frozenset({WorkloadState.FINISHED, WorkloadState.CANCELLED})


def bookings(reservations: Mapping[str, Mapping[str, int]]) -> dict[str, Resources]:
    """The reservations worth a row: the non-empty ones, as Resources (kept when they are)."""
    return {
        node: amounts if isinstance(amounts, Resources) else Resources(amounts)
        for node, amounts in reservations.items()
        if amounts
    }


def check_capacity(
    allocatable: Mapping[str, Resources | None],
    booked: Mapping[str, Resources],
    adding: Mapping[str, Resources],
    *,
    workload: int,
    action: str = "admitted",
) -> None:
    """Refuse a booking that would push any node's reservations above its allocatable.

    ``allocatable`` holds every node of ``adding`` (None when the node is unknown); ``booked`` the
    reservations already held on those nodes. Every offending node is named in one ConflictError.
    """
    problems: list[str] = []
    for node in sorted(adding):
        request = adding[node]
        negative = sorted(name for name, amount in request.items() if amount < 0)
        if negative:
            raise ValueError(f"reservation on node {node!r} has negative amounts: {', '.join(negative)}")
        capacity = allocatable.get(node)
        if capacity is None:
            problems.append(f"node {node!r} is unknown")
            continue
        held = booked.get(node, EMPTY)
        over = [
            f"{name} {total} > {capacity[name]}"
            for name in sorted({*held, *request})
            if (total := held[name] + request[name]) > capacity[name]
        ]
        if over:
            problems.append(f"node {node!r} would be over-committed ({', '.join(over)})")
    if problems:
        raise ConflictError(
            f"workload {workload} cannot be {action}: {'; '.join(problems)} "
            "(capacity is already booked; rebuild the snapshot from the store and retry)"
        )


def check_admit(record: WorkloadRecord) -> None:
    """Only a pending workload can be admitted; a replayed admit is refused, never booked twice."""
    if record.state is not WorkloadState.PENDING:
        raise ConflictError(f"workload {record.id} is {record.state}, not pending: it cannot be admitted")


def check_reassign(record: WorkloadRecord) -> None:
    """Only a workload that holds capacity can have its placement swapped."""
    if not record.state.holds_capacity:
        raise ConflictError(
            f"workload {record.id} is {record.state}: only an admitted or running workload can be reassigned"
        )


def check_start(record: WorkloadRecord) -> bool:
    """Admitted -> running. Returns False (nothing to do) when it already runs."""
    if record.state is WorkloadState.RUNNING:
        return False
    if record.state is not WorkloadState.ADMITTED:
        raise ConflictError(f"workload {record.id} is {record.state}: only an admitted workload can start")
    return True


def check_release(record: WorkloadRecord, new_state: WorkloadState) -> bool:
    """Any live state -> finished/cancelled. False when already in ``new_state`` (idempotent)."""
    if new_state not in RELEASE_STATES:
        raise ValueError(f"release ends a workload as finished or cancelled, not {new_state}")
    if record.state is new_state:
        return False
    if record.state.terminal:
        raise ConflictError(f"workload {record.id} is already {record.state}: it cannot become {new_state}")
    return True


def check_evict(record: WorkloadRecord) -> bool:
    """Admitted/running -> evicted. False when already evicted (idempotent)."""
    if record.state is WorkloadState.EVICTED:
        return False
    if not record.state.holds_capacity:
        raise ConflictError(
            f"workload {record.id} is {record.state}: only admitted or running workloads can be evicted"
        )
    return True


def check_requeue(record: WorkloadRecord) -> bool:
    """Evicted/admitted/running -> pending. False when already pending (idempotent)."""
    if record.state is WorkloadState.PENDING:
        return False
    if record.state.terminal:
        raise ConflictError(
            f"workload {record.id} is {record.state}: a finished or cancelled workload is not requeued"
        )
    return True


def check_topology_unused(name: str, workloads: list[int], pools: list[str]) -> None:
    """A topology referenced by a live workload or by a pool cannot be deleted."""
    users = [f"workload {w}" for w in workloads[:5]] + [f"pool {p!r}" for p in pools[:5]]
    if users:
        more = len(workloads) + len(pools) - len(users)
        suffix = f" and {more} more" if more > 0 else ""
        raise ConflictError(
            f"topology {name!r} is still used by {', '.join(users)}{suffix} "
            "(wait for those workloads to finish and move the pools to another topology first)"
        )


def check_pool_unused(name: str, workloads: list[int]) -> None:
    """A pool that a pending, admitted or running workload uses cannot be deleted."""
    if workloads:
        listed = ", ".join(str(w) for w in workloads[:5])
        more = f" and {len(workloads) - 5} more" if len(workloads) > 5 else ""
        raise ConflictError(
            f"pool {name!r} is still used by workloads {listed}{more} "
            "(wait for them to finish or cancel them first)"
        )


def updated_node(
    node: Node,
    ready: bool | None,
    unschedulable: bool | None,
    taints: tuple[Taint, ...] | None,
    labels: Mapping[str, str] | None,
    allocatable: Resources | None,
) -> Node:
    """``node`` with the given fields replaced; None keeps a field as it is."""
    return Node.create(
        node.name,
        node.labels if labels is None else labels,
        node.allocatable if allocatable is None else allocatable,
        node.taints if taints is None else tuple(taints),
        ready=node.ready if ready is None else ready,
        unschedulable=node.unschedulable if unschedulable is None else unschedulable,
    )


# Each figure of a quota: what it counts, and the ``toposched serve`` option that sets everyone's.
QUOTA_FIGURES = {
    "workloads": ("pending workloads", "--quota-workloads"),
    "pods": ("pods in pending workloads", "--quota-pods"),
    "specBytes": ("bytes of pending specs", "--quota-bytes"),
}


def usage_of(record: WorkloadRecord) -> Usage:
    """What storing ``record`` adds to its owner's pending work."""
    return Usage(1, record.pods, len(record.spec.encode("utf-8")))


def check_quota(owner: str, used: Usage, adding: Usage, quota: Quota | None) -> None:
    """Refuse work that would take ``owner``'s pending work (``used``) past ``quota``; naming
    the figure, the quota and how to raise it."""
    passed = quota.passed(used + adding) if quota is not None else []
    if not passed:
        return
    field, total, limit = passed[0]
    what, option = QUOTA_FIGURES[field]
    raise QuotaExceededError(
        f"user {owner!r} would have {total} {what}; the quota is {limit} (quota.{field}): cancel "
        f"pending workloads or wait until some are admitted, or have an admin raise it "
        f"(PUT /v1/quotas/{owner}, or toposched serve {option} N for every user)",
        limit=f"quota.{field}",
    )


def known_names(names: Iterable[str]) -> str:
    """A hint listing the names that do exist."""
    return ", ".join(sorted(names)) or "none"
