"""The exact (complete) search alone, per gang shape, against the faithful placement.

On ``bench/place.py``'s cluster (zone / block / rack / hostname, 4 GPUs a node, about half in
use), each of its gangs, plus two the faithful solvers refuse: the 512-pod Job required in a
block in 16-pod rack slices that no block holds (issue 24's, which the slice bound refuses at
once) and a 1024-pod block-required Job (more than a block's free GPUs). For each: the faithful
placement (``Search.FAITHFUL``, the upstream solver's own answer) and the exact search alone
(``search_complete``, what ``Search.COMPLETE`` runs when the faithful answer refuses), both CPU
medians on one snapshot, the search's steps and answer, and the ratio exact / faithful. The exact
search has the default budget (50,000 steps; no time bound, so it measures the search itself);
a search that takes more than a second is timed once. Each search's CPU time per step (µs) is
printed too, with their median and the time per step over all searches' steps:
``toposched.engine.core.budget.STEP_SECONDS``, what the simulator's ``WorkClock`` counts per
step, is the latter at the default size.

Run: python bench/exact.py [--size 5000] [--runs 5] [--steps 50000] [--quick]
(--quick: 2048 nodes, one run, 2,000 steps, to check that the script works; the figures mean
nothing.)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from toposched.engine import PlacementOptions, SearchBudget, open_session
from toposched.engine.core.budget import STEP_SECONDS, WorkMeter
from toposched.engine.core.options import DEFAULT_STEPS
from toposched.engine.core.policy_registry import PlacementPolicy
from toposched.engine.exact.complete import search_complete
from toposched.engine.place import hierarchical
from toposched.engine.profiles import as_policy
from toposched.model import Gang, Placement, Policy, Search, SliceLayer, Topology, Unschedulable
from toposched.snapshot import Snapshot
from toposched.topology import TopologyTree

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the placement benchmark's cluster and gangs
from place import BLOCK, GANGS, LEVELS, RACK, cluster, gang, median_ms

REFUSED: tuple[tuple[Gang, Policy], ...] = (
    (gang("block-512-rack-slices", 512, required=BLOCK, slices=(SliceLayer(RACK, 16),)), Policy.MIXED),
    (gang("block-1024", 1024, required=BLOCK), Policy.MIXED),
)


def answer(result: Placement | Unschedulable) -> str:
    if isinstance(result, Placement):
        return "placed"
    return "budget" if result.budget_exhausted else "none exists"


def report(size: int, runs: int, steps: int) -> None:
    nodes, pods = cluster(size)
    snapshot = Snapshot.build(TopologyTree.build(Topology.create("bench", LEVELS), nodes), pods)
    session = open_session(PlacementOptions(search=Search.FAITHFUL))
    print(f"{size} nodes; CPU medians of {runs} run(s); exact search budget {steps} steps")
    print(
        f"  {'':<7} {'gang':<26} {'pods':>5} {'faithful':>24} {'exact search':>26} {'steps':>6}"
        f" {'µs/step':>8}  exact / faithful"
    )
    per_step: list[float] = []
    work: list[tuple[float, int]] = []  # (ms, steps) of each gang's first search
    for g, policy in (*GANGS, *REFUSED):
        rules = as_policy(policy)
        faithful = session.place(g, snapshot, policy=policy, probe=False)
        refusal = (
            faithful if isinstance(faithful, Unschedulable) else Unschedulable(g.name, "bench", policy, "")
        )
        kueue = not hierarchical(g, rules)

        meter = WorkMeter()  # the steps of every search of this gang

        def exact(
            g: Gang = g,
            refusal: Unschedulable = refusal,
            rules: PlacementPolicy = rules,
            kueue: bool = kueue,
            meter: WorkMeter = meter,
        ) -> Placement | Unschedulable:
            budget = SearchBudget(steps, meter=meter)
            return search_complete(
                g, snapshot, refusal, policy=rules, kueue=kueue, budget=budget, caches=session.caches
            )

        start = time.process_time()
        found = exact()
        once = (time.process_time() - start) * 1000
        taken = meter.steps
        micros = once * 1000 / taken if taken else float("nan")
        if taken:
            per_step.append(micros)
            work.append((once, taken))
        fast = median_ms(
            lambda g=g, policy=policy: session.place(g, snapshot, policy=policy, probe=False), runs
        )
        slow = once if once > 1000 else median_ms(exact, runs)  # a search of seconds: timed once
        print(
            f"  {policy.value:<7} {g.name:<26} {g.size:5d} {fast:8.2f} ms {answer(faithful):<12}"
            f" {slow:10.2f} ms {answer(found):<12} {taken:>6} {micros:8.1f}  x{slow / fast:9.1f}"
        )
    overall = sum(ms for ms, _ in work) * 1000 / sum(steps for _, steps in work)
    print(
        f"  µs per step: median {statistics.median(per_step):.1f} (from {min(per_step):.1f} to"
        f" {max(per_step):.1f}), {overall:.1f} over all steps; a WorkClock counts {STEP_SECONDS * 1e6:.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--steps", type=int, default=DEFAULT_STEPS, help="the exact search's budget")
    parser.add_argument(
        "--quick", action="store_true", help="2048 nodes, one run, 2,000 steps: a smoke check"
    )
    args = parser.parse_args()
    size, runs, steps = (2048, 1, 2000) if args.quick else (args.size, args.runs, args.steps)
    report(size, runs, steps)


if __name__ == "__main__":
    main()
