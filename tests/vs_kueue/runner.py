"""Cases through Kueue's manager and through toposched, a batch at a time.

A batch creates every case's nodes, pods and queues, waits until each ClusterQueue is active
(Kueue has read its flavor and Topology) and Kueue's caches have seen the nodes and pods, then
creates the Workloads and waits until each is admitted or has been found not to fit. It then
dumps each case's Nodes and Pods from the API server for toposched, compares, and deletes it all.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import suppress
from typing import Any

from tests.realkube.control_plane import ControlPlane
from tests.realkube.processes import ControlPlaneError
from tests.vs_kueue.compare import (
    Answer,
    Outcome,
    Verdict,
    explain,
    kueue_answer,
    same_refusal_text,
    toposched_answer,
    verdict,
)
from tests.vs_kueue.objects import (
    CASE_LABEL,
    CLUSTER_QUEUES,
    NAMESPACE,
    NODES,
    PODS,
    TOPOLOGIES,
    USED_NAMESPACE,
    WORKLOADS,
    CaseObjects,
    case_objects,
)

from toposched.controller.kubeapi import KubeApiError, Resource
from toposched.controller.rest import RestKubeApi

ACTIVE_TIMEOUT = 60.0
DECISION_TIMEOUT = 120.0
SETTLE = 1.0  # seconds for Kueue's informers to deliver the nodes and pods just created
POLL = 0.25


def ensure_namespaces(plane: ControlPlane) -> None:
    """The cases' namespaces, each with the ``default`` ServiceAccount that pods are admitted
    with (no controller manager runs here to create it)."""
    for name in (NAMESPACE, USED_NAMESPACE):
        for path, obj in (
            ("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}),
            (
                f"/api/v1/namespaces/{name}/serviceaccounts",
                {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "default"}},
            ),
        ):
            try:
                plane.request("POST", path, obj)
            except ControlPlaneError as exc:
                if "HTTP 409" not in str(exc):
                    raise


def run_batch(api: RestKubeApi, cases: Sequence[tuple[str, Mapping[str, Any]]]) -> list[Outcome]:
    """``cases`` as (key, case): each key names one case's objects and must be new to the server."""
    built = [case_objects(case, key) for key, case in cases]
    try:
        for objects in built:
            for resource, obj in objects.infrastructure:
                api.create(resource, obj)
                if resource is NODES:
                    _as_node_lifecycle_controller(api, obj)
        _wait_all(lambda: all(_active(api, o.key) for o in built), ACTIVE_TIMEOUT, "ClusterQueues active")
        time.sleep(SETTLE)
        for objects in built:
            api.create(WORKLOADS, objects.workload)
        answers = _decisions(api, [o.key for o in built])
        return [_outcome(api, key, case, answers[key]) for key, case in cases]
    finally:
        for objects in built:
            _delete(api, objects)


def _as_node_lifecycle_controller(api: RestKubeApi, node: Mapping[str, Any]) -> None:
    """The API server's TaintNodesByCondition admission puts ``node.kubernetes.io/not-ready``
    on every new node; kube-controller-manager's node lifecycle controller (not run here) lifts it
    once the node is Ready. Do that for Ready nodes; NotReady ones keep it, as they would."""
    conditions = node["status"]["conditions"]
    if any(c["type"] == "Ready" and c["status"] == "True" for c in conditions):
        api.patch(NODES, node["metadata"]["name"], {"spec": {"taints": node["spec"].get("taints")}})


def _outcome(api: RestKubeApi, key: str, case: Mapping[str, Any], kueue: Answer) -> Outcome:
    """toposched on the case's dump (its Nodes and Pods as the API server lists them, and the
    Topology Kueue read), compared with Kueue's answer."""
    selector = f"{CASE_LABEL}={key}"
    dump = [
        *api.list(NODES, label_selector=selector).items,
        *api.list(PODS, USED_NAMESPACE, label_selector=selector).items,
    ]
    topology = api.get(TOPOLOGIES, key)
    try:
        ours = toposched_answer(case, dump, topology)
    except Exception as exc:  # a defect to report against this case, not a reason to stop the run
        return Outcome(case, kueue, f"toposched raised {type(exc).__name__}: {exc}", Verdict.DIFFERENT)
    found = verdict(kueue, ours)
    agrees = found is Verdict.SAME_PLACEMENT or same_refusal_text(kueue, ours)
    why = None if agrees else explain(case, dump, topology, kueue)
    return Outcome(case, kueue, ours, found, why)


def _active(api: RestKubeApi, key: str) -> bool:
    queue = api.get(CLUSTER_QUEUES, key)
    return any(
        c.get("type") == "Active" and c.get("status") == "True"
        for c in (queue.get("status") or {}).get("conditions") or []
    )


def _decisions(api: RestKubeApi, keys: Sequence[str]) -> dict[str, Answer]:
    answers: dict[str, Answer] = {}
    deadline = time.monotonic() + DECISION_TIMEOUT
    while len(answers) < len(keys):
        for key in keys:
            if key not in answers:
                answer = kueue_answer(api.get(WORKLOADS, key, NAMESPACE))
                if answer is not None:
                    answers[key] = answer
        if len(answers) == len(keys):
            break
        if time.monotonic() > deadline:
            missing = sorted(set(keys) - set(answers))
            raise ControlPlaneError(f"Kueue decided nothing for {missing} in {DECISION_TIMEOUT:.0f} s")
        time.sleep(POLL)
    return answers


def _wait_all(done: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise ControlPlaneError(f"not {what} after {timeout:.0f} s")
        time.sleep(POLL)


def _delete(api: RestKubeApi, objects: CaseObjects) -> None:
    """The Workload first (its quota and TAS usage go), then everything else; finalizers held by
    Kueue are released by Kueue once nothing uses the queue or flavor."""
    for resource, namespace, name in _created(objects):
        # best effort: a leftover of a finished case holds no capacity another case uses
        with suppress(KubeApiError):
            api.delete(resource, name, namespace)


def _created(objects: CaseObjects) -> Iterator[tuple[Resource, str | None, str]]:
    yield WORKLOADS, NAMESPACE, objects.key
    for resource, obj in reversed(objects.infrastructure):
        yield resource, obj["metadata"].get("namespace"), obj["metadata"]["name"]
