"""Shared fixtures: a small GPU cluster in a store, a manual clock, and Kueue Job specs.

b1 ── r1 ── x1 (2 gpu)  x2 (2 gpu)  x3 (2 gpu)
   └─ r2 ── x4 (2 gpu)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from builders import BLOCK, GPU, HOST, RACK, node
from toposched.intake.parse import parse_documents
from toposched.model import Node, Topology
from toposched.scheduler import ManualClock, Scheduler, SchedulerConfig
from toposched.store import MemoryStore, Store

TOPOLOGY = Topology.create("default", [BLOCK, RACK, HOST])
RACKS = {"x1": "r1", "x2": "r1", "x3": "r1", "x4": "r2"}


def cluster_nodes(racks: dict[str, str] | None = None, gpus: int = 2) -> list[Node]:
    return [
        node(name).at(block="b1", rack=rack).alloc(gpu=gpus, cpu=8).build()
        for name, rack in (racks or RACKS).items()
    ]


def job(
    name: str,
    pods: int,
    *,
    gpu: int = 1,
    required: str | None = RACK,
    tolerations: Sequence[str] = (),
) -> list[Any]:
    """A Kueue-annotated batch Job of ``pods`` pods, each requesting ``gpu`` GPUs, parsed as the
    service's edge parses a submission. ``tolerations`` are YAML flow mappings, e.g.
    ``{key: k, operator: Exists, effect: NoExecute}``."""
    annotation = f"\n        kueue.x-k8s.io/podset-required-topology: {required}" if required else " {}"
    tols = "".join(f"\n      - {t}" for t in tolerations)
    tol_block = f"\n      tolerations:{tols}" if tolerations else ""
    return parse_documents(
        f"""apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
spec:
  parallelism: {pods}
  completions: {pods}
  completionMode: Indexed
  template:
    metadata:
      annotations:{annotation}
    spec:{tol_block}
      containers:
      - name: main
        image: busybox
        resources:
          requests:
            {GPU}: "{gpu}"
""",
        source="spec",
    )


class Env:
    """A scheduler over a store holding the test cluster, with its clock."""

    def __init__(
        self, store: Store | None = None, config: SchedulerConfig | None = None, *, seed: bool = True
    ) -> None:
        self.store = store or MemoryStore()
        self.clock = ManualClock(1000.0)
        if seed and not self.store.get_nodes():
            self.store.put_nodes(cluster_nodes())
            self.store.put_topology(TOPOLOGY)
        self.sched = Scheduler(self.store, self.clock, config or SchedulerConfig())

    def submit(self, spec: list[Any], owner: str = "alice", priority: int = 0) -> int:
        return self.sched.submit(spec, owner=owner, priority=priority).id

    def nodes_of(self, workload: int) -> dict[str, str]:
        placement = self.sched.get(workload).placement
        return {p["name"]: p["node"] for p in placement["pods"]}

    def events(self, workload: int) -> list[str]:
        return [e.type for e in self.store.list_events(workload=workload)]


@pytest.fixture
def env() -> Env:
    return Env()
