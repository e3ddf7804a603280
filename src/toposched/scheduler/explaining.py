"""Why a pending workload waits, computed on demand on the service's current state.

The cluster explained is what the loop sees: the stored nodes, the pods toposched did not place
(from the cluster imports) and the pods of every admitted or running workload, as running pods
owned by their workload (``workloads/<id>``), so "places once ... ends" names the service's own
workloads as well as foreign ones. A viewer who may not see a workload gets it named
``another-user/<n>`` instead (numbered per answer), as the cluster view hides it.

One explanation runs in a placement session of its own (the loop's options, policies and search
clock; the cycle's session belongs to the cycle's thread) and may take
``SchedulerConfig.explain_seconds`` of the search clock, its searches and suggestions together
(each search also within ``search_steps`` and ``search_seconds``): once that has passed it tries
no more suggestions and lists the kinds it left out (``Explanation.untried``). The refusal itself
is searched as the admission searches a gang, so it is the admission's answer and leaves the rest
of the time to the suggestions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from toposched.emit.result import pod_nodes
from toposched.engine import SearchBudget, explain_refusal
from toposched.model import PODS, Cluster, ConflictError, Explanation, Placement, Resources, RunningPod
from toposched.scheduler.outcome import HOLDING
from toposched.scheduler.state import State
from toposched.store import WorkloadRecord, WorkloadState

OWN_NAMESPACE = "workloads"  # with the id as owner: the API path of the workload
HIDDEN_NAMESPACE = "another-user"


def explain_pending(state: State, workload_id: int, *, viewer: str | None = None) -> Explanation:
    """The explanation of a pending workload (NotFoundError when unknown, ConflictError when it
    is not pending or places now). ``viewer`` None sees every workload's id; a user name sees
    only their own."""
    store = state.store
    record = store.get_workload(workload_id)
    if record.state is not WorkloadState.PENDING:
        stored = record.explanation if isinstance(record.explanation, dict) else {}
        how = f" ({stored['reason']})" if "preempted" in stored else ""  # whom it preempted
        raise ConflictError(
            f"workload {workload_id} is {record.state}{how}: only a pending workload is explained; "
            f"GET /v1/workloads/{workload_id} shows its placement"
        )
    topology = state.topology_of(record)
    gang = state.gang_of(record, topology)
    holding = store.list_workloads(states=HOLDING)
    pods = (*state.tracker.external, *workload_pods(holding, store.reservations_by_workload(), viewer))
    cluster = Cluster(tuple(store.get_nodes()), pods, state.known_to(record.own_topologies))
    config, session = state.config, state.new_session()
    policy = session.policy_of(gang).name
    clock, start = session.clock, session.clock()
    budget = SearchBudget(
        config.search_steps, lambda: clock() - start > config.explain_seconds, session.meter
    )
    refusal = session.place_on(
        gang,
        cluster,
        topology,
        policy=policy,
        budget=session.budget(min(config.search_seconds, config.explain_seconds)),
    )
    if isinstance(refusal, Placement):
        raise ConflictError(
            f"workload {workload_id} places on the cluster as it is now: the next scheduling cycle admits it"
        )
    return explain_refusal(
        gang,
        cluster,
        refusal,
        topology=topology,
        policy=policy,
        search=config.search,
        budget=budget,
        probed=True,
        session=session,
    )


def workload_pods(
    records: Iterable[WorkloadRecord],
    reservations: Mapping[int, Mapping[str, Resources]],
    viewer: str | None,
) -> list[RunningPod]:
    """The booked pods of ``records`` as running pods owned by their workload. A workload's
    booking per node (``pods`` slots included) is what its pods there take: the first pod of a
    node carries the booking and the others only their slot, so the node is charged exactly
    what is booked while each pod is still counted."""
    out: list[RunningPod] = []
    hidden = 0
    for record in records:
        if viewer is None or record.owner == viewer:
            namespace, owner = OWN_NAMESPACE, str(record.id)
        else:
            hidden += 1
            namespace, owner = HIDDEN_NAMESPACE, str(hidden)
        by_node: dict[str, list[str]] = {}
        for pod, node in sorted(pod_nodes(record.placement).items()):
            if node is not None:
                by_node.setdefault(node, []).append(pod)
        booked = reservations.get(record.id, {})
        for node, names in by_node.items():
            usage = dict(booked.get(node, Resources()).items())
            usage[PODS] = max(0, usage.get(PODS, 0) - len(names))  # the snapshot adds one slot per pod
            for i, name in enumerate(names):
                requests = Resources(usage) if i == 0 else Resources()
                out.append(RunningPod(f"{record.id}-{name}", namespace, node, requests, owner))
    return out
