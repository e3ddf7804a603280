"""The worked examples of Kueue KEP-2724, as small clusters and Kueue Job YAML for the demo.

Capacities are written as in the KEP's balanced-placement table: nested lists, one level of
nesting per topology level, innermost numbers = pods a host can take (one GPU per pod). The
expected assignment has the same shape.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from toposched.model import HOSTNAME, Policy, Topology
from toposched.wire.core import node_object
from toposched.wire.kueue import topology_object

BLOCK = "cloud.provider.com/topology-block"
RACK = "cloud.provider.com/topology-rack"
REQUIRED = "kueue.x-k8s.io/podset-required-topology"
PREFERRED = "kueue.x-k8s.io/podset-preferred-topology"
SLICE_REQUIRED = "kueue.x-k8s.io/podset-slice-required-topology"
SLICE_SIZE = "kueue.x-k8s.io/podset-slice-size"
SLICE_CONSTRAINTS = "kueue.x-k8s.io/podset-slice-required-topology-constraints"
GPU = "nvidia.com/gpu"

Capacities = int | list["Capacities"]

_PREFIX = {BLOCK: "b", RACK: "r", HOSTNAME: "h"}


@dataclass(frozen=True, slots=True)
class Example:
    """One worked example: a cluster, a job, a policy and the assignment the KEP gives."""

    title: str
    kep: str  # what the KEP says about it
    levels: tuple[str, ...]
    capacities: Capacities
    count: int
    annotations: Mapping[str, str]
    policy: Policy
    expected: Capacities

    def cluster_yaml(self) -> str:
        return cluster_yaml(self.levels, self.capacities)

    def job_yaml(self) -> str:
        return job_yaml(self.count, self.annotations)


@dataclass(frozen=True, slots=True)
class ExampleTable:
    """A KEP table: several examples shown as rows."""

    title: str
    kep: str
    rows: tuple[Example, ...]


def host_names(levels: tuple[str, ...], capacities: Capacities) -> list[tuple[tuple[str, ...], int]]:
    """(label values per level, capacity) for every host, in the order the capacities list them."""
    out: list[tuple[tuple[str, ...], int]] = []

    def walk(node: Capacities, depth: int, name: str, values: tuple[str, ...]) -> None:
        if isinstance(node, int):
            out.append((values, node))
            return
        for i, child in enumerate(node, start=1):
            part = f"{_PREFIX.get(levels[depth], 'd')}{i}"
            full = f"{name}-{part}" if name else part
            walk(child, depth + 1, full, (*values, full))

    walk(capacities, 0, "", ())
    return out


def cluster_yaml(levels: tuple[str, ...], capacities: Capacities) -> str:
    """A multi-document stream of Nodes plus the Topology ``default``."""
    docs: list[dict[str, Any]] = []
    for values, capacity in host_names(levels, capacities):
        allocatable = {"cpu": "64", "memory": "256Gi", "pods": "110", GPU: str(capacity)}
        docs.append(node_object(values[-1], dict(zip(levels, values, strict=True)), allocatable))
    docs.append(topology_object(Topology.create("default", levels), "kueue.x-k8s.io/v1beta1"))
    return yaml.safe_dump_all(docs, sort_keys=False)


def job_yaml(count: int, annotations: Mapping[str, str]) -> str:
    """An indexed Kueue Job of ``count`` one-GPU pods with these PodSet annotations."""
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "kep-example", "namespace": "default"},
        "spec": {
            "parallelism": count,
            "completions": count,
            "completionMode": "Indexed",
            "template": {
                "metadata": {"annotations": dict(annotations)},
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [
                        {
                            "name": "worker",
                            "image": "registry.k8s.io/e2e-test-images/agnhost:2.53",
                            "resources": {"requests": {GPU: "1"}},
                        }
                    ],
                },
            },
        },
    }
    return yaml.safe_dump(job, sort_keys=False)


def assigned(levels: tuple[str, ...], capacities: Capacities, pods_per_node: Mapping[str, int]) -> Capacities:
    """Pods per host in the shape of ``capacities`` (node names as ``host_names`` makes them)."""
    counts = iter([pods_per_node.get(values[-1], 0) for values, _ in host_names(levels, capacities)])

    def rebuild(node: Capacities) -> Capacities:
        return next(counts) if isinstance(node, int) else [rebuild(child) for child in node]

    return rebuild(capacities)


def same_assignment(capacities: Capacities, want: Capacities, got: Capacities) -> bool:
    """Equal up to swapping sibling domains of the same capacity (the KEP leaves such ties open)."""
    return bool(_canonical(capacities, want) == _canonical(capacities, got))


def _canonical(capacities: Capacities, counts: Capacities) -> Any:
    if isinstance(capacities, int) or isinstance(counts, int):
        return (capacities, counts)
    return tuple(sorted((_canonical(c, n) for c, n in zip(capacities, counts, strict=True)), key=repr))


def notation(value: Capacities, *, compact: bool = False) -> str:
    """``[[3, 3, 0, 1]]`` as the KEP writes it (``compact``: without spaces)."""
    return json.dumps(value, separators=(",", ":") if compact else (", ", ": "))


def _balanced(capacities: Capacities, count: int, expected: Capacities, slice_size: int = 1) -> Example:
    annotations = {PREFERRED: RACK}
    if slice_size > 1:
        annotations |= {SLICE_REQUIRED: HOSTNAME, SLICE_SIZE: str(slice_size)}
    return Example(
        title="",
        kep="",
        levels=(BLOCK, RACK, HOSTNAME),
        capacities=capacities,
        count=count,
        annotations=annotations,
        policy=Policy.BALANCED,
        expected=expected,
    )


_RACK = (RACK, HOSTNAME)
_SLICES = {REQUIRED: RACK, SLICE_REQUIRED: HOSTNAME, SLICE_SIZE: "2"}

EXAMPLES: tuple[Example | ExampleTable, ...] = (
    Example(
        title="BestFit: 7 pods on nodes that fit 3, 3, 2 and 1",
        kep="BestFit takes the two nodes with 3 free, then optimizes the last choice and "
        "picks the node that fits exactly the 1 pod left.",
        levels=_RACK,
        capacities=[[3, 3, 2, 1]],
        count=7,
        annotations={REQUIRED: RACK},
        policy=Policy.BESTFIT,
        expected=[[3, 3, 0, 1]],
    ),
    Example(
        title="LeastFreeCapacity: the same 7 pods",
        kep="LeastFreeCapacity walks the nodes in reverse order: 1, 2, 3 and 3, "
        "reserving capacity for only 1 pod on the last node.",
        levels=_RACK,
        capacities=[[3, 3, 2, 1]],
        count=7,
        annotations={REQUIRED: RACK},
        policy=Policy.LEASTFREE,
        expected=[[3, 1, 2, 1]],
    ),
    Example(
        title="Slices of 2 per host, BestFit: 12 pods on nodes that fit 6, 5, 4, 3, 2",
        kep="Free capacity is counted in slices; among nodes that fit 2 slices the 4-pod node is "
        "the tight fit, and the last domain is optimized to the 2-pod node: 6 . 4 . 2",
        levels=_RACK,
        capacities=[[6, 5, 4, 3, 2]],
        count=12,
        annotations=_SLICES,
        policy=Policy.BESTFIT,
        expected=[[6, 0, 4, 0, 2]],
    ),
    Example(
        title="Slices of 2 per host, LeastFreeCapacity: 10 pods",
        kep="The 4-pod node is the tight fit among nodes that fit 2 slices: . 2 4 2 2",
        levels=_RACK,
        capacities=[[6, 5, 4, 3, 2]],
        count=10,
        annotations=_SLICES,
        policy=Policy.LEASTFREE,
        expected=[[0, 2, 4, 2, 2]],
    ),
    ExampleTable(
        title="BalancedPlacement: preferred rack, block → rack → host",
        kep="Pick the block that maximizes the smallest per-host share T, use as few racks as "
        "possible, then spread the pods evenly instead of packing the first domains full.",
        rows=(
            _balanced([[[15], [15]]], 25, [[[13], [12]]]),
            _balanced([[[15, 13, 10]]], 23, [[[12, 11, 0]]]),
            _balanced([[[20, 10], [15, 15]]], 22, [[[0, 0], [11, 11]]]),
            _balanced([[[20, 10], [15, 15]]], 20, [[[20, 0], [0, 0]]]),
            _balanced([[[10, 5], [5, 5, 5]]], 15, [[[0, 0], [5, 5, 5]]]),
            _balanced([[[15], [15]], [[15, 15]]], 25, [[[0], [0]], [[13, 12]]]),
            _balanced([[[15], [15], [15, 15]]], 25, [[[0], [0], [15, 10]]], slice_size=5),
        ),
    ),
    Example(
        title="Multi-level slices: 64 pods, 32 per block, 16 per rack",
        kep="The block with the best fit hosts all 64 pods (2 slices of 32); each of its 2 racks "
        "gets 2 slices of 16; each host gets 8 pods.",
        levels=(BLOCK, RACK, HOSTNAME),
        capacities=[[[8, 8, 8, 8], [8, 8, 8, 8]], [[8, 8, 8, 8], [8, 8, 8, 8], [8, 8, 8, 8]]],
        count=64,
        annotations={
            REQUIRED: BLOCK,
            SLICE_CONSTRAINTS: json.dumps(
                [{"topology": BLOCK, "size": "32"}, {"topology": RACK, "size": "16"}]
            ),
        },
        policy=Policy.MIXED,
        expected=[[[8, 8, 8, 8], [8, 8, 8, 8]], [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]],
    ),
)
