"""One scheduling cycle over a full queue: 1,000 pending Kueue Jobs on a 10k-node cluster.

Cluster: zone / block / rack / hostname, 16 nodes a rack, 16 racks a block, 8 blocks a zone;
4 GPUs a node with 0-4 of them (about half) taken by running pods at random (fixed seed).
Queue: Kueue-annotated indexed Jobs of 8-512 pods of one GPU each (mostly small ones), required
or preferred in a rack, block or zone, some (of at most 256 pods) required in a block and cut
into rack slices, four priorities. More is asked for than the cluster has free, so a cycle admits about half of them
and explains why the rest wait.

For each store (SQLite in a temporary directory, in memory) a fresh scheduler imports the
cluster, runs one cycle over a Job no node can hold (what the scheduler keeps between cycles is
then built, so the measured cycle is a steady-state one), is given the whole queue (already
compiled, as the service's submit leaves it), and one ``Scheduler.cycle()`` is timed. Then the
empty cycle: with the admitted gangs booked and the rest waiting out their backoff, a cycle in
which nothing changed (median of three); its cost should follow what changed, not the size of
the cluster. Each size (``--nodes``, 10k, 25k and 100k by default) is run in turn.

The floor is the engine alone: the same gangs in the same order (priority, then arrival), each
placed with the scheduler's search settings on one prebuilt snapshot, charged when placed. The
ratio cycle / floor says what the loop and the store add to the placements themselves.

Times are CPU-time medians (``time.process_time``), the floor and the cycles interleaved run by
run so foreign load on a shared machine mostly cancels; wall times are printed too (SQLite's
fsyncs are wall time). Pods/s is pods admitted per second of cycle time.

``--infeasible`` adds the queue of issue 24: one more Job, first in the queue's order, of 512
one-GPU pods required in a block and cut into 16-pod rack slices, which no block of the cluster
holds (its racks have room for fewer whole slices than it asks for). The complete search, on with
the scheduler's defaults, once ran to its whole step budget on it in every cycle.

Run: python bench/cycle.py [--nodes 10000,25000,100000] [--gangs 1000] [--runs 3] [--quick] [--infeasible]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from toposched.engine import SearchBudget, place_gang, usage_of
from toposched.engine.core.caches import EngineCaches
from toposched.model import Cluster, Placement, Topology
from toposched.scheduler import ManualClock, Scheduler, SchedulerConfig, Submission
from toposched.snapshot import Snapshot
from toposched.store import MemoryStore, SqliteStore, Store
from toposched.topology import TopologyTree

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the placement benchmark's cluster
from place import BLOCK, GPU, LEVELS, RACK, ZONE
from place import cluster as placement_cluster

SIZES = (8, 16, 32, 64, 128, 256, 512)
SIZE_WEIGHTS = (0.30, 0.25, 0.20, 0.12, 0.07, 0.04, 0.02)
# (annotation, level, rack slice size or 0), equally likely
CONSTRAINTS = (
    ("required", RACK, 0),
    ("required", BLOCK, 0),
    ("required", ZONE, 0),
    ("preferred", RACK, 0),
    ("preferred", BLOCK, 0),
    ("preferred", ZONE, 0),
    ("required", BLOCK, 16),
)
# A sliced Job of 512 pods needs about every free GPU of a block: the engine's complete search
# then spends its whole step budget on it, which bench/place.py's shapes measure, not this one.
MAX_SLICED = 256
TOPOLOGY = Topology.create("bench", LEVELS)


def cluster(size: int, seed: int = 7) -> Cluster:
    """``size`` nodes, 4 GPUs each, with 0-4 GPUs (and matching cpu/memory) already in use: the
    placement benchmark's cluster, with its topology."""
    nodes, pods = placement_cluster(size, seed)
    return Cluster.create(nodes, pods, [TOPOLOGY])


def job(name: str, pods: int, kind: str, level: str, slice_size: int, gpus: int = 1) -> list[dict[str, Any]]:
    """A Kueue-annotated indexed Job of ``gpus``-GPU pods, as the service's edge parses one."""
    annotations = {f"kueue.x-k8s.io/podset-{kind}-topology": level}
    if slice_size:
        annotations["kueue.x-k8s.io/podset-slice-required-topology"] = RACK
        annotations["kueue.x-k8s.io/podset-slice-size"] = str(min(slice_size, pods))
    requests = {GPU: str(gpus), "cpu": "8", "memory": "64Gi"}
    container = {"name": "main", "image": "trainer:1", "resources": {"requests": requests}}
    return [
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {"name": name, "namespace": "research"},
            "spec": {
                "parallelism": pods,
                "completions": pods,
                "completionMode": "Indexed",
                "template": {
                    "metadata": {"annotations": annotations},
                    "spec": {"restartPolicy": "Never", "containers": [container]},
                },
            },
        }
    ]


def queue(count: int, seed: int = 11, infeasible: bool = False) -> list[tuple[list[dict[str, Any]], int]]:
    """``count`` Jobs with their priorities (0-3); with ``infeasible``, the sliced 512-pod Job
    first (priority 4)."""
    rng = np.random.default_rng(seed)
    sizes = rng.choice(SIZES, size=count, p=SIZE_WEIGHTS)
    kinds = rng.integers(0, len(CONSTRAINTS), size=count)
    priorities = rng.integers(0, 4, size=count)
    out = []
    for i in range(count):
        kind, level, slice_size = CONSTRAINTS[int(kinds[i])]
        pods = min(int(sizes[i]), MAX_SLICED) if slice_size else int(sizes[i])
        out.append((job(f"job-{i}", pods, kind, level, slice_size), int(priorities[i])))
    if infeasible:
        out.insert(0, (job("sliced-512", 512, "required", BLOCK, 16), 4))
    return out


