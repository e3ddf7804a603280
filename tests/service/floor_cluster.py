"""A generated 10,368-node cluster for the page's tests and ``bench/page.py``: 144 NVL72 racks of
72 nodes (2 zones x 8 blocks x 9 racks), 4 GPUs a node, with one node in each state the floor
draws (``SPECIAL``) and the jobs that book nodes fully and partly."""

from __future__ import annotations

import json
from typing import Any

from toposched.model import Taint, TaintEffect, Topology
from toposched.wire.core import list_object, node_object, pod_object
from toposched.wire.kueue import topology_object

ZONE, BLOCK, RACK, HOST = (
    "topology.kubernetes.io/zone",
    "cloud.provider.com/topology-block",
    "cloud.provider.com/topology-rack",
    "kubernetes.io/hostname",
)
SHAPE = (2, 8, 9, 72)  # zones, blocks per zone, racks per block, nodes per rack
NODES = SHAPE[0] * SHAPE[1] * SHAPE[2] * SHAPE[3]
GPUS = 4
SPECIAL = {  # node -> what makes it look different on the floor
    "z0-b0-r0-n01": "cordoned",
    "z0-b0-r0-n02": "NotReady",
    "z0-b0-r0-n03": "tainted",
    "z0-b0-r0-n04": "no GPUs",
    "z0-b0-r0-n05": "all 4 GPUs used by a pod toposched did not place",
    "z0-b0-r0-n06": "2 GPUs used by a pod toposched did not place",
}


def node_name(zone: int, block: int, rack: int, node: int) -> str:
    return f"z{zone}-b{block}-r{rack}-n{node:02d}"


def cluster_json() -> str:
    """The cluster as a ``v1 List`` in JSON (which the YAML reader reads too, fastest)."""
    zones, blocks, racks, nodes = SHAPE
    items: list[dict[str, Any]] = []
    gpu = {"cpu": "128", "memory": "1Ti", "nvidia.com/gpu": str(GPUS), "pods": "110"}
    for z in range(zones):
        for b in range(blocks):
            for r in range(racks):
                for n in range(nodes):
                    name = node_name(z, b, r, n)
                    labels = {ZONE: f"z{z}", BLOCK: f"z{z}-b{b}", RACK: f"z{z}-b{b}-r{r}", HOST: name}
                    special = SPECIAL.get(name, "")
                    items.append(
                        node_object(
                            name,
                            labels,
                            {"cpu": "128", "memory": "1Ti", "pods": "110"} if special == "no GPUs" else gpu,
                            unschedulable=special == "cordoned",
                            ready=special != "NotReady",
                            taints=[Taint("maintenance", "soon", TaintEffect.NO_SCHEDULE)]
                            if special == "tainted"
                            else (),
                        )
                    )
    for node, gpus in (("z0-b0-r0-n05", 4), ("z0-b0-r0-n06", 2)):
        spec = {"containers": [{"name": "c", "resources": {"requests": {"nvidia.com/gpu": str(gpus)}}}]}
        items.append(pod_object(f"notebook-{node}", "lab", spec=spec, node_name=node, phase="Running"))
    items.append(
        topology_object(Topology.create("default", (ZONE, BLOCK, RACK, HOST)), "kueue.x-k8s.io/v1beta1")
    )
    return json.dumps(list_object(items))


def job_yaml(name: str, pods: int, gpus: int, *, zone: str | None = None) -> str:
    """A Kueue Job of ``pods`` pods of ``gpus`` GPUs in one rack (of ``zone``, when given)."""
    selector = f"\n      nodeSelector: {{{ZONE}: {zone}}}" if zone is not None else ""
    return f"""apiVersion: batch/v1
kind: Job
metadata: {{name: {name}, namespace: research}}
spec:
  parallelism: {pods}
  completions: {pods}
  completionMode: Indexed
  template:
    metadata:
      annotations: {{kueue.x-k8s.io/podset-required-topology: {RACK}}}
    spec:{selector}
      restartPolicy: Never
      containers:
      - name: main
        image: registry.example.com/trainer:2.3
        resources:
          requests: {{cpu: "8", nvidia.com/gpu: "{gpus}"}}
          limits: {{nvidia.com/gpu: "{gpus}"}}
"""
