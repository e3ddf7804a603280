"""One case on the control plane, for kube-scheduler: create it, wait for its bindings (or the
PodGroups' conditions when it refuses), read back what it did, clean up.

kube-scheduler watches pods, PodGroups and CompositePodGroups on separate streams and schedules a
unit as soon as it looks complete, so the writes are ordered to make its first cycle for each
unit see all of it:
1. the namespace, the nodes (with status and lifecycle taints), the pods already bound;
2. the Job (when the gang is one), the gang's pods (they wait in kube-scheduler's queue until
   their unit's root exists), the Workload, and every PodGroup and CompositePodGroup below a root;
3. a probe: a PodGroup of one pod that only the last node takes. Once it is bound,
   kube-scheduler has seen every node, pod and PodGroup written before it (one watch per kind,
   delivered in order); the probe is deleted at once;
4. the dump toposched reads: the nodes and bound pods, read back from the server;
5. the roots (a lone PodGroup, a tree's root CompositePodGroup), one at a time: each becomes
   schedulable only now, with every member known, and the next is written once it is decided,
   so kube-scheduler takes a Workload's PodGroups in the order written.

Even so kube-scheduler may start a group's cycle before all of its pods are in it: when a
PodGroup appears, its queue moves the waiting pods into the group one by one, and the group is
in the active queue (which its scheduling loop pops without the queue's lock) from the first one
on (backend/queue/scheduling_queue.go, ``AddPodGroup`` and ``addPodGroupMember``). A basic group,
or a gang whose minCount is below its pods, is then placed with the pods seen so far. Its log
(``Successfully scheduled a pod group ... scheduledPods=S unschedulablePods=U``) says how many
each first cycle saw (``first_cycles``), so such a run can be told apart and repeated.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.realkube.sidebyside.api import AdminApi, ApiError
from tests.realkube.sidebyside.cases import Case
from tests.realkube.sidebyside.cluster import CASE_LABEL
from tests.realkube.sidebyside.gangs import Leaf

CONDITION = "PodGroupInitiallyScheduled"
PROBE = "side-probe"
POLL = 0.05
PROBE_TIMEOUT = 60.0
SETTLE_TIMEOUT = 60.0
STEADY = 0.3  # a decided state must hold this long: a failed first attempt may be retried
QUIET = 0.1  # after the probe is deleted, before the gang: its deletion reaches the scheduler first

PATHS = {
    ("v1", "Pod"): "/api/v1/namespaces/{ns}/pods",
    ("batch/v1", "Job"): "/apis/batch/v1/namespaces/{ns}/jobs",
    ("scheduling.k8s.io/v1beta1", "Workload"): "/apis/scheduling.k8s.io/v1beta1/namespaces/{ns}/workloads",
    ("scheduling.k8s.io/v1beta1", "PodGroup"): "/apis/scheduling.k8s.io/v1beta1/namespaces/{ns}/podgroups",
    ("scheduling.k8s.io/v1alpha3", "PodGroup"): "/apis/scheduling.k8s.io/v1alpha3/namespaces/{ns}/podgroups",
    ("scheduling.k8s.io/v1alpha3", "CompositePodGroup"): (
        "/apis/scheduling.k8s.io/v1alpha3/namespaces/{ns}/compositepodgroups"
    ),
}


@dataclass
class Observed:
    """What kube-scheduler did with a case, and the inputs toposched gets for it."""

    dump: list[dict[str, Any]]  # kubectl-shaped items: the nodes and bound pods before the gang
    job: dict[str, Any] | None  # the Job as stored
    groups: list[dict[str, Any]]  # Workload, PodGroups, CompositePodGroups as stored, roots last
    pods: list[dict[str, Any]]  # the gang's pods as stored (before any binding)
    nodes: dict[str, str | None] = field(default_factory=dict)  # pod -> node kube-scheduler bound it to
    conditions: dict[str, dict[str, str]] = field(default_factory=dict)  # PodGroup -> its condition
    settled: bool = False
    seconds: float = 0.0  # from the last PodGroup written to the last binding or condition
    first_cycles: dict[str, int] = field(default_factory=dict)  # PodGroup -> pods its first cycle saw

    def bound_pods(self, names: Iterable[str]) -> list[dict[str, Any]]:
        """The pods ``names`` as bound: for the dump of a later unit."""
        wanted = set(names)
        by_name = {p["metadata"]["name"]: p for p in self.pods}
        return [
            _listed({**by_name[n], "spec": {**by_name[n]["spec"], "nodeName": node}})
            for n, node in self.nodes.items()
            if n in wanted and node
        ]


def path_of(obj: Mapping[str, Any], namespace: str) -> str:
    return PATHS[(obj["apiVersion"], obj["kind"])].format(ns=namespace)


def run_case(api: AdminApi, case: Case, log: Path | None = None) -> Observed:
    """Runs ``case`` for kube-scheduler and reads back its outcome (``log``: kube-scheduler's,
    for ``first_cycles``); the case's objects stay (``clean_up`` removes them). A namespace
    left by an earlier run of the case is used again."""
    ns = case.namespace
    _create_anew(api, "/api/v1/namespaces", {"metadata": {"name": ns}})
    # kube-controller-manager makes it in a real cluster; pod admission wants it.
    _create_anew(api, f"/api/v1/namespaces/{ns}/serviceaccounts", {"metadata": {"name": "default"}})
    for node in case.cluster.nodes:
        api.add_node(node)
    for pod in case.cluster.bound:
        api.create(path_of(pod, ns), pod)
    gang = case.gang
    job = api.create(path_of(gang.job, ns), gang.job) if gang.job else None
    pods = [api.create(path_of(pod, ns), pod) for pod in gang.pods]
    roots = [obj for obj in gang.groups if is_root(obj)]
    groups = [api.create(path_of(obj, ns), obj) for obj in gang.groups if not is_root(obj)]
    _probe(api, ns, case.cluster.nodes[-1].name)
    observed = Observed(read_dump(api, case.prefix), job, groups, pods)
    time.sleep(QUIET)
    offset = log.stat().st_size if log is not None else 0
    start = time.monotonic()
    for root in roots:
        observed.groups.append(api.create(path_of(root, ns), root))
        unit = next(u for u in gang.units if u.name == root["metadata"]["name"])
        if not _wait_settled(api, case, observed, unit.leaves):
            break
    observed.seconds = time.monotonic() - start
    if log is not None:
        with log.open("rb") as text:
            text.seek(offset)
            observed.first_cycles = first_cycles(text.read().decode(errors="replace"), ns)
    return observed


CYCLE = re.compile(
    r'"(?:Successfully scheduled|Unable to schedule) a pod group" podGroupType="podgroup" '
    r'podGroup="(?P<ns>[^/"]+)/(?P<name>[^"]+)"(?: scheduledPods=(?P<scheduled>\d+))? unschedulablePods=(?P<failed>\d+)'
)


def first_cycles(log: str, namespace: str) -> dict[str, int]:
    """Per PodGroup of ``namespace``, how many of its pods kube-scheduler's first cycle for it
    placed or failed: the pods that cycle saw."""
    seen: dict[str, int] = {}
    for found in CYCLE.finditer(log):
        if found["ns"] == namespace and found["name"] not in seen:
            seen[found["name"]] = int(found["scheduled"] or 0) + int(found["failed"])
    return seen


def _create_anew(api: AdminApi, path: str, obj: Mapping[str, Any]) -> None:
    try:
        api.create(path, obj)
    except ApiError as exc:
        if exc.status != 409:  # AlreadyExists: an earlier run of the case made it
            raise


def is_root(obj: Mapping[str, Any]) -> bool:
    """A PodGroup or CompositePodGroup without a parent: kube-scheduler's unit."""
    return obj["kind"] != "Workload" and not obj["spec"].get("parentCompositePodGroupName")


