"""Bin-pack placement latency (KAI's ordering, used for KAI, OSMO and Grove gangs).

The three BINPACK gangs of ``bench/place.py`` (16 pods rack-required; 256 pods in a required
block holding four 16-pod rack-required subgroups plus 192 loose pods; 2048 pods
block-preferred) on the same synthetic clusters (4 GPUs per node, about half in use). Each gang
is timed interleaved with the vectorised floor (per-node capacity plus per-level sums, see
``bench/place.py``) and with the same gang under the default policy (``Policy.MIXED``), so load
from other processes cancels out of the ratios. Kueue cannot read the subgroup gang, so its
default-policy reference is the hierarchical solver with Kueue's orderings (``Semantics.HIERARCHY``
under ``Policy.MIXED``). Times are CPU-time medians; the snapshot is built once per size,
outside the timing.

Run: python bench/binpack.py [--runs N] [--sizes 5000,100000] [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from dataclasses import replace

from place import LEVELS, cluster, floor_pass, gang, subgroup_gang
from toposched.engine import PlacementOptions, open_session
from toposched.model import Gang, Placement, Policy, Search, Semantics
from toposched.model import Topology as TopologyDef
from toposched.snapshot import Snapshot
from toposched.topology import TopologyTree

RACK, BLOCK = LEVELS[2], LEVELS[1]
_SUBGROUPS = subgroup_gang("binpack-block-256-4-racks", 4, 16, 192)
# Each gang and its default-policy reference (see the module docstring).
GANGS: tuple[tuple[Gang, Gang], ...] = (
    (gang("binpack-rack-16", 16, required=RACK),) * 2,
    (_SUBGROUPS, replace(_SUBGROUPS, semantics=Semantics.HIERARCHY)),
    (gang("binpack-block-2048-pref", 2048, preferred=BLOCK),) * 2,
)


def cpu_ms(fn: Callable[[], object]) -> float:
    start = time.process_time()
    fn()
    return (time.process_time() - start) * 1000


def interleaved(fns: list[Callable[[], object]], runs: int) -> list[float]:
    """Median CPU milliseconds of each function, run in turn ``runs`` times after one warm-up."""
    for fn in fns:
        fn()  # warm caches (label codes, taint groups, dotted ranks)
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(runs):
        for fn, out in zip(fns, times, strict=True):
            out.append(cpu_ms(fn))
    return [statistics.median(t) for t in times]


def measure(size: int, runs: int) -> None:
    nodes, pods = cluster(size)
    tree = TopologyTree.build(TopologyDef.create("bench", LEVELS), nodes)
    snapshot = Snapshot.build(tree, pods)
    print(f"\n{size} nodes ({runs} runs, CPU-time medians)")
    print(f"  {'gang':<26} {'pods':>5} {'binpack':>10} {'x floor':>8} {'x mixed':>8}  result")
    session = open_session(PlacementOptions(search=Search.FAITHFUL))  # one, as the scheduler keeps
    for g, reference in GANGS:
        result = session.place(g, snapshot, policy=Policy.BINPACK, probe=False)
        status = "placed" if isinstance(result, Placement) else "unschedulable"
        floor, binpack, mixed = interleaved(
            [
                lambda: floor_pass(snapshot),
                lambda g=g: session.place(g, snapshot, policy=Policy.BINPACK, probe=False),
                lambda r=reference: session.place(r, snapshot, policy=Policy.MIXED, probe=False),
            ],
            runs,
        )
        print(
            f"  {g.name:<26} {g.size:5d} {binpack:8.2f}ms {binpack / floor:7.1f}x {binpack / mixed:7.2f}x  "
            f"{status} (floor {floor:.2f} ms, mixed {mixed:.2f} ms)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--sizes", default="5000,100000")
    parser.add_argument("--quick", action="store_true", help="one small cluster, three runs")
    args = parser.parse_args()
    sizes, runs = ("1000", 3) if args.quick else (args.sizes, args.runs)
    for size in (int(s) for s in sizes.split(",")):
        measure(size, runs)


if __name__ == "__main__":
    main()
