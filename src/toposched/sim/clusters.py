"""Clusters to replay on: generated NVL72 or DGX shapes, or any ``kubectl`` dump.

A ``--cluster`` value is one of::

    nvl72:racks=32[,racks_per_block=8,blocks_per_zone=2]
        zone / block / rack / host; racks of 18 nodes x 4 GPUs (GB200 NVL72)
    dgx:racks=16[,nodes_per_rack=4,racks_per_spine=8]
        spine / rack / host; 8 GPUs per node (DGX H100 SuperPOD style)
    PATH   a cluster dump (``kubectl get nodes,pods,topologies -o yaml``) with one topology

Generated clusters are built as the Node and Topology objects a dump would hold, as JSON, and
read by the same cluster loader, so every cluster the simulator sees went through the one parser.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from toposched.intake.cluster import load_cluster_report
from toposched.intake.parse import CLUSTER_DUMP_LIMITS, read_file
from toposched.model import HOSTNAME, Cluster, Problem, SpecError, Topology
from toposched.wire.core import list_object, node_object
from toposched.wire.kueue import topology_object

GPU = "nvidia.com/gpu"
ZONE = "topology.kubernetes.io/zone"
BLOCK = "cloud.provider.com/topology-block"
RACK = "cloud.provider.com/topology-rack"
SPINE = "cloud.provider.com/topology-spine"

Generator = Callable[[Mapping[str, int]], list[dict[str, Any]]]


def _nvl72(params: Mapping[str, int]) -> list[dict[str, Any]]:
    racks, per_block, per_zone = params["racks"], params["racks_per_block"], params["blocks_per_zone"]
    allocatable = {"cpu": "144", "memory": "884Gi", GPU: "4", "pods": "110"}
    items = []
    for r in range(racks):
        block = r // per_block
        zone, rack = f"z{block // per_zone + 1}", f"r{r + 1:03d}"
        for n in range(1, 19):
            name = f"{rack}-n{n:02d}"
            labels = {ZONE: zone, BLOCK: f"{zone}-b{block + 1}", RACK: rack, HOSTNAME: name}
            items.append(node_object(name, labels, allocatable))
    items.append(topology_object(Topology.create("default", (ZONE, BLOCK, RACK, HOSTNAME))))
    return items


def _dgx(params: Mapping[str, int]) -> list[dict[str, Any]]:
    racks, per_rack, per_spine = params["racks"], params["nodes_per_rack"], params["racks_per_spine"]
    allocatable = {"cpu": "224", "memory": "2Ti", GPU: "8", "pods": "110"}
    items = []
    for r in range(racks):
        rack = f"r{r + 1:03d}"
        for n in range(1, per_rack + 1):
            name = f"{rack}-n{n:02d}"
            labels = {SPINE: f"s{r // per_spine + 1}", RACK: rack, HOSTNAME: name}
            items.append(node_object(name, labels, allocatable))
    items.append(topology_object(Topology.create("default", (SPINE, RACK, HOSTNAME))))
    return items


# Generator, its parameters with their defaults (None = required).
SHAPES: dict[str, tuple[Generator, dict[str, int | None]]] = {
    "nvl72": (_nvl72, {"racks": None, "racks_per_block": 8, "blocks_per_zone": 2}),
    "dgx": (_dgx, {"racks": None, "nodes_per_rack": 4, "racks_per_spine": 8}),
}
MAX_GENERATED_NODES = 100_000


def load_sim_cluster(spec: str) -> Cluster:
    """The cluster ``spec`` describes (see the module docstring); ``SpecError`` naming the
    parameter or file at fault."""
    shape, _, rest = spec.partition(":")
    if shape in SHAPES:
        generate, defaults = SHAPES[shape]
        dump = json.dumps(list_object(generate(_parameters(shape, rest, defaults))))
        cluster, _ = load_cluster_report(dump, source=shape)
    else:
        text = read_file(spec, what="cluster dump", limits=CLUSTER_DUMP_LIMITS)
        cluster, _ = load_cluster_report(text, source=spec)
    cluster.topology()  # exactly one topology: NotFoundError naming the ones there are
    return cluster


def total_gpus(cluster: Cluster) -> int:
    """GPUs of every node of the cluster."""
    return sum(n.allocatable.get(GPU, 0) for n in cluster.nodes)


def largest_domain_gpus(cluster: Cluster, level: str | None) -> int:
    """GPUs of the largest domain of ``level`` (the whole cluster when None)."""
    if level is None:
        return total_gpus(cluster)
    per_domain: dict[str, int] = {}
    for n in cluster.nodes:
        key = n.labels.get(level, "")
        per_domain[key] = per_domain.get(key, 0) + n.allocatable.get(GPU, 0)
    return max(per_domain.values(), default=0)


def _parameters(shape: str, text: str, defaults: Mapping[str, int | None]) -> dict[str, int]:
    given: dict[str, int] = {}
    for part in filter(None, text.split(",")):
        key, _, text = part.partition("=")
        where = f"--cluster {shape}:{key}"
        if key not in defaults:
            raise SpecError([Problem(where, "unknown parameter", f"use {', '.join(defaults)}")])
        if not text.isdigit() or int(text) < 1:
            raise SpecError([Problem(where, f"{text!r} is not a positive whole number", "e.g. racks=32")])
        given[key] = int(text)
    out: dict[str, int] = {}
    for key, default in defaults.items():
        value = given.get(key, default)
        if value is None:
            raise SpecError([Problem(f"--cluster {shape}", f"{key} is required", f"e.g. {shape}:{key}=32")])
        out[key] = value
    nodes = out["racks"] * (18 if shape == "nvl72" else out["nodes_per_rack"])
    if nodes > MAX_GENERATED_NODES:
        raise SpecError([Problem(f"--cluster {shape}", f"{nodes} nodes", f"at most {MAX_GENERATED_NODES}")])
    return out
