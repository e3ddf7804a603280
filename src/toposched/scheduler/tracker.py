"""What the loop remembers between cycles about time and pods, rebuilt from the event log.

* since when each node is NotReady, and since when each taint is on its node;
* the status of each pod of an admitted gang (``Running`` until told otherwise);
* the pods outside toposched that use node capacity (from the cluster imports: an import replaces
  the pods of the nodes it lists, or all of them with ``replace``; see ``merge_external``).

Every change is written as an event first (``node``, ``pod status``, ``cluster imported``...), and
``replay`` rebuilds this state from those events when a scheduler starts, so a restart keeps the
time a node went NotReady instead of granting it a fresh grace period. A node found NotReady or
tainted with no event about it (written to the store by someone else) counts from the moment the
loop first sees it: that can only delay a failure, never invent one.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Any

from toposched.model import Node, Resources, RunningPod, Taint
from toposched.scheduler.types import EventType, PodStatus
from toposched.store import EventRecord
from toposched.store.codecs import resources_from_json, resources_to_json

_CLEARS_PODS = {EventType.ADMITTED, EventType.EVICTED, EventType.CANCELLED, EventType.FINISHED}


def node_event_data(name: str, node: Node | None) -> dict[str, Any]:
    """The ``node`` event payload: the facts whose change times matter."""
    if node is None:
        return {"node": name, "deleted": True}
    return {
        "node": name,
        "ready": node.ready,
        "unschedulable": node.unschedulable,
        "taints": [str(t) for t in node.taints],
    }


def pod_to_json(pod: RunningPod) -> dict[str, Any]:
    return {
        "name": pod.name,
        "namespace": pod.namespace,
        "node": pod.node,
        "requests": resources_to_json(pod.requests),
        "owner": pod.owner,
    }


def pod_from_json(raw: Mapping[str, Any]) -> RunningPod:
    requests: Resources = resources_from_json(raw.get("requests", {}), "external pod requests")
    return RunningPod(
        str(raw["name"]), str(raw["namespace"]), str(raw["node"]), requests, str(raw.get("owner", ""))
    )


def merge_external(
    current: Iterable[RunningPod], imported: Iterable[RunningPod], nodes: Collection[str] | None
) -> tuple[RunningPod, ...]:
    """The external pods after an import: ``current`` without the pods of the imported
    ``nodes`` (all of them when ``nodes`` is None: a full replace), plus the imported pods. A pod
    imported again under the same namespace and name is kept once, as imported."""
    fresh = tuple(imported)
    names = {(p.namespace, p.name) for p in fresh}
    kept = [
        p for p in current if nodes is not None and p.node not in nodes and (p.namespace, p.name) not in names
    ]
    return (*kept, *fresh)


class Tracker:
    """NotReady and taint start times per node, pod statuses per workload, external pods."""

    def __init__(self) -> None:
        self.not_ready: dict[str, float] = {}
        self.taints: dict[tuple[str, str], float] = {}  # (node, taint) -> since
        self.pods: dict[int, dict[str, PodStatus]] = {}
        self.external: tuple[RunningPod, ...] = ()
        self._taints_of: dict[str, set[str]] = {}  # the taints of ``taints`` by node
        self._stopped: dict[int, set[str]] = {}  # per workload, its pods known not to be running

    # -- nodes ---------------------------------------------------------------------------------
    def observe(self, name: str, ready: bool | None, taints: Iterable[str], at: float) -> None:
        """Record a node's state as of ``at``; start times are kept while the state lasts.
        ``ready`` None means the node is gone. Costs what the node has, not what all have:
        the loop observes each node that changed."""
        if ready is False:
            self.not_ready.setdefault(name, at)
        else:
            self.not_ready.pop(name, None)
        current = set(taints) if ready is not None else set()
        for taint in self._taints_of.get(name, set()) - current:
            del self.taints[(name, taint)]
        for taint in current:
            self.taints.setdefault((name, taint), at)
        if current:
            self._taints_of[name] = current
        else:
            self._taints_of.pop(name, None)

    def observe_node(self, node: Node, at: float) -> None:
        """``observe`` a node's value: observing the same state again changes no start time."""
        self.observe(node.name, node.ready, (str(t) for t in node.taints), at)

    def not_ready_since(self, name: str, now: float) -> float:
        return self.not_ready.get(name, now)

    def taint_since(self, name: str, taint: Taint, now: float) -> float:
        return self.taints.get((name, str(taint)), now)

    # -- pods ----------------------------------------------------------------------------------
    def status(self, workload: int, pod: str) -> PodStatus:
        return self.pods.get(workload, {}).get(pod, PodStatus.RUNNING)

    def set_status(self, workload: int, pod: str, status: PodStatus) -> None:
        self.pods.setdefault(workload, {})[pod] = status
        if status is PodStatus.RUNNING:
            self._running_again(workload, (pod,))
        else:
            self._stopped.setdefault(workload, set()).add(pod)

    def clear(self, workload: int, pods: Iterable[str] | None = None) -> None:
        """Forget statuses: all of a workload's, or only those of ``pods`` (moved pods)."""
        if pods is None:
            self.pods.pop(workload, None)
            self._stopped.pop(workload, None)
            return
        known = self.pods.get(workload, {})
        gone = list(pods)
        for pod in gone:
            known.pop(pod, None)
        self._running_again(workload, gone)

    def stopped(self) -> Iterable[int]:
        """The workloads with a pod known not to be running (failed, terminating, pending)."""
        return self._stopped.keys()

    def _running_again(self, workload: int, pods: Iterable[str]) -> None:
        stopped = self._stopped.get(workload)
        if stopped is not None:
            stopped.difference_update(pods)
            if not stopped:
                del self._stopped[workload]

    # -- restart -------------------------------------------------------------------------------
    def replay(self, events: Iterable[EventRecord]) -> None:
        """Rebuild from the event log, oldest first. Unknown or damaged payloads are skipped."""
        for event in events:
            data = event.data if isinstance(event.data, Mapping) else {}
            try:
                self._apply(event, data)
            except (KeyError, TypeError, ValueError):
                continue

    def _apply(self, event: EventRecord, data: Mapping[str, Any]) -> None:
        kind = event.type
        if kind == EventType.NODE:
            ready = None if data.get("deleted") else bool(data["ready"])
            self.observe(str(data["node"]), ready, [str(t) for t in data.get("taints", [])], event.time)
        elif kind == EventType.CLUSTER_IMPORTED:
            # Imports logged before merging existed carry no node list: they replaced everything.
            nodes = None if data.get("replace", True) else {str(n) for n in data["nodes"]}
            self.external = merge_external(
                self.external, (pod_from_json(p) for p in data.get("pods", [])), nodes
            )
        elif kind == EventType.POD_STATUS and event.workload is not None:
            self.set_status(event.workload, str(data["pod"]), PodStatus(data["status"]))
        elif kind in _CLEARS_PODS and event.workload is not None:
            self.clear(event.workload)
        elif kind == EventType.NODE_REPLACED and event.workload is not None:
            self.clear(event.workload, [str(p) for p in data.get("moved", [])])
