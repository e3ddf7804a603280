"""The cost of one preemption decision and of a cycle with a reservation, on a full cluster.

Cluster: the placement benchmark's (zone / block / rack / hostname, 16 nodes a rack, 16 racks a
block, 4 GPUs a node), ``--nodes`` nodes (10k by default), without foreign pods. It is filled
by ``--gangs`` running gangs (1,000 by default) of whole nodes (4 GPUs a pod), 4-16 nodes each,
required in a rack, admitted by the service's scheduler in ten batches ten minutes apart (so
they lose different GPU time when evicted), then 4-node gangs while any fits, with preemption
and reservations off.

Preemption: a scheduler with preemption on (the service's defaults) takes over the store, runs
one cycle with nothing pending (what it keeps between cycles is then built), and is given one
gang of priority 10 asking for 64 nodes in one block, which no block has free. The timed cycle
is the refused placement, the decision (candidate blocks, victim sets checked by the engine),
the evictions and the admission. Printed: CPU time (``time.process_time``), wall time, the
victims and the GPU-hours they lose.

Reservation: on the same cluster with every 34th running gang finished (room for one-node gangs
here and there, for no 64-node gang in a block), with preemption off, the queue is one 64-node block gang (it does not fit, so it reserves where it
fits soonest) and ``--small`` gangs of one node, placed around the reservation (their default
run time ends after it starts). One cycle is timed with reservations
on and one with them off, each on a fresh scheduler over the same store and queue.

Run: python bench/preemption.py [--nodes 10000] [--gangs 1000] [--small 300] [--runs 3] [--quick]
--quick: 2,000 nodes, 200 gangs, 50 small ones, one run (what tests/bench runs).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from toposched.model import Topology
from toposched.scheduler import ManualClock, Scheduler, SchedulerConfig
from toposched.store import EventRecord, MemoryStore, WorkloadState
from toposched.wire.batch import job_object

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the placement benchmark's cluster
from place import BLOCK, GPU, LEVELS, RACK
from place import cluster as placement_cluster

QUIET = SchedulerConfig(preemption=False, reservations=False)


def job(name: str, nodes: int, level: str) -> list[dict[str, Any]]:
    """A Kueue-annotated indexed Job of ``nodes`` pods of 4 GPUs, required in one ``level``."""
    container = {
        "name": "main",
        "image": "bench",
        "resources": {"requests": {GPU: "4"}, "limits": {GPU: "4"}},
    }
    annotations = {"kueue.x-k8s.io/podset-required-topology": level}
    return [job_object(name, "bench", nodes, {"containers": [container]}, template_annotations=annotations)]


def full_cluster(nodes: int, gangs: int, seed: int = 11) -> tuple[MemoryStore, ManualClock, int]:
    """A store holding the cluster filled with running gangs; the clock; how many were admitted."""
    store = MemoryStore()
    store.put_nodes(placement_cluster(nodes)[0])
    store.put_topology(Topology.create("default", list(LEVELS)))
    clock = ManualClock(0.0)
    setup = Scheduler(store, clock, QUIET)
    rng = np.random.default_rng(seed)
    sizes = rng.choice([4, 8, 12, 16], size=gangs)
    batch = max(1, gangs // 10)
    for start in range(0, gangs, batch):
        for i in range(start, min(gangs, start + batch)):
            setup.submit(job(f"run-{i}", int(sizes[i]), RACK), owner="bench", priority=0)
        setup.cycle()
        clock.advance(600.0)
    for record in store.list_workloads(states=(WorkloadState.PENDING,)):
        setup.cancel(record.id, actor="bench")
    filler = 0
    while True:  # racks' leftovers filled with 4-node gangs: no block keeps 64 nodes free
        filler += 1
        wid = setup.submit(job(f"fill-{filler}", 4, RACK), owner="bench", priority=0).id
        if wid not in setup.cycle().admitted:
            setup.cancel(wid, actor="bench")
            break
    clock.advance(600.0)
    held = len(store.list_workloads(states=(WorkloadState.ADMITTED,)))
    return store, clock, held


def preemption_run(nodes: int, gangs: int) -> tuple[float, float, int, float, int]:
    store, clock, held = full_cluster(nodes, gangs)
    sched = Scheduler(store, clock, SchedulerConfig())
    sched.cycle()  # builds what the loop keeps between cycles
    urgent = sched.submit(job("urgent", 64, BLOCK), owner="bench", priority=10).id
    cpu, wall = time.process_time(), time.perf_counter()
    report = sched.cycle()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    assert report.admitted == (urgent,), report
    explanation = sched.get(urgent).explanation or {}  # none: it fitted without preempting
    lost = float(explanation.get("gpuHoursLost", 0.0))
    return cpu * 1e3, wall * 1e3, len(report.evicted), lost, held


def reservation_run(nodes: int, gangs: int, small: int, reservations: bool) -> tuple[float, float, int]:
    store, clock, _ = full_cluster(nodes, gangs)
    running = store.list_workloads(states=(WorkloadState.ADMITTED,))
    for record in running[::34]:  # room for small gangs here and there, none for the wide one
        store.release(
            record.id, WorkloadState.FINISHED, EventRecord("finished", "bench", clock.now(), record.id)
        )
    config = SchedulerConfig(preemption=False, reservations=reservations)
    sched = Scheduler(store, clock, config)
    sched.cycle()
    sched.submit(job("wide", 64, BLOCK), owner="bench", priority=0)
    for i in range(small):
        sched.submit(job(f"small-{i}", 1, RACK), owner="bench", priority=0)
    cpu, wall = time.process_time(), time.perf_counter()
    report = sched.cycle()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return cpu * 1e3, wall * 1e3, len(report.admitted)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--gangs", type=int, default=1_000)
    parser.add_argument("--small", type=int, default=300)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.nodes, args.gangs, args.small, args.runs = 2_000, 200, 50, 1
    print(f"cluster: {args.nodes} nodes x 4 GPUs; {args.gangs} running gangs of 4-16 nodes (rack)")
    runs = [preemption_run(args.nodes, args.gangs) for _ in range(args.runs)]
    print(f"running gangs admitted: {runs[0][4]}")
    print(
        "preemption cycle (64 nodes in a block, priority 10): "
        f"cpu {statistics.median(r[0] for r in runs):.1f} ms, wall {statistics.median(r[1] for r in runs):.1f} ms "
        f"(median of {args.runs}); victims {runs[0][2]}, {runs[0][3]:.2f} GPU-hours lost"
    )
    for reservations in (True, False):
        timed = [reservation_run(args.nodes, args.gangs, args.small, reservations) for _ in range(args.runs)]
        print(
            f"cycle, 1 wide gang + {args.small} one-node gangs, reservations {'on' if reservations else 'off'}: "
            f"cpu {statistics.median(r[0] for r in timed):.1f} ms, wall {statistics.median(r[1] for r in timed):.1f} ms, "
            f"admitted {timed[0][2]}"
        )


if __name__ == "__main__":
    main()
