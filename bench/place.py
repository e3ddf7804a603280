"""Placement latency on synthetic GPU clusters (zone / block / rack / hostname).

Clusters of 1k, 10k and 100k nodes: 4 GPUs per node, each node has 0-4 GPUs taken at random
(about half, fixed seed). Three gangs under Kueue's default profile: 16 pods rack-required; 256
pods block-required cut into 16-pod rack slices; 2048 pods block-preferred. Three under BINPACK
(KAI's hierarchical solver): 16 pods rack-required; 256 pods in a required block, four 16-pod
subgroups each requiring a rack plus 192 unconstrained pods; 2048 pods block-preferred. The
snapshot is built once, outside the timing.

The "floor" is one vectorised pass over the same arrays: per-node pod capacity for the pod shape
plus per-level sums. The ratio median / floor says how much the algorithm adds to that pass.

Run: python bench/place.py [--runs N] [--sizes 1000,10000,100000]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

from toposched.engine import place_gang
from toposched.model import (
    HOSTNAME,
    Gang,
    Group,
    Node,
    Placement,
    PodSpec,
    Policy,
    Resources,
    RunningPod,
    SliceLayer,
)
from toposched.model import Topology as TopologyDef
from toposched.snapshot import Snapshot, fits_count, level_sums
from toposched.topology import TopologyTree

ZONE, BLOCK, RACK = "example.com/zone", "example.com/block", "example.com/rack"
LEVELS = (ZONE, BLOCK, RACK, HOSTNAME)
NODES_PER_RACK, RACKS_PER_BLOCK, BLOCKS_PER_ZONE = 16, 16, 8
GPU = "nvidia.com/gpu"
POD = Resources.parse({GPU: "1", "cpu": "8", "memory": "64Gi"})


def cluster(size: int, seed: int = 7) -> tuple[list[Node], list[RunningPod]]:
    """``size`` nodes, 4 GPUs each, with 0-4 GPUs (and matching cpu/memory) already in use."""
    rng = np.random.default_rng(seed)
    used = rng.integers(0, 5, size=size)
    allocatable = Resources.parse({GPU: "4", "cpu": "64", "memory": "512Gi", "pods": "110"})
    nodes: list[Node] = []
    pods: list[RunningPod] = []
    for i in range(size):
        rack, node = divmod(i, NODES_PER_RACK)
        block, rack_in_block = divmod(rack, RACKS_PER_BLOCK)
        zone = block // BLOCKS_PER_ZONE
        name = f"z{zone}-b{block}-r{rack_in_block}-n{node}"
        labels = {ZONE: f"z{zone}", BLOCK: f"b{block}", RACK: f"r{rack_in_block}", HOSTNAME: name}
        nodes.append(Node.create(name, labels, allocatable))
        if used[i]:
            pods.append(RunningPod(f"other-{i}", "default", name, POD.scaled(int(used[i]))))
    return nodes, pods


def gang(
    name: str,
    count: int,
    *,
    required: str | None = None,
    preferred: str | None = None,
    slices: tuple[SliceLayer, ...] = (),
) -> Gang:
    pods = tuple(PodSpec(f"{name}-{i}", i, POD) for i in range(count))
    leaf = Group("main", required=required, preferred=preferred, slices=slices, pods=pods)
    return Gang(name, Group("workload", children=(leaf,)))


def subgroup_gang(name: str, racks: int, per_rack: int, loose: int) -> Gang:
    """A required block holding ``racks`` subgroups that each require a rack, plus ``loose`` pods
    without a constraint of their own (KAI subgroups)."""
    pods = [PodSpec(f"{name}-{i}", i, POD) for i in range(racks * per_rack + loose)]
    children = [
        Group(f"rack-{k}", required=RACK, pods=tuple(pods[k * per_rack : (k + 1) * per_rack]))
        for k in range(racks)
    ]
    children.append(Group("rest", pods=tuple(pods[racks * per_rack :])))
    return Gang(name, Group("workload", required=BLOCK, children=tuple(children)))


GANGS: tuple[tuple[Gang, Policy], ...] = (
    (gang("rack-16", 16, required=RACK), Policy.MIXED),
    (gang("block-256-rack-slices", 256, required=BLOCK, slices=(SliceLayer(RACK, 16),)), Policy.MIXED),
    (gang("block-2048-preferred", 2048, preferred=BLOCK), Policy.MIXED),
    (gang("binpack-rack-16", 16, required=RACK), Policy.BINPACK),
    (subgroup_gang("binpack-block-256-4-racks", 4, 16, 192), Policy.BINPACK),
    (gang("binpack-block-2048-pref", 2048, preferred=BLOCK), Policy.BINPACK),
)


def median_ms(fn: Callable[[], object], runs: int) -> float:
    fn()  # warm caches (label codes, taint groups)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def floor_pass(snapshot: Snapshot) -> None:
    """Per-node capacity for the pod shape and per-level sums: the least any placement does."""
    level_sums(snapshot.tree, fits_count(snapshot.free, snapshot.columns, POD))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--sizes", default="1000,10000,100000")
    args = parser.parse_args()
    topology = TopologyDef.create("bench", LEVELS)
    for size in (int(s) for s in args.sizes.split(",")):
        nodes, pods = cluster(size)
        built = time.perf_counter()
        tree = TopologyTree.build(topology, nodes)
        snapshot = Snapshot.build(tree, pods)
        built = time.perf_counter() - built
        shape = " / ".join(f"{tree.count(level)} {key.split('/')[-1]}" for level, key in enumerate(LEVELS))
        free_gpus = int(snapshot.free[:, snapshot.columns[GPU]].sum())
        print(
            f"\n{size} nodes: {shape}; {free_gpus} free GPUs; tree + snapshot built in {built * 1000:.0f} ms"
        )
        floor = median_ms(lambda snap=snapshot: floor_pass(snap), args.runs)
        print(f"  floor (capacity + level sums)          {floor:8.3f} ms")
        for g, policy in GANGS:
            result = place_gang(g, snapshot, policy=policy)
            status = "placed" if isinstance(result, Placement) else "unschedulable"
            runs = args.runs if policy is not Policy.BINPACK else max(3, args.runs // 4)
            ms = median_ms(lambda g=g, p=policy, snap=snapshot: place_gang(g, snap, policy=p), runs)
            print(f"  {g.name:<26} {g.size:5d} pods {ms:8.3f} ms  x{ms / floor:6.1f} floor  ({status})")


if __name__ == "__main__":
    main()
