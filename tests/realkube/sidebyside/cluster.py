"""Generated clusters: labelled zone / block / rack / host, mixed allocatable, some nodes tainted,
cordoned or NotReady, some partly used by pods already bound to them.

A node is plain data (``NodeSpec``) and becomes three writes on the API server (``objects``):
the Node, its status (Ready condition, capacity, allocatable) through the status subresource as a
kubelet writes it, and its taints as kube-controller-manager's node lifecycle controller keeps
them (it does not run here): the API server's admission taints every new node
``node.kubernetes.io/not-ready:NoSchedule``; the controller lifts that from a Ready node, keeps it
(and adds the NoExecute one) on a NotReady node, and taints a cordoned node
``node.kubernetes.io/unschedulable:NoSchedule``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

ZONE = "example.com/zone"
BLOCK = "example.com/block"
RACK = "example.com/rack"
HOST = "kubernetes.io/hostname"
ACCELERATOR = "example.com/accelerator"  # "gpu" on nodes with GPUs
GPU = "nvidia.com/gpu"
DEDICATED = "example.com/dedicated"  # NoSchedule taint some gangs tolerate
DEGRADED = "example.com/degraded"  # PreferNoSchedule taint
CASE_LABEL = "toposched.test/case"  # on every node of a case: deleted together
MAX_NODES = 64  # below kube-scheduler's 100: it scores every feasible node (percentageOfNodesToScore)

# (cpu, memory, GPUs): the shapes a rack's nodes take.
SHAPES = (
    ("4", "16Gi", 0),
    ("8", "32Gi", 0),
    ("16", "64Gi", 0),
    ("16", "128Gi", 4),
    ("32", "128Gi", 8),
    ("64", "256Gi", 8),
)
GIB = 1024**3


@dataclass(frozen=True, slots=True)
class NodeSpec:
    name: str
    labels: dict[str, str]
    cpu: int  # cores
    memory: int  # GiB
    gpus: int
    taints: tuple[dict[str, str], ...] = ()
    cordoned: bool = False
    ready: bool = True

    def node(self) -> dict[str, Any]:
        """The Node as created (the API server adds its not-ready taint)."""
        spec: dict[str, Any] = {"unschedulable": True} if self.cordoned else {}
        return {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": self.name, "labels": self.labels},
            "spec": spec,
        }

    def status(self) -> dict[str, Any]:
        """What a kubelet reports: capacity, allocatable and the Ready condition."""
        amounts = {"cpu": str(self.cpu), "memory": f"{self.memory}Gi", "pods": "110"}
        if self.gpus:
            amounts[GPU] = str(self.gpus)
        ready = {
            "type": "Ready",
            "status": "True" if self.ready else "False",
            "reason": "KubeletReady" if self.ready else "KubeletNotReady",
            "message": "generated",
        }
        return {"capacity": amounts, "allocatable": amounts, "conditions": [ready]}

    def lifecycle_taints(self) -> list[dict[str, str]]:
        """The taints once the node lifecycle controller has seen the node."""
        taints = [dict(t) for t in self.taints]
        if not self.ready:
            taints += [
                {"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"},
                {"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"},
            ]
        if self.cordoned:
            taints.append({"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"})
        return taints


@dataclass(frozen=True, slots=True)
class ClusterSpec:
    nodes: tuple[NodeSpec, ...]
    bound: tuple[dict[str, Any], ...]  # pods with spec.nodeName, in the case's namespace
    notes: tuple[str, ...] = field(default=())

    @property
    def has_gpus(self) -> bool:
        return any(n.gpus for n in self.nodes)


def generate_cluster(rng: random.Random, prefix: str, namespace: str) -> ClusterSpec:
    """A cluster of up to ``MAX_NODES`` nodes named ``<prefix>-...``."""
    nodes: list[NodeSpec] = []
    notes: list[str] = []
    short_racks = rng.random() < 0.1  # rack values repeat across blocks: one placement each
    if short_racks:
        notes.append("rack names repeat across blocks")
    for z in range(1, rng.choice((1, 2, 2, 3)) + 1):
        for b in range(1, rng.choice((1, 2, 2)) + 1):
            for r in range(1, rng.choice((1, 2, 3)) + 1):
                shape = rng.choice(SHAPES)
                for n in range(1, rng.choice((1, 2, 3, 4)) + 1):
                    if len(nodes) >= MAX_NODES:
                        break
                    mixed = rng.choice(SHAPES) if rng.random() < 0.2 else shape
                    rack = f"r{r}" if short_racks else f"z{z}-b{b}-r{r}"
                    nodes.append(_node(rng, f"{prefix}-z{z}b{b}r{r}n{n}", z, b, rack, mixed))
    bound = tuple(pod for node in nodes for pod in _bound_pods(rng, node, namespace))
    return ClusterSpec(tuple(nodes), bound, tuple(notes))


def _node(rng: random.Random, name: str, z: int, b: int, rack: str, shape: tuple[str, str, int]) -> NodeSpec:
    cpu, memory, gpus = int(shape[0]), int(shape[1].removesuffix("Gi")), shape[2]
    labels = {ZONE: f"z{z}", BLOCK: f"z{z}-b{b}", RACK: rack, HOST: name, CASE_LABEL: name.split("-")[0]}
    if gpus:
        labels[ACCELERATOR] = "gpu"
    if rng.random() < 0.03:
        del labels[rng.choice((RACK, BLOCK))]  # outside every placement of that key
    taints: list[dict[str, str]] = []
    if rng.random() < 0.08:
        taints.append({"key": DEDICATED, "value": "infer", "effect": "NoSchedule"})
    if rng.random() < 0.03:
        taints.append({"key": DEGRADED, "value": "true", "effect": "PreferNoSchedule"})
    return NodeSpec(
        name,
        labels,
        cpu,
        memory,
        gpus,
        tuple(taints),
        cordoned=rng.random() < 0.04,
        ready=rng.random() >= 0.04,
    )


def _bound_pods(rng: random.Random, node: NodeSpec, namespace: str) -> list[dict[str, Any]]:
    """0-3 pods already running on ``node``, each taking a share of it."""
    if rng.random() >= 0.35:
        return []
    pods = []
    for i in range(rng.choice((1, 1, 2, 3))):
        share = rng.choice((0.1, 0.25, 0.25, 0.5))
        requests = {"cpu": f"{max(1, int(node.cpu * 1000 * share))}m"}
        if rng.random() < 0.8:  # else no memory request: kube-scheduler's scores count 200Mi
            requests["memory"] = f"{max(1, int(node.memory * 1024 * share))}Mi"
        if node.gpus and rng.random() < 0.6:
            requests[GPU] = str(max(1, int(node.gpus * share)))
        pods.append(bound_pod(f"{node.name}-used{i}", namespace, node.name, requests))
    return pods


def bound_pod(name: str, namespace: str, node: str, requests: dict[str, str]) -> dict[str, Any]:
    """A pod already on ``node`` (created with ``spec.nodeName``: the scheduler never sees it pending)."""
    limits = {k: v for k, v in requests.items() if k == GPU}
    resources: dict[str, Any] = {"requests": requests, **({"limits": limits} if limits else {})}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "nodeName": node,
            "tolerations": [{"operator": "Exists"}],
            "containers": [{"name": "app", "image": "registry.example/app:1", "resources": resources}],
        },
    }
