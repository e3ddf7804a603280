"""Throughput on a real control plane, end to end through the API server: one cluster (5,000 GPU
nodes by default) and one stream of gangs (PodGroups of 1-256 pods of one GPU, a third without a
constraint, the others requiring a rack or a block), scheduled by each contender on a fresh
control plane (tests/realkube/sidebyside/stream.py). Every pod is written first and waits for
its PodGroup; the PodGroups are then written as fast as the API server takes them.

Printed per contender: pods and gangs placed, pods per second and gangs per second (from the
first PodGroup written to the last pod placed), and the p50 / p99 time from a gang complete (its
PodGroup written) to its last pod placed. kube-scheduler runs with its default profile and the
feature gates of upstream gang scheduling; its client's rate limit is raised (1,000 QPS) so that
bindings are not paced by it; a pod is placed when bound. toposched's controller
(``toposched controller --mode ungater``, its own process, ``--interval`` between passes) gets
the pods with its scheduling gate; a pod is placed when ungated with its node selector.
kube-scheduler does not run then. toposched's engine alone places the same gangs without an API
server (tests/realkube/sidebyside/engine_alone.py), so the API server's share is visible. The
ratios of pods per second come last.

Needs the binaries of testenv/build.sh.

Run: python bench/vs_kube_scheduler_throughput.py [--nodes 5000] [--gangs 400] [--largest 256]
[--seed 1] [--only kube-scheduler,toposched,engine] [--interval 0.05] [--profile FILE]
[--timeout 1800] [--idle 120] [--quick]
(--quick: 240 nodes and 20 gangs of up to 32 pods, to check that the script works; --profile:
the controller runs under cProfile and writes its profile to FILE, read it with
``python -m pstats FILE``.)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the harness lives with the tests

from tests.realkube.binaries import BinariesMissingError, find_binaries
from tests.realkube.control_plane import running_control_plane
from tests.realkube.processes import ControlPlaneError
from tests.realkube.sidebyside.controller_contender import ToposchedControllerContender
from tests.realkube.sidebyside.engine_alone import NAME as ENGINE
from tests.realkube.sidebyside.engine_alone import measure_engine
from tests.realkube.sidebyside.stream import (
    Contender,
    KubeSchedulerContender,
    Measured,
    Shape,
    measure,
    stream_gangs,
    stream_nodes,
)

NAMES = ("kube-scheduler", "toposched", "engine")


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
        f" {gangs:7.2f} gangs/s  p50 {m.quantile(0.5):7.3f} s  p99 {m.quantile(0.99):7.3f} s"
        + (f"  ({m.unplaced} gangs not placed)" if m.unplaced else "")
        + (f"  (the watch listed the pods again {m.relists} times)" if m.relists else "")
    )


def contenders(names: list[str], interval: float, profile: Path | None) -> list[Contender]:
    made: dict[str, Contender] = {
        "kube-scheduler": KubeSchedulerContender(),
        "toposched": ToposchedControllerContender(interval, profile),
    }
    return [made[n] for n in names if n in made]


def rate(m: Measured) -> float:
    return m.pods / m.seconds if m.seconds else 0.0


def ratios(results: list[Measured]) -> str:
    by = {m.name: m for m in results}
    theirs = by.get("kube-scheduler")
    if theirs is None or not rate(theirs):
        return "toposched / kube-scheduler: n/a (kube-scheduler was not measured)"
    parts = [f"{name} {rate(by[name]) / rate(theirs):.2f}x" for name in ("toposched", ENGINE) if name in by]
    return "toposched / kube-scheduler: " + (", ".join(parts) if parts else "n/a") + " pods/s"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--gangs", type=int, default=400)
    parser.add_argument("--largest", type=int, default=256)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds to wait for the stream")
    parser.add_argument(
        "--idle", type=float, default=120.0, help="stop once no pod was placed for this many seconds"
    )
    parser.add_argument("--only", default=",".join(NAMES), help="which to measure, comma-separated")
    parser.add_argument("--interval", type=float, default=0.05, help="the controller's --interval")
    parser.add_argument("--profile", type=Path, help="cProfile the controller into this file")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.nodes, args.gangs, args.largest, args.timeout, args.idle = 240, 20, 32, 300.0, 60.0
    names = [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = sorted(set(names) - set(NAMES))
    if unknown:
        print(f"--only: unknown {', '.join(unknown)}; choose from {', '.join(NAMES)}", file=sys.stderr)
        return 2
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
        f" of 1 GPU, 1-{args.largest} per gang, {sum(g.key is None for g in gangs)} without a constraint",
        flush=True,
    )
    results = []
    for contender in contenders(names, args.interval, args.profile):
        try:
            with running_control_plane(binaries) as plane:
                results.append(
                    measure(plane, binaries, contender, nodes, gangs, timeout=args.timeout, idle=args.idle)
                )
        except ControlPlaneError as exc:
            print(f"{contender.name}: the control plane failed: {exc}", file=sys.stderr)
            return 1
        print(line(results[-1]), flush=True)
    if "engine" in names:
        results.append(measure_engine(nodes, gangs))
        print(line(results[-1]), flush=True)
    print(ratios(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
