"""A submission's way in, for ``Scheduler.submit``: compile the parsed spec through the front-end
registry against the stored topologies and pools (``prepare``, which stores nothing), then store
it as pending within its owner's quota (``commit``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Required, TypedDict

from toposched.frontends.registry import Compiled
from toposched.model import ConflictError, Placement, Problem, SpecError, Topology
from toposched.scheduler.admission import admit_known
from toposched.scheduler.state import State, default_of, shared_of, stored_spec
from toposched.scheduler.types import EventType, Submission
from toposched.scheduler.workloads import release
from toposched.store import WorkloadRecord, WorkloadState


class SubmitOptions(TypedDict, total=False):
    """How a submission is read: ``owner`` (required) submits it; ``priority`` 0 keeps the spec's
    own; the topology is ``topology``, else the one the spec names, else ``default_topology``,
    else the only one defined (NotFoundError otherwise); ``kind`` names the front end (a hint);
    ``pool`` names the stored OSMO pool a workflow runs in (else the one it names, else the only one)."""

    owner: Required[str]
    priority: int
    topology: str | None
    kind: str | None
    default_topology: str | None
    pool: str | None


def prepare(
    state: State,
    documents: Sequence[Any],
    *,
    owner: str,
    priority: int = 0,
    topology: str | None = None,
    kind: str | None = None,
    default_topology: str | None = None,
    pool: str | None = None,
) -> Submission:
    """Compile a parsed spec for ``submit`` (SpecError listing every problem); stores nothing.
    The spec is stored as JSON: the documents and the front end that read them; the
    topologies the spec itself brings are kept with the workload (``own_topologies``), never
    among the stored ones: one user's spec never changes what another's uses."""
    chosen, compiled, stored = _compile(state, documents, topology, kind, default_topology, pool)
    gang = compiled.gang
    state.session.policy_of(gang)  # SpecError: a policy the workload names must be known
    own = tuple(t for t in compiled.topologies if stored.get(t.name) != t)
    record = WorkloadRecord(
        name=gang.name,
        kind=gang.kind or kind or "",
        owner=owner,
        spec=stored_spec(compiled.frontend, documents),
        priority=priority or gang.priority,
        topology=chosen.name,
        pool=compiled.pool,
        submitted_at=state.clock.now(),
        own_topologies=own,
        pods=gang.size,
    )
    return Submission(record, chosen, gang)


def commit(state: State, submission: Submission) -> WorkloadRecord:
    """The storing half of ``submit``: queue a prepared workload as pending. Durable on return
    (the store may commit it together with other submissions arriving at the same time).
    QuotaExceededError, nothing stored, when it takes its owner's pending work past their
    quota (their own in the store, else ``SchedulerConfig.quota``)."""
    submitted = submission.record
    message = f"{submitted.kind} {submitted.name} submitted by {submitted.owner}"
    event = state.event(EventType.SUBMITTED, message)
    record = state.store.submit_workload(submitted, event, quota=state.config.quota)
    state.remember(record.id, submission.topology, submission.gang)  # the loop need not parse it again
    state.notify()
    return record


def restore(state: State, submission: Submission, placement: Placement, message: str) -> WorkloadRecord:
    """Queue a prepared workload and admit it at once with ``placement``, one made before (the
    controller rebuilds it from its pods' records), as the cycle admits one
    (``admission.admit_known``). When the store refuses it (the nodes no longer hold it), the
    workload is cancelled and the ``ConflictError`` raised: it is never placed anew behind its
    pods' backs."""
    record = commit(state, submission)
    try:
        admit_known(state, record, submission.gang, placement, message)
    except ConflictError:
        cancelled = f"cancelled by {record.owner}"
        release(state, record.id, WorkloadState.CANCELLED, record.owner, True, cancelled)
        raise
    return state.store.get_workload(record.id)


def _compile(
    state: State,
    documents: Sequence[Any],
    topology: str | None,
    kind: str | None,
    default_topology: str | None,
    pool: str | None,
) -> tuple[Topology, Compiled, dict[str, Topology]]:
    """The topology a submission uses and its gang: the requested topology, else the one the
    spec names, else the caller's default, else the only shared one (pool topologies are
    their pool's own); and the stored topologies by name. A requested ``pool`` is the only one
    the front end sees."""
    pool_records = state.store.list_pools()
    if pool is not None and pool not in {r.name for r in pool_records}:
        stored_pools = ", ".join(sorted(r.name for r in pool_records)) or "none"
        raise SpecError(
            [
                Problem(
                    "pool",
                    f"no stored pool {pool!r}",
                    f"store it first (toposched pool put POOL.yaml); stored pools: {stored_pools}",
                )
            ]
        )
    context = state.context(pool_records, pool=pool or "")
    known = shared_of(pool_records, context.topologies)
    default = default_topology or (known[0].name if len(known) == 1 else None)
    try:
        chosen, compiled = state.registry.compile_for(
            documents, context, topology=topology, default=default, hint=kind
        )
    except SpecError as exc:
        if any(p.path == "topology" for p in exc.problems):
            default_of(known)  # NotFoundError: none or several are defined; name one
        raise
    return chosen, compiled, {t.name: t for t in context.topologies}
