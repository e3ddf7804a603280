"""Throughput on a real control plane, end to end through the API server: one cluster (5,000 GPU
nodes by default) and one stream of gangs (PodGroups of 1-256 pods of one GPU, a third without a
constraint, the others requiring a rack or a block), scheduled by each contender on a fresh
control plane (tests/realkube/sidebyside/stream.py). Every pod is written first and waits for
its PodGroup; the PodGroups are then written as fast as the API server takes them.

Printed per contender: pods and gangs placed, pods per second and gangs per second (from the
first PodGroup written to the last pod placed), and the p50 / p99 time from a gang complete (its
PodGroup written) to its last pod placed. kube-scheduler runs with its default profile and the
feature gates of upstream gang scheduling; its client's rate limit is raised (1,000 QPS) so that
bindings are not paced by it. toposched's controller is another contender
(``stream.Contender``: gated pods in, ungated pods with node affinity out); until it is added
the ratio line says so.

Needs the binaries of testenv/build.sh.

Run: python bench/vs_kube_scheduler_throughput.py [--nodes 5000] [--gangs 400] [--largest 256]
[--seed 1] [--quick]
(--quick: 240 nodes and 20 gangs of up to 32 pods, to check that the script works.)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the harness lives with the tests

from tests.realkube.binaries import BinariesMissingError, find_binaries
from tests.realkube.control_plane import running_control_plane
from tests.realkube.processes import ControlPlaneError
from tests.realkube.sidebyside.stream import (
    Contender,
    KubeSchedulerContender,
    Measured,
    Shape,
    measure,
    stream_gangs,
    stream_nodes,
)

CONTENDERS: tuple[type[Contender], ...] = (KubeSchedulerContender,)  # toposched's controller: beside it


def shape_for(nodes: int) -> Shape:
    """Zones of 10 blocks of 5 racks of 20 nodes (5,000 nodes: 5 zones), fewer for fewer nodes."""
    racks = max(1, nodes // 20)
    blocks = max(1, racks // 5)
    zones = max(1, blocks // 10)
    return Shape(zones, min(10, blocks), min(5, racks), 20)


def line(m: Measured) -> str:
    rate = m.pods / m.seconds if m.seconds else 0.0
    gangs = m.gangs / m.seconds if m.seconds else 0.0
    return (
        f"{m.name:<16} {m.pods:>7} pods {m.gangs:>5} gangs in {m.seconds:7.1f} s  {rate:8.1f} pods/s"
        f" {gangs:7.2f} gangs/s  p50 {m.quantile(0.5):6.2f} s  p99 {m.quantile(0.99):6.2f} s"
        + (f"  ({m.unplaced} gangs not placed)" if m.unplaced else "")
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--gangs", type=int, default=400)
    parser.add_argument("--largest", type=int, default=256)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds to wait for the stream")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.nodes, args.gangs, args.largest, args.timeout = 240, 20, 32, 300.0
    try:
        binaries = find_binaries()
    except BinariesMissingError as exc:
        print(exc, file=sys.stderr)
        return 2
    shape = shape_for(args.nodes)
    nodes = stream_nodes(shape)
    gangs = stream_gangs(shape, args.gangs, args.largest, args.seed)
    print(
        f"{len(nodes)} nodes ({shape.zones} zones x {shape.blocks} blocks x {shape.racks} racks x"
        f" {shape.nodes} nodes, {shape.gpus} GPUs each); {len(gangs)} gangs, {sum(g.pods for g in gangs)} pods"
        f" of 1 GPU, 1-{args.largest} per gang, {sum(g.key is None for g in gangs)} without a constraint"
    )
    results = []
    for contender in CONTENDERS:
        try:
            with running_control_plane(binaries) as plane:
                results.append(measure(plane, binaries, contender(), nodes, gangs, timeout=args.timeout))
        except ControlPlaneError as exc:
            print(f"{contender.name}: the control plane failed: {exc}", file=sys.stderr)
            return 1
        print(line(results[-1]), flush=True)
    names = [m.name for m in results]
    if "toposched" in names and "kube-scheduler" in names:
        ours, theirs = (results[names.index(n)] for n in ("toposched", "kube-scheduler"))
        print(
            f"toposched / kube-scheduler: {(ours.pods / ours.seconds) / (theirs.pods / theirs.seconds):.1f}x pods/s"
        )
    else:
        print("toposched / kube-scheduler: n/a (toposched's controller is not a contender yet)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
