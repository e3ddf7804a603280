"""Small cluster dumps and workload specs for the API and service tests.

The cluster (default shape)::

    zone z1
    ├── block b1
    │   ├── rack b1-r1: b1-r1-n1 .. b1-r1-n4   (8 GPUs each)
    │   └── rack b1-r2: b1-r2-n1 .. b1-r2-n4
    └── block b2
        ├── rack b2-r1: ...
        └── rack b2-r2: ...
"""

from __future__ import annotations

ZONE = "topology.kubernetes.io/zone"
BLOCK = "cloud.provider.com/topology-block"
RACK = "cloud.provider.com/topology-rack"
HOST = "kubernetes.io/hostname"


def node_names(blocks: int = 2, racks: int = 2, nodes: int = 4) -> list[str]:
    return [
        f"b{b}-r{r}-n{n}"
        for b in range(1, blocks + 1)
        for r in range(1, racks + 1)
        for n in range(1, nodes + 1)
    ]


def cluster_yaml(blocks: int = 2, racks: int = 2, nodes: int = 4, gpus: int = 8) -> str:
    """Nodes plus one Kueue Topology ``default`` (zone, block, rack, hostname)."""
    docs = []
    for name in node_names(blocks, racks, nodes):
        block, rack = name.split("-")[0], "-".join(name.split("-")[:2])
        docs.append(
            f"""apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels: {{{ZONE}: z1, {BLOCK}: {block}, {RACK}: {rack}, {HOST}: {name}}}
status:
  allocatable: {{cpu: '64', memory: 512Gi, nvidia.com/gpu: '{gpus}', pods: '110'}}
  conditions:
  - {{type: Ready, status: 'True'}}
"""
        )
    docs.append(
        f"""apiVersion: kueue.x-k8s.io/v1beta1
kind: Topology
metadata: {{name: default}}
spec:
  levels:
  - {{nodeLabel: {ZONE}}}
  - {{nodeLabel: {BLOCK}}}
  - {{nodeLabel: {RACK}}}
  - {{nodeLabel: {HOST}}}
"""
    )
    return "---\n".join(docs)


def job_yaml(name: str = "train", pods: int = 2, gpus: int = 4, level: str = RACK) -> str:
    """A Kueue-annotated indexed Job: ``pods`` pods of ``gpus`` GPUs, required in one ``level`` domain."""
    return f"""apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  namespace: research
  labels:
    kueue.x-k8s.io/queue-name: gpu-queue
spec:
  parallelism: {pods}
  completions: {pods}
  completionMode: Indexed
  template:
    metadata:
      annotations:
        kueue.x-k8s.io/podset-required-topology: {level}
    spec:
      restartPolicy: Never
      containers:
      - name: trainer
        image: trainer:1
        resources:
          requests:
            cpu: "1"
            nvidia.com/gpu: "{gpus}"
"""
