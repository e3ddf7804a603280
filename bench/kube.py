"""kube-scheduler placement latency (``Semantics.KUBE``: PodGroups and CompositePodGroups).

The synthetic GPU clusters of ``bench/place.py`` (4 GPUs per node, about half in use; 16 nodes
per rack, 16 racks per block, 8 blocks per zone), 1k and 5k nodes by default, except that every
rack's label value is its own (``b3-r7``): kube-scheduler makes one candidate placement per
label value, and real clusters name racks uniquely. Gangs are shaped as the kube front end
builds them (a root container, one child per PodGroup / CompositePodGroup, ``required`` = the
constraint's label key, ``min_member`` = minCount), pods of 1 GPU:

- ``rack-16``: a PodGroup of 16 pods requiring a rack, minCount 16;
- ``rack-128``: 128 pods requiring a rack, minCount 128 (no rack has 128 free GPUs: every
  candidate fails);
- ``rack-128-min-16``: the same with minCount 16 (every rack qualifies; the pods beyond the
  minimum are placed while they fit);
- ``basic-64-rack``: a basic PodGroup (no minCount) of 64 pods requiring a rack;
- ``block-4x16-rack``: a CompositePodGroup requiring a block, holding four PodGroups of 16
  pods that each require a rack.

Each placement is timed in CPU time, run for run alternately with the floor of
``bench/place.py`` (per-node capacity for the pod shape plus per-level sums) so that load from
other processes cancels, and printed as the median and median / floor. The snapshot is built
once per size, outside the timing.

Run: python bench/kube.py [--runs N] [--sizes 1000,5000] [--quick]
(--quick: one 1000-node cluster and 3 runs, to check that the script works.)
"""

from __future__ import annotations

import argparse
from functools import partial

from place import BLOCK, LEVELS, POD, RACK, cluster, floor_pass, interleaved_ms
from toposched.engine import place_gang
from toposched.model import Gang, Group, Node, Placement, PodSpec, RunningPod, Semantics
from toposched.model import Topology as TopologyDef
from toposched.snapshot import Snapshot
from toposched.topology import TopologyTree


def pod_group(name: str, count: int, *, required: str | None = RACK, min_count: int | None = None) -> Group:
    """A PodGroup of ``count`` one-GPU pods; ``min_count`` None: gang of all of them, 1: basic."""
    pods = tuple(PodSpec(f"{name}-{i}", i, POD) for i in range(count))
    return Group(name, required=required, min_member=count if min_count is None else min_count, pods=pods)


def workload(name: str, *units: Group) -> Gang:
    """The kube front end's gang: a root container of the top-level groups."""
    return Gang(name, Group(name, children=units), kind="Workload", semantics=Semantics.KUBE)


GANGS: tuple[Gang, ...] = (
    workload("rack-16", pod_group("rack-16", 16)),
    workload("rack-128", pod_group("rack-128", 128)),
    workload("rack-128-min-16", pod_group("rack-128-min-16", 128, min_count=16)),
    workload("basic-64-rack", pod_group("basic-64-rack", 64, min_count=1)),
    workload(
        "block-4x16-rack",
        Group(
            "block-4x16-rack",
            required=BLOCK,
            min_sub_group=4,
            children=tuple(pod_group(f"part-{k}", 16) for k in range(4)),
        ),
    ),
)


def kube_cluster(size: int) -> tuple[list[Node], list[RunningPod]]:
    """``bench/place.py``'s cluster with every rack's label value its own."""
    nodes, pods = cluster(size)
    return [
        Node.create(n.name, {**n.labels, RACK: f"{n.labels[BLOCK]}-{n.labels[RACK]}"}, n.allocatable)
        for n in nodes
    ], pods


def report(size: int, runs: int) -> None:
    nodes, pods = kube_cluster(size)
    tree = TopologyTree.build(TopologyDef.create("bench", LEVELS), nodes)
    snapshot = Snapshot.build(tree, pods)
    print(f"\n{size} nodes: {tree.count(LEVELS.index(RACK))} racks ({runs} runs, CPU-time medians)")
    for g in GANGS:
        result = place_gang(g, snapshot)
        status = "placed" if isinstance(result, Placement) else "unschedulable"
        ms, floor = interleaved_ms(partial(place_gang, g, snapshot), lambda: floor_pass(snapshot), runs)
        print(f"  {g.name:<18} {g.size:4d} pods {ms:9.3f} ms  x{ms / floor:7.1f} floor  ({status})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--sizes", default="1000,5000")
    parser.add_argument("--quick", action="store_true", help="one 1000-node cluster, 3 runs: a smoke check")
    args = parser.parse_args()
    sizes, runs = ("1000", 3) if args.quick else (args.sizes, args.runs)
    for size in (int(s) for s in sizes.split(",")):
        report(size, runs)


if __name__ == "__main__":
    main()