@dataclass(frozen=True)
class CycleRun:
    cpu: float
    wall: float
    admitted: int
    pods: int
    empty: float  # CPU seconds of a cycle in which nothing changed, afterwards
    names: frozenset[str]  # the Jobs admitted


def prepared(the_cluster: Cluster, jobs: list[tuple[list[dict[str, Any]], int]]) -> list[Submission]:
    """The queue compiled once (``Scheduler.prepare``), reused by every run."""
    sched = Scheduler(MemoryStore(), ManualClock(0.0))
    sched.import_cluster(the_cluster)
    return [sched.prepare(docs, owner="bench", priority=prio) for docs, prio in jobs]


def run_cycle(store: Store, the_cluster: Cluster, submissions: list[Submission]) -> CycleRun:
    """Import, one cycle over a Job that fits no node (builds what the scheduler keeps between
    cycles), queue everything, then time one cycle."""
    sched = Scheduler(store, ManualClock(1000.0))
    sched.import_cluster(the_cluster)
    warm_up = sched.submit(job("warm-up", 1, "required", RACK, 0, gpus=5), owner="bench")
    sched.cycle()
    sched.cancel(warm_up.id, actor="bench", admin=True)
    for submission in submissions:
        sched.commit(submission)
    wall, cpu = time.perf_counter(), time.process_time()
    report = sched.cycle()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    sizes = {s.record.name: s.gang.size for s in submissions}
    names = frozenset(sched.get(w).name for w in report.admitted)
    pods = sum(sizes[name] for name in names)
    empty = []
    for _ in range(3):  # the clock stands still: the waiting gangs stay in their backoff
        start = time.process_time()
        sched.cycle()
        empty.append(time.process_time() - start)
    store.close()
    return CycleRun(cpu, wall, len(report.admitted), pods, statistics.median(empty), names)


def engine_only(the_cluster: Cluster, submissions: list[Submission]) -> tuple[float, int]:
    """CPU seconds the engine alone takes for the queue on one prebuilt snapshot, and the gangs
    it places (charged as it goes, like the cycle)."""
    config = SchedulerConfig()
    snapshot = Snapshot.build(TopologyTree.build(TOPOLOGY, the_cluster.nodes), the_cluster.pods)
    order = sorted(enumerate(submissions), key=lambda s: (-s[1].record.priority, s[0]))
    caches = EngineCaches()  # as the scheduler keeps them
    placed = 0
    start = time.process_time()
    for i, submission in order:
        gang = submission.gang
        budget = SearchBudget(config.search_steps)
        result = place_gang(
            gang,
            snapshot,
            policy=config.options().policy_for(gang),
            search=config.search,
            budget=budget,
            probe=True,
            caches=caches,
        )
        if isinstance(result, Placement):
            snapshot.add_usage(str(i), usage_of(result, gang))
            placed += 1
    return time.process_time() - start, placed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", default="10000,25000,100000", help="cluster sizes, comma-separated")
    parser.add_argument("--gangs", type=int, default=1_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="512 nodes, 40 gangs, one run")
    parser.add_argument("--infeasible", action="store_true", help="add the sliced 512-pod Job no block holds")
    args = parser.parse_args()
    if args.quick:
        args.nodes, args.gangs, args.runs = "512", 40, 1
    for size in (int(n) for n in args.nodes.split(",")):
        report(size, args.gangs, args.runs, args.infeasible)


def report(size: int, gangs: int, runs: int, infeasible: bool) -> None:
    """One size: the floor, then a cycle over the queue and an empty cycle per store."""
    the_cluster = cluster(size)
    submissions = prepared(the_cluster, queue(gangs, infeasible=infeasible))
    demand = sum(s.gang.size for s in submissions)
    free = size * 4 - sum(p.requests[GPU] for p in the_cluster.pods)
    print(
        f"{size} nodes ({free} of {size * 4} GPUs free); "
        f"{len(submissions)} pending Kueue Jobs asking for {demand} pods; {runs} run(s)"
    )
    floors: list[float] = []
    cycles: dict[str, list[CycleRun]] = {"sqlite": [], "memory": []}
    placed = 0
    with tempfile.TemporaryDirectory() as workdir:
        for run in range(runs):
            floor, placed = engine_only(the_cluster, submissions)
            floors.append(floor)
            store = SqliteStore(Path(workdir) / f"cycle-{run}.db")
            cycles["sqlite"].append(run_cycle(store, the_cluster, submissions))
            cycles["memory"].append(run_cycle(MemoryStore(), the_cluster, submissions))
    floor = statistics.median(floors)
    print(f"  engine only (floor)  {floor:7.3f} s CPU   {placed} gangs placed")
    for name, done in cycles.items():
        cpu = statistics.median(r.cpu for r in done)
        wall = statistics.median(r.wall for r in done)
        last = done[-1]
        print(
            f"  cycle, {name:<7}      {cpu:7.3f} s CPU ({wall:.3f} s wall)   "
            f"{last.admitted} gangs / {last.pods} pods admitted   "
            f"{last.pods / cpu:6.0f} pods/s CPU ({last.pods / wall:.0f} wall)   x{cpu / floor:5.2f} floor"
        )
        if infeasible:
            print(f"    sliced-512 {'admitted' if 'sliced-512' in last.names else 'refused'}")
    for name, done in cycles.items():
        empty = statistics.median(r.empty for r in done)
        print(f"  empty cycle, {name:<7} {empty * 1000:7.1f} ms CPU")


if __name__ == "__main__":
    main()