def read_dump(api: AdminApi, prefix: str) -> list[dict[str, Any]]:
    """The case's nodes and every bound pod on them, as ``kubectl get nodes,pods -A -o json`` lists them."""
    nodes = [
        _listed(n, "v1", "Node") for n in api.items("/api/v1/nodes", labelSelector=f"{CASE_LABEL}={prefix}")
    ]
    names = {n["metadata"]["name"] for n in nodes}
    pods = [
        _listed(p)
        for p in api.items("/api/v1/pods", fieldSelector="spec.nodeName!=")
        if p["spec"].get("nodeName") in names
    ]
    return nodes + pods


def clean_up(api: AdminApi, case: Case) -> None:
    """Deletes the case's objects at once (the namespace stays: no controller finalises it).
    The API server's PodGroupProtection admission gives every PodGroup a finalizer that
    kube-controller-manager lifts once no pod names the group; with the pods gone, it is lifted
    here as that controller would."""
    ns = case.namespace
    api.delete_now(f"/api/v1/namespaces/{ns}/pods")
    for path in (
        f"/apis/scheduling.k8s.io/v1alpha3/namespaces/{ns}/compositepodgroups",
        f"/apis/scheduling.k8s.io/v1beta1/namespaces/{ns}/podgroups",
    ):
        for group in api.items(path):
            if group["metadata"].get("finalizers"):
                api.call(
                    "PATCH",
                    f"{path}/{group['metadata']['name']}",
                    {"metadata": {"finalizers": None}},
                    content_type="application/merge-patch+json",
                )
        api.delete_now(path)
    api.delete_now(f"/apis/scheduling.k8s.io/v1beta1/namespaces/{ns}/workloads")
    # A Job's default deletion orphans its pods through a finalizer the garbage collector lifts.
    api.delete_now(f"/apis/batch/v1/namespaces/{ns}/jobs", propagationPolicy="Background")
    api.delete_now("/api/v1/nodes", labelSelector=f"{CASE_LABEL}={case.prefix}")


