"""Cluster objects for the controller's tests, put into a ``FakeKubeApi``.

The cluster: zone z, racks of three nodes (r0: n0-n2, r1: n3-n5), 8 GPUs per node::

               z
           /       \\
         r0         r1
       / | \\      / | \\
     n0 n1 n2   n3 n4 n5
"""

from __future__ import annotations

from typing import Any

from tests.controller.fake_kube import FakeKubeApi

from toposched.controller.keys import GATE
from toposched.controller.kubeapi import KUEUE_TOPOLOGIES, NODES, PODS
from toposched.controller.podwrites import DEFAULT_CONCURRENCY
from toposched.controller.records import PodRecord, batch_of, record_of, uid_of
from toposched.controller.ungater_controller import UngaterController
from toposched.model import Taint, Topology
from toposched.scheduler import ManualClock, Scheduler, SchedulerConfig
from toposched.store import MemoryStore
from toposched.wire.core import node_object, pod_object
from toposched.wire.kueue import topology_object
from toposched.wire.scheduling import (
    V1ALPHA3,
    CompositePodGroup,
    PodGroup,
    PodGroupTemplate,
    scheduling_group,
)

ZONE, RACK, HOST = "topology.kubernetes.io/zone", "example.com/rack", "kubernetes.io/hostname"
TOPOLOGY = Topology.create("default", [ZONE, RACK, HOST])


def node(i: int, *, ready: bool = True, taints: tuple[Taint, ...] = ()) -> dict[str, Any]:
    labels = {ZONE: "z", RACK: f"r{i // 3}", HOST: f"n{i}"}
    return node_object(
        f"n{i}", labels, {"nvidia.com/gpu": "8", "cpu": "64", "pods": "110"}, ready=ready, taints=taints
    )


def trainer(gpus: int) -> dict[str, Any]:
    """The pods' one container: GPUs are an extended resource, so its limit equals its request
    (the API server refuses a request without it)."""
    gpu = {"nvidia.com/gpu": str(gpus)}
    return {"name": "main", "image": "trainer", "resources": {"requests": gpu, "limits": dict(gpu)}}


def kueue_pod(
    name: str, group: str = "g", total: int = 2, *, level: str = RACK, gpus: int = 8
) -> dict[str, Any]:
    """A gated pod of a Kueue pod group requiring one ``level`` domain."""
    return pod_object(
        name,
        "default",
        labels={"kueue.x-k8s.io/pod-group-name": group},
        annotations={
            "kueue.x-k8s.io/pod-group-total-count": str(total),
            "kueue.x-k8s.io/podset-required-topology": level,
        },
        spec={
            "schedulingGates": [{"name": GATE}],
            "containers": [trainer(gpus)],
        },
        phase="Pending",
    )


def cluster(nodes: int = 6) -> FakeKubeApi:
    api = FakeKubeApi()
    api.put(KUEUE_TOPOLOGIES, topology_object(TOPOLOGY))
    for i in range(nodes):
        api.put(NODES, node(i))
    return api


def controller(
    api: FakeKubeApi,
    clock: ManualClock | None = None,
    *,
    topology: str | None = None,
    write_concurrency: int = DEFAULT_CONCURRENCY,
    **config: Any,
) -> UngaterController:
    """An ungater on ``api`` (``topology``: its ``--topology``, the default of gangs naming none)."""
    clock = clock or ManualClock(1000.0)
    scheduler = Scheduler(MemoryStore(history=False), clock, SchedulerConfig(**config))  # as app.py
    return UngaterController(api, scheduler, clock, topology=topology, write_concurrency=write_concurrency)


def pod(api: FakeKubeApi, name: str) -> dict[str, Any]:
    return api.obj(PODS, name, "default")


def records_read(pods: list[dict[str, Any]]) -> dict[str, PodRecord | None]:
    """Each pod's record as a restarted controller reads it: its own, else the one a batch on
    another pod of the list holds for it (by uid)."""
    batched: dict[str, PodRecord] = {}
    for one in pods:
        batched.update(batch_of(one))
    return {str(p["metadata"]["name"]): record_of(p) or batched.get(uid_of(p)) for p in pods}


def bind(api: FakeKubeApi, name: str, *, phase: str = "Running") -> None:
    """What kube-scheduler and the kubelet do to an ungated pod: bind it where its selector says."""
    current = pod(api, name)
    selector = current["spec"].get("nodeSelector", {})
    current["spec"]["nodeName"] = selector.get(HOST, "n0")
    current["status"] = {"phase": phase}
    api.put(PODS, current)


def kai_podgroup(
    name: str = "pg", min_member: int = 2, *, level: str = RACK, topology: str = TOPOLOGY.name
) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.run.ai/v2alpha2",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "minMember": min_member,
            "queue": "default-queue",
            "topologyConstraint": {"topology": topology, "requiredTopologyLevel": level},
        },
    }


def kai_pod(name: str, group: str = "pg", *, gpus: int = 8) -> dict[str, Any]:
    """A gated pod of a KAI PodGroup (as KAI, OSMO and Grove annotate their pods)."""
    return pod_object(
        name,
        "default",
        labels={"kai.scheduler/queue": "default-queue"},
        annotations={"pod-group-name": group},
        spec={
            "schedulingGates": [{"name": GATE}],
            "containers": [trainer(gpus)],
        },
        phase="Pending",
    )


def kube_podgroup(
    name: str = "workers", min_count: int | None = 3, *, key: str | None = RACK
) -> dict[str, Any]:
    """An upstream ``scheduling.k8s.io`` PodGroup (``min_count`` None: the basic policy; ``key``
    None: no topology constraint)."""
    return PodGroup(PodGroupTemplate(name, min_count=min_count, key=key)).to_object()


def kube_child(name: str, parent: str, min_count: int | None, *, key: str | None = None) -> dict[str, Any]:
    """A ``v1alpha3`` PodGroup under the CompositePodGroup ``parent``, stamped from Workload
    ``train`` (the API server asks a PodGroup with a parent for its workloadRef)."""
    settings = PodGroupTemplate(name, min_count=min_count, key=key)
    return PodGroup(settings, workload="train", template=name, parent=parent).to_object(V1ALPHA3)


def kube_composite(
    name: str = "train", min_group_count: int | None = 2, *, key: str = RACK
) -> dict[str, Any]:
    """A root CompositePodGroup (``min_group_count`` None: the basic policy) of Workload ``train``."""
    return CompositePodGroup(
        name, min_group_count=min_group_count, key=key, workload="train", template=name
    ).to_object()


def kube_pod(name: str, group: str = "workers", *, gpus: int = 8) -> dict[str, Any]:
    """A gated pod naming its upstream PodGroup by ``spec.schedulingGroup``."""
    return pod_object(
        name,
        "default",
        spec={
            "schedulingGates": [{"name": GATE}],
            "schedulingGroup": scheduling_group(group),
            "containers": [trainer(gpus)],
        },
        phase="Pending",
    )
