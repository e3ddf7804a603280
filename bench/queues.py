"""The cost of queues in one scheduling cycle: 1,000 pending Kueue Jobs on a 10k-node cluster,
spread over 50 queues with quotas, borrowing and fair sharing, against the same queue without
queues (every gang in ``default``).

Cluster and Jobs are bench/cycle.py's (4 GPUs a node, about half taken; Jobs of 8-512 one-GPU
pods, four priorities). Queues: 5 cohorts (parents) of 10 queues each; each queue is guaranteed
1/50 of the cluster's free GPUs and may use up to twice that (its limit), weights 1-3; every
cohort lends what its members leave unused. Job i goes to LocalQueue ``research/q<i mod 50>``,
which queue ``q<i mod 50>`` lists.

For each store (SQLite in a temporary directory, in memory) and each setting (no queues, 50
queues) a fresh scheduler imports the cluster, runs a warm-up cycle, is given the whole queue
(compiled once, as submit leaves it) and one ``Scheduler.cycle()`` is timed; then the empty
cycle (nothing changed, median of three). Also timed alone: building the queue accounts and the
fair-share order of the 1,000 pending gangs over the bookings after the cycle, with the sums the
loop keeps between cycles (what the queues add to a cycle besides the quota checks), and one
quota check. Without queues a cycle counts nothing (one unlimited ``default`` queue).

Times are CPU-time medians (``time.process_time``) of ``--runs`` runs, settings interleaved.

Run: python bench/queues.py [--nodes 10000] [--gangs 1000] [--queues 50] [--runs 3] [--quick]
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cycle import cluster, prepared, queue
from toposched.model import Cluster, QueueTree, SchedulingQueue
from toposched.scheduler import ManualClock, Scheduler, Submission
from toposched.scheduler.queue_cycle import QueueCycle, queue_tree
from toposched.scheduler.queue_quotas import QueueAccounts, booked_total, gang_request
from toposched.store import MemoryStore, SqliteStore, Store, WorkloadState

GPU = "nvidia.com/gpu"
COHORT_SIZE = 10


def queue_specs(count: int, free_gpus: int) -> list[dict[str, Any]]:
    """``count`` queues in cohorts of ten, each guaranteed an equal share of ``free_gpus``."""
    share = max(1, free_gpus // count)
    cohorts = [{"name": f"cohort{c}"} for c in range((count + COHORT_SIZE - 1) // COHORT_SIZE)]
    members = [
        {
            "name": f"q{i}",
            "parent": f"cohort{i // COHORT_SIZE}",
            "guaranteed": {GPU: share},
            "limit": {GPU: 2 * share},
            "weight": 1 + i % 3,
            "localQueues": [f"research/q{i}"],
        }
        for i in range(count)
    ]
    return cohorts + members


def labelled(
    jobs: list[tuple[list[dict[str, Any]], int]], queues: int
) -> list[tuple[list[dict[str, Any]], int]]:
    """Each Job on LocalQueue ``q<i mod queues>``."""
    for i, (documents, _) in enumerate(jobs):
        documents[0]["metadata"]["labels"] = {"kueue.x-k8s.io/queue-name": f"q{i % queues}"}
    return jobs


@dataclass(frozen=True)
class Run:
    cycle: float
    admitted: int
    empty: float
    accounts: float  # accounts + order over the queue after the cycle
    check: float  # one quota check


def run(
    store: Store, the_cluster: Cluster, submissions: list[Submission], specs: list[dict[str, Any]]
) -> Run:
    sched = Scheduler(store, ManualClock(1000.0))
    sched.import_cluster(the_cluster)
    for spec in specs:
        store.put_queue(SchedulingQueue.parse(spec))
    sched.cycle()
    for submission in submissions:
        sched.commit(submission)
    start = time.process_time()
    report = sched.cycle()
    cycle = time.process_time() - start
    empty = []
    for _ in range(3):
        start = time.process_time()
        sched.cycle()
        empty.append(time.process_time() - start)
    accounts, check = queue_costs(sched, store, submissions)
    store.close()
    return Run(cycle, len(report.admitted), statistics.median(empty), accounts, check)


def queue_costs(sched: Scheduler, store: Store, submissions: list[Submission]) -> tuple[float, float]:
    """CPU seconds to build the accounts and walk the fair-share order of the pending gangs, and
    of one quota check (median of many)."""
    state = sched._state  # the loop's state, as the cycle sees it
    pending = store.queue((WorkloadState.PENDING,))
    booked = store.reservations_by_workload()
    start = time.process_time()
    queues = QueueCycle.open(state, booked, pending)
    walked = sum(1 for _ in queues.order(pending))
    accounts = time.process_time() - start
    assert walked == len(pending)
    gang = submissions[0].gang
    tree: QueueTree = queue_tree(state)
    name = tree.queue_of(gang)
    request = gang_request(gang)
    acc = QueueAccounts.of(tree, queues.queue_of, {w: booked_total(n) for w, n in booked.items()})
    start = time.process_time()
    for _ in range(1000):
        acc.check(name, request)
    return accounts, (time.process_time() - start) / 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--gangs", type=int, default=1_000)
    parser.add_argument("--queues", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="512 nodes, 40 gangs, one run")
    args = parser.parse_args()
    if args.quick:
        args.nodes, args.gangs, args.runs = 512, 40, 1
    the_cluster = cluster(args.nodes)
    free = args.nodes * 4 - sum(p.requests[GPU] for p in the_cluster.pods)
    submissions = prepared(the_cluster, labelled(queue(args.gangs), args.queues))
    settings = {"no queues": [], f"{args.queues} queues": queue_specs(args.queues, free)}
    print(
        f"{args.nodes} nodes ({free} of {args.nodes * 4} GPUs free); {len(submissions)} pending Kueue Jobs "
        f"asking for {sum(s.gang.size for s in submissions)} pods; {args.runs} run(s)"
    )
    results: dict[tuple[str, str], list[Run]] = {}
    with tempfile.TemporaryDirectory() as workdir:
        for i in range(args.runs):
            for setting, specs in settings.items():
                sqlite = SqliteStore(Path(workdir) / f"{i}-{len(specs)}.db")
                results.setdefault(("sqlite", setting), []).append(
                    run(sqlite, the_cluster, submissions, specs)
                )
                results.setdefault(("memory", setting), []).append(
                    run(MemoryStore(), the_cluster, submissions, specs)
                )
    for (store, setting), done in results.items():
        cycle = statistics.median(r.cycle for r in done)
        empty = statistics.median(r.empty for r in done)
        accounts = statistics.median(r.accounts for r in done)
        check = statistics.median(r.check for r in done)
        print(
            f"  {store:<6} {setting:<10}  cycle {cycle:7.3f} s CPU  {done[-1].admitted:4d} gangs admitted   "
            f"empty cycle {empty * 1000:7.1f} ms   accounts+order {accounts * 1000:6.1f} ms   "
            f"quota check {check * 1e6:6.1f} us"
        )


if __name__ == "__main__":
    main()
