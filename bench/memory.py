"""Memory and build time of a topology tree plus its snapshot on synthetic GPU clusters.

Cluster: ``bench/place.py``'s (zone / block / rack / hostname, 16 nodes a rack, 4 GPUs a node,
0-4 GPUs in use by one running pod per busy node), 10k and 100k nodes.

Memory: each size runs in a fresh Python process, which first loads the node and pod lists, then
builds ``TopologyTree.build`` + ``Snapshot.build`` from them. The figure is the growth of the
process's resident set (RSS, after ``gc.collect()``) across that build: what the tree and the
snapshot keep, including allocator slack their temporaries leave. The node and pod lists' own
RSS is printed for context.

Time: CPU-time median of several builds from the same lists, interleaved with the floor, one
pass reading every level label of every node (what any build must at least do), so foreign load
on the machine cancels in the ratio. The first build is printed apart: it also hashes each
node's and pod's resources once (the hash is kept in the object, so later builds reuse it).
"snapshot" is ``Snapshot.build`` alone on an already built tree: what every scheduling cycle
pays, as the tree is kept while the node set does not change.

Run: python bench/memory.py [--sizes 10000,100000] [--runs 7] [--quick]   (Linux: reads /proc)
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from place import LEVELS, cluster
from toposched.model import Node
from toposched.model import Topology as TopologyDef
from toposched.snapshot import Snapshot
from toposched.topology import TopologyTree

MB = 2**20


def rss_bytes() -> int:
    """Resident set size of this process."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096


def cpu_seconds(fn: Callable[[], object]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def floor_pass(nodes: list[Node]) -> None:
    """Read every level label of every node once."""
    for key in LEVELS:
        _ = [node.labels[key] for node in nodes]


def measure(size: int, runs: int) -> dict[str, float]:
    """One size, in this (fresh) process: RSS growth in bytes and CPU times in seconds."""
    topology = TopologyDef.create("bench", LEVELS)
    gc.collect()
    start = rss_bytes()
    nodes, pods = cluster(size)
    gc.collect()
    loaded = rss_bytes()
    first = time.process_time()
    tree = TopologyTree.build(topology, nodes)
    snapshot = Snapshot.build(tree, pods)
    first = time.process_time() - first
    gc.collect()
    built = rss_bytes()
    del tree, snapshot
    kept = TopologyTree.build(topology, nodes)
    Snapshot.build(kept, pods)  # a cycle after the first: the tree's lookups are built
    builds, snapshots, floors = [], [], []
    for _ in range(runs):
        floors.append(cpu_seconds(lambda: floor_pass(nodes)))
        builds.append(cpu_seconds(lambda: Snapshot.build(TopologyTree.build(topology, nodes), pods)))
        snapshots.append(cpu_seconds(lambda: Snapshot.build(kept, pods)))
    return {
        "lists": loaded - start,
        "built": built - loaded,
        "first": first,
        "build": statistics.median(builds),
        "snapshot": statistics.median(snapshots),
        "floor": statistics.median(floors),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="1,000 nodes, 2 runs (a smoke test)")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)  # one size, JSON out
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(measure(args.child, args.runs)))
        return
    sizes, runs = ([1000], 2) if args.quick else ([int(s) for s in args.sizes.split(",")], args.runs)
    print(
        f"{'nodes':>8} {'node+pod lists':>15} {'tree+snapshot':>14} {'first build':>12} "
        f"{'median build':>13} {'floor':>9} {'x floor':>8} {'snapshot':>9}"
    )
    for size in sizes:
        child = [sys.executable, str(Path(__file__)), "--child", str(size), "--runs", str(runs)]
        figures = json.loads(subprocess.run(child, check=True, capture_output=True, text=True).stdout)
        print(
            f"{size:>8} {figures['lists'] / MB:>12.1f} MB {figures['built'] / MB:>11.1f} MB "
            f"{figures['first'] * 1000:>9.0f} ms {figures['build'] * 1000:>10.0f} ms "
            f"{figures['floor'] * 1000:>6.1f} ms {figures['build'] / figures['floor']:>8.1f} "
            f"{figures['snapshot'] * 1000:>6.1f} ms"
        )


if __name__ == "__main__":
    main()
