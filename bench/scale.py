"""The loop at scale: time to admission, the empty cycle and peak memory with many admitted gangs.

Cluster: ``bench/cycle.py``'s (zone / block / rack / hostname, 16 nodes a rack, 4 GPUs a node,
about half of them taken by running pods), 10k, 25k and 100k nodes. Store: SQLite in a temporary
directory. Gangs: one per 10 nodes by default (10k at 100k nodes), Kueue-annotated indexed Jobs
of 4, 8 or 16 one-GPU pods, required or preferred in a rack or a block: about 40% of the free
GPUs, so every gang is admitted.

Per size, in a fresh process (so its peak RSS is its own):

* fill: the gangs, compiled beforehand (``Scheduler.prepare``, as the service's submit leaves
  them), are queued at once; cycles run until none is pending. A gang's time to admission is
  from the queueing to the store's commit of its admission; printed as the median and p90, with
  the number of cycles and their total.
* empty cycle: with every gang admitted, a cycle in which nothing changed (median of
  ``--runs``).
* one more: one gang submitted (already compiled) and one cycle: the time from its queueing to
  its admission with the store full of admitted gangs (median of ``--runs``; each is cancelled
  after).
* memory: the process's peak RSS (``ru_maxrss``) and its RSS once the inputs (node, pod and Job
  lists, compiled gangs) were built, so the difference is what the store and the loop took.

Times are CPU seconds of the process (the scheduler's clock is ``time.process_time``, so event
and admission times are CPU times too; load from other processes on a shared machine does not
count); the fill's wall time is printed too.

Run: python bench/scale.py [--sizes 10000,25000,100000] [--per-gang 10] [--runs 5] [--quick]
--quick: 1024 nodes, 2 runs (what tests/bench runs).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from toposched.model import Cluster, ConflictError
from toposched.scheduler import Scheduler, Submission
from toposched.store import Admission, SqliteStore, WorkloadState

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cycle import BLOCK, RACK, cluster, job

SIZES = (4, 8, 16)
SIZE_WEIGHTS = (0.3, 0.4, 0.3)
CONSTRAINTS = (("required", RACK), ("preferred", RACK), ("required", BLOCK), ("preferred", BLOCK))


class CpuClock:
    """The process's CPU time: the scheduler's clock here, so its event times are CPU times."""

    def now(self) -> float:
        return time.process_time()


class TimedStore(SqliteStore):
    """A SQLite store that notes when each admission was committed (on the CPU clock)."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.admitted_at: dict[int, float] = {}

    def write_decisions(self, decisions: Any) -> dict[int, ConflictError]:
        refused = super().write_decisions(decisions)
        now = time.process_time()
        for decision in decisions:
            if isinstance(decision, Admission) and decision.workload not in refused:
                self.admitted_at[decision.workload] = now
        return refused


def jobs(count: int, seed: int = 13) -> list[list[dict[str, Any]]]:
    rng = np.random.default_rng(seed)
    sizes = rng.choice(SIZES, size=count, p=SIZE_WEIGHTS)
    kinds = rng.integers(0, len(CONSTRAINTS), size=count)
    out = []
    for i in range(count):
        kind, level = CONSTRAINTS[int(kinds[i])]
        out.append(job(f"gang-{i}", int(sizes[i]), kind, level, 0))
    return out


def rss_mb() -> float:
    """The resident set now (Linux /proc)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux


def one_size(size: int, per_gang: int, runs: int) -> None:
    """Everything for one size, in this process; prints one block of figures."""
    the_cluster: Cluster = cluster(size)
    count = max(1, size // per_gang)
    with tempfile.TemporaryDirectory() as workdir:
        store = TimedStore(Path(workdir) / "scale.db")
        sched = Scheduler(store, CpuClock())
        sched.import_cluster(the_cluster)
        submissions: list[Submission] = [sched.prepare(docs, owner="bench") for docs in jobs(count)]
        extra = [sched.prepare(job(f"extra-{i}", 8, "required", RACK, 0), owner="bench") for i in range(runs)]
        inputs_rss = rss_mb()
        sched.cycle()  # builds what the loop keeps between cycles
        pods = sum(s.gang.size for s in submissions)
        wall, start = time.perf_counter(), time.process_time()
        queued = {sched.commit(s).id: start for s in submissions}
        cycles = 0
        while sched.store.queue((WorkloadState.PENDING,)):
            report = sched.cycle()
            cycles += 1
            if not report.admitted:
                break
        fill, wall = time.process_time() - start, time.perf_counter() - wall
        waits = sorted(store.admitted_at[w] - queued[w] for w in queued if w in store.admitted_at)
        empty = []
        for _ in range(runs):
            begin = time.process_time()
            sched.cycle()
            empty.append(time.process_time() - begin)
        more = []
        for submission in extra:
            begin = time.process_time()
            record = sched.commit(submission)
            sched.cycle()
            more.append(store.admitted_at.get(record.id, float("nan")) - begin)
            sched.cancel(record.id, actor="bench", admin=True)
        store.close()
    p90 = waits[int(0.9 * (len(waits) - 1))] if waits else float("nan")
    print(
        f"{size} nodes, {len(waits)} of {count} gangs ({pods} pods) admitted\n"
        f"  fill              {fill:8.2f} s CPU ({wall:.2f} s wall) in {cycles} cycle(s)\n"
        f"  time to admission {statistics.median(waits) if waits else float('nan'):8.2f} s median"
        f"  {p90:.2f} s p90\n"
        f"  empty cycle       {statistics.median(empty) * 1000:8.1f} ms\n"
        f"  one more gang     {statistics.median(more) * 1000:8.1f} ms to admission\n"
        f"  memory            {peak_mb():8.0f} MB peak RSS ({inputs_rss:.0f} MB after building the inputs)",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", default="10000,25000,100000")
    parser.add_argument("--per-gang", type=int, default=10, help="nodes per admitted gang")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="1024 nodes, 2 runs")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # one size, in this process
    args = parser.parse_args()
    if args.one:
        one_size(args.one, args.per_gang, args.runs)
        return
    sizes, runs = ("1024", 2) if args.quick else (args.sizes, args.runs)
    for size in sizes.split(","):
        done = subprocess.run(
            [sys.executable, __file__, "--one", size, "--per-gang", str(args.per_gang), "--runs", str(runs)],
            check=False,
        )
        if done.returncode:
            sys.exit(done.returncode)


if __name__ == "__main__":
    main()
