"""toposched's engine alone on the throughput stream: the scheduler the ungater runs (an in-memory
store, the kube front end, one admission cycle), fed the stream's nodes and gangs directly, with
no API server. Set beside the controller's figures, it shows the API server's share.

Each gang is submitted as the controller submits a whole gang (its PodGroup and pods as written)
and placed by one cycle before the next gang comes: a gang's latency is its submit and cycle.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from tests.realkube.sidebyside.cluster import NodeSpec
from tests.realkube.sidebyside.stream import Measured, StreamGang, podgroup, pods_of

from toposched.intake.cluster import cluster_from_objects
from toposched.model import Cluster
from toposched.scheduler import Scheduler, SystemClock
from toposched.store import MemoryStore

NAME = "toposched engine"
OWNER = "throughput-bench"


def node_object(node: NodeSpec) -> dict[str, Any]:
    """The Node as the API server holds it once its status is written and its taints settled."""
    obj = node.node()
    taints = node.lifecycle_taints()
    return {**obj, "spec": {**obj["spec"], **({"taints": taints} if taints else {})}, "status": node.status()}


def gang_documents(gang: StreamGang) -> list[dict[str, Any]]:
    """What the ungater submits for a whole gang: its PodGroup, then its pods."""
    group = {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", **podgroup(gang)}
    return [group, *({"apiVersion": "v1", "kind": "Pod", **pod} for pod in pods_of(gang))]


def measure_engine(nodes: Sequence[NodeSpec], gangs: Sequence[StreamGang]) -> Measured:
    """The stream placed gang after gang by the scheduler alone."""
    scheduler = Scheduler(MemoryStore(), SystemClock())
    cluster, _ = cluster_from_objects([node_object(n) for n in nodes], source="throughput-bench")
    scheduler.import_cluster(Cluster.create(cluster.nodes, cluster.pods))
    result = Measured(NAME, 0, 0, 0.0)
    start = time.monotonic()
    for gang in gangs:
        began = time.monotonic()
        record = scheduler.submit(gang_documents(gang), owner=OWNER, kind="kube")
        admitted = record.id in scheduler.cycle().admitted
        if not admitted:
            result.unplaced += 1
            continue
        result.latencies.append(time.monotonic() - began)
        result.pods += gang.pods
        result.gangs += 1
    result.seconds = time.monotonic() - start
    return result
