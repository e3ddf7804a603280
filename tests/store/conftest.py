"""Fixtures for the store tests: every contract test runs against both implementations."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from toposched.model import Node, Resources, Taint, Topology
from toposched.store import EventRecord, MemoryStore, SqliteStore, Store, WorkloadRecord

RACK = "cloud.example.com/rack"
HOSTNAME = "kubernetes.io/hostname"


def gpu_node(name: str, gpus: int = 8, *, rack: str = "r1", pods: int = 110) -> Node:
    """A GPU node with 64 cores, 256Gi memory and ``gpus`` GPUs."""
    return Node.create(
        name,
        {RACK: rack, HOSTNAME: name},
        Resources({"cpu": 64_000, "memory": 256 * 2**30, "nvidia.com/gpu": gpus, "pods": pods}),
    )


def gpus(count: int, pods: int = 1) -> Resources:
    """What a workload books on one node: GPUs plus pod slots."""
    return Resources({"nvidia.com/gpu": count, "pods": pods})


def workload(
    name: str = "train", *, owner: str = "alice", priority: int = 0, topology: str = ""
) -> WorkloadRecord:
    return WorkloadRecord(
        name=name,
        kind="Job",
        owner=owner,
        spec=f"kind: Job\nmetadata:\n  name: {name}\n",
        priority=priority,
        topology=topology,
        submitted_at=1.5,
    )


def event(kind: str = "Admitted", message: str = "ok", time: float = 10.0) -> EventRecord:
    return EventRecord(type=kind, message=message, time=time, data={"by": "test"})


TOPOLOGY = Topology.create("default", [RACK, HOSTNAME], {"rack": RACK})
TAINT = Taint("nvidia.com/gpu", "present")


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """A fresh store with nodes n1 and n2 (8 GPUs each) and topology ``default``."""
    impl: Store = MemoryStore() if request.param == "memory" else SqliteStore(tmp_path / "state.db")
    impl.put_nodes([gpu_node("n1"), gpu_node("n2", rack="r2")])
    impl.put_topology(TOPOLOGY)
    yield impl
    impl.close()