def _listed(obj: Mapping[str, Any], api_version: str = "v1", kind: str = "Pod") -> dict[str, Any]:
    """An item of a list answer with its apiVersion and kind, as kubectl writes them."""
    return {
        "apiVersion": api_version,
        "kind": kind,
        **{k: v for k, v in obj.items() if k not in ("apiVersion", "kind")},
    }


def _probe(api: AdminApi, namespace: str, node: str) -> None:
    """A PodGroup and its one pod that only ``node`` takes: waits until kube-scheduler binds the
    pod, then deletes both."""
    group = {
        "metadata": {"name": PROBE, "namespace": namespace},
        "spec": {"schedulingPolicy": {"basic": {}}},
    }
    probe = {
        "metadata": {"name": PROBE, "namespace": namespace},
        "spec": {
            "schedulingGroup": {"podGroupName": PROBE},
            "tolerations": [{"operator": "Exists"}],
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}
                        ]
                    }
                }
            },
            "containers": [{"name": "probe", "image": "registry.example/probe:1"}],
        },
    }
    pods = f"/api/v1/namespaces/{namespace}/pods"
    groups = f"/apis/scheduling.k8s.io/v1beta1/namespaces/{namespace}/podgroups"
    api.create(groups, group)
    api.create(pods, probe)
    deadline = time.monotonic() + PROBE_TIMEOUT
    while not api.get(f"{pods}/{PROBE}")["spec"].get("nodeName"):
        if time.monotonic() > deadline:
            raise ApiError(0, f"kube-scheduler did not bind the probe pod to {node} in {PROBE_TIMEOUT:.0f} s")
        time.sleep(POLL)
    api.delete_now(f"{pods}/{PROBE}")
    api.delete_now(f"{groups}/{PROBE}")


def _wait_settled(api: AdminApi, case: Case, observed: Observed, leaves: Sequence[Leaf]) -> bool:
    """Until each of ``leaves`` has its condition and each of their pods a node or a failed
    PodScheduled; records what it sees in ``observed``. False after ``SETTLE_TIMEOUT``."""
    ns = case.namespace
    members = {pod for leaf in leaves for pod in leaf.pods}
    deadline = time.monotonic() + SETTLE_TIMEOUT
    seen: tuple[Any, ...] | None = None
    since = 0.0
    while True:
        conditions = {}
        for group in api.items(f"/apis/scheduling.k8s.io/v1beta1/namespaces/{ns}/podgroups"):
            for condition in group.get("status", {}).get("conditions") or ():
                if condition.get("type") == CONDITION and condition.get("reason") != "SchedulerError":
                    conditions[group["metadata"]["name"]] = condition
        pods = {p["metadata"]["name"]: p for p in api.items(f"/api/v1/namespaces/{ns}/pods")}
        observed.conditions.update(conditions)
        observed.nodes.update(
            {name: pods[name]["spec"].get("nodeName") if name in pods else None for name in members}
        )
        done = all(leaf.name in conditions for leaf in leaves) and all(
            _decided(pods.get(name)) for name in members
        )
        state = (
            tuple(sorted((n, observed.nodes[n] or "") for n in members)),
            tuple(sorted((n, c.get("status"), c.get("lastTransitionTime")) for n, c in conditions.items())),
        )
        if not done or state != seen:
            seen, since = state, time.monotonic()
        elif time.monotonic() - since >= STEADY:
            observed.settled = all(
                leaf.name in observed.conditions for u in case.gang.units for leaf in u.leaves
            )
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(POLL)


def _decided(pod: Mapping[str, Any] | None) -> bool:
    """Bound, or marked unschedulable by kube-scheduler (a scheduler error is retried)."""
    if pod is None:
        return True
    if pod["spec"].get("nodeName"):
        return True
    return any(
        c.get("type") == "PodScheduled" and c.get("status") == "False" and c.get("reason") != "SchedulerError"
        for c in pod.get("status", {}).get("conditions") or ()
    )
