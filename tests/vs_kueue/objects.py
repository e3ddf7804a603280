"""A generated case as the Kubernetes and Kueue objects Kueue reads: Nodes (status with allocatable
and the Ready condition, as a kubelet would register them), bound Pods for the capacity other
workloads use, and per case a Topology, a ResourceFlavor selecting the case's nodes, a
ClusterQueue with ample quota, a LocalQueue and the Workload.

Each case gets its own names and node label (``vs-kueue/case``), so the cases of a batch are
admitted side by side without sharing capacity: Kueue's TAS cache builds one tree per flavor from
the nodes its ``nodeLabels`` select."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tests.vs_kueue.cases import GPU

from toposched.controller.kubeapi import Resource

CASE_LABEL = "vs-kueue/case"
NAMESPACE = "vs-kueue"  # Workloads and LocalQueues
USED_NAMESPACE = "vs-kueue-used"  # Pods of other workloads
KUEUE = "kueue.x-k8s.io"
QUOTA = "100000"  # far above any case: quota never decides

NODES = Resource("", "v1", "nodes", "Node", namespaced=False)
PODS = Resource("", "v1", "pods", "Pod")
TOPOLOGIES = Resource(KUEUE, "v1beta2", "topologies", "Topology", namespaced=False)
FLAVORS = Resource(KUEUE, "v1beta2", "resourceflavors", "ResourceFlavor", namespaced=False)
CLUSTER_QUEUES = Resource(KUEUE, "v1beta2", "clusterqueues", "ClusterQueue", namespaced=False)
LOCAL_QUEUES = Resource(KUEUE, "v1beta2", "localqueues", "LocalQueue")
WORKLOADS = Resource(KUEUE, "v1beta2", "workloads", "Workload")


@dataclass(frozen=True, slots=True)
class CaseObjects:
    """Everything one case creates, in creation order, with the resource each goes to."""

    key: str  # names the case's objects and its node label value
    infrastructure: tuple[tuple[Resource, dict[str, Any]], ...]
    workload: dict[str, Any]


def case_objects(case: Mapping[str, Any], key: str) -> CaseObjects:
    infrastructure: list[tuple[Resource, dict[str, Any]]] = []
    for node in case["nodes"]:
        infrastructure.append((NODES, _node(node, key)))
        infrastructure += [(PODS, pod) for pod in _used_pods(node, key)]
    resources = sorted({"cpu", "memory", GPU})
    infrastructure += [
        (
            TOPOLOGIES,
            _object(
                TOPOLOGIES, key, {"levels": [{"nodeLabel": level} for level in case["topology"]["levels"]]}
            ),
        ),
        (FLAVORS, _object(FLAVORS, key, {"nodeLabels": {CASE_LABEL: key}, "topologyName": key})),
        (
            CLUSTER_QUEUES,
            _object(
                CLUSTER_QUEUES,
                key,
                {
                    "namespaceSelector": {},
                    "resourceGroups": [
                        {
                            "coveredResources": resources,
                            "flavors": [
                                {
                                    "name": key,
                                    "resources": [{"name": r, "nominalQuota": QUOTA} for r in resources],
                                }
                            ],
                        }
                    ],
                },
            ),
        ),
        (LOCAL_QUEUES, _object(LOCAL_QUEUES, key, {"clusterQueue": key}, NAMESPACE)),
    ]
    workload = _object(
        WORKLOADS, key, {"queueName": key, "podSets": [_podset(p) for p in case["podSets"]]}, NAMESPACE
    )
    return CaseObjects(key, tuple(infrastructure), workload)


def node_name(key: str, name: str) -> str:
    return f"{key}-{name}"


def _object(
    resource: Resource, name: str, spec: dict[str, Any], namespace: str | None = None
) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "labels": {CASE_LABEL: name}}
    if namespace:
        metadata["namespace"] = namespace
    return {"apiVersion": resource.api_version, "kind": resource.kind, "metadata": metadata, "spec": spec}


def _node(node: Mapping[str, Any], key: str) -> dict[str, Any]:
    """The node under the name ``<key>-<name>``; a hostname label is renamed with it (it names the
    node in Kueue's assignments, and node names are cluster-wide)."""
    labels = {k: node_name(key, v) if k == "kubernetes.io/hostname" else v for k, v in node["labels"].items()}
    labels[CASE_LABEL] = key
    spec: dict[str, Any] = {}
    if node.get("taints"):
        spec["taints"] = [dict(t) for t in node["taints"]]
    if node.get("unschedulable"):
        spec["unschedulable"] = True
    ready = "True" if node.get("ready", True) else "False"
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": node_name(key, node["name"]), "labels": labels},
        "spec": spec,
        "status": {
            "capacity": dict(node["allocatable"]),
            "allocatable": dict(node["allocatable"]),
            "conditions": [{"type": "Ready", "status": ready, "reason": "VsKueue", "message": "generated"}],
        },
    }


def _used_pods(node: Mapping[str, Any], key: str) -> list[dict[str, Any]]:
    """``used`` as bound pods, the way the conformance runner reads it: the first pod carries the
    requests, the others only take a pod slot."""
    used = node.get("used") or {}
    count = int(used.get("pods", 0))
    requests = {k: v for k, v in used.items() if k != "pods"}
    pods = []
    for i in range(count):
        container: dict[str, Any] = {"name": "c", "image": "pause"}
        if i == 0 and requests:
            container["resources"] = {"requests": dict(requests), "limits": _limits(requests)}
        pods.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {
                    "name": f"{node_name(key, node['name'])}-used-{i}",
                    "namespace": USED_NAMESPACE,
                    "labels": {CASE_LABEL: key},
                },
                "spec": {"nodeName": node_name(key, node["name"]), "containers": [container]},
            }
        )
    return pods


def _limits(requests: Mapping[str, str]) -> dict[str, str]:
    """Extended resources must have limits equal to their requests."""
    return {k: v for k, v in requests.items() if k not in ("cpu", "memory")}


def _podset(podset: Mapping[str, Any]) -> dict[str, Any]:
    requests = dict(podset["requests"])
    container: dict[str, Any] = {"name": "c", "image": "pause", "resources": {"requests": requests}}
    if _limits(requests):
        container["resources"]["limits"] = _limits(requests)
    pod_spec: dict[str, Any] = {"containers": [container], "restartPolicy": "Never"}
    if podset.get("tolerations"):
        pod_spec["tolerations"] = [dict(t) for t in podset["tolerations"]]
    if podset.get("nodeSelector"):
        pod_spec["nodeSelector"] = dict(podset["nodeSelector"])
    out: dict[str, Any] = {"name": podset["name"], "count": podset["count"], "template": {"spec": pod_spec}}
    request = podset.get("topologyRequest")
    if request:
        out["topologyRequest"] = _topology_request(request)
    return out


def _topology_request(request: Mapping[str, Any]) -> dict[str, Any]:
    """The conformance format's names for Kueue's PodSetTopologyRequest fields."""
    out: dict[str, Any] = {}
    for ours, theirs in (
        ("required", "required"),
        ("preferred", "preferred"),
        ("unconstrained", "unconstrained"),
        ("sliceRequired", "podSetSliceRequiredTopology"),
        ("sliceSize", "podSetSliceSize"),
        ("podSetGroup", "podSetGroupName"),
    ):
        if ours in request:
            out[theirs] = request[ours]
    if request.get("sliceConstraints"):
        out["podsetSliceRequiredTopologyConstraints"] = [dict(c) for c in request["sliceConstraints"]]
    return out
