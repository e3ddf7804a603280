"""Replay speed: seconds and jobs per second to replay the first N jobs of a trace through the
scheduler (``toposched.sim``), one policy, in this process.

The inputs (trace rows, cluster, Job documents) are built outside the timing; the figure is the
CPU time of the replay itself (``time.process_time``), median of ``--runs`` runs, so load from
other processes on a shared machine does not count. The last line extrapolates the jobs/s of the
largest N to the whole trace (only a guide: later parts of a trace may be busier).

Run: python bench/simulate.py [--trace philly] [--trace-dir ../shared/traces]
     [--cluster nvl72:racks=32] [--jobs 500,2000] [--policy bestfit] [--runs 1] [--quick]
--quick: the first 100 jobs on nvl72:racks=4, one run (what tests/bench runs).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from toposched.model import Policy
from toposched.sim.clusters import total_gpus
from toposched.sim.config import SimConfig, TraceLimits
from toposched.sim.study import StudySpec, build_inputs, replay_policy
from toposched.sim.trace import load_trace

DEFAULT_TRACES = Path(__file__).resolve().parents[2] / "shared" / "traces"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", default="philly")
    parser.add_argument("--trace-dir", type=Path, default=DEFAULT_TRACES)
    parser.add_argument("--cluster", default="nvl72:racks=32")
    parser.add_argument("--jobs", default="500,2000", help="comma-separated job counts")
    parser.add_argument("--policy", default="bestfit", choices=[p.value for p in Policy])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.cluster, args.jobs, args.runs = "nvl72:racks=4", "100", 1
    config = SimConfig(traces=TraceLimits(directory=args.trace_dir))
    whole = len(load_trace(args.trace, config.traces).jobs)
    rate = 0.0
    for count in (int(n) for n in args.jobs.split(",")):
        spec = StudySpec(args.trace, args.cluster, config, limit_jobs=count)
        inputs = build_inputs(spec)
        seconds, cycles = [], 0
        for _ in range(args.runs):
            started = time.process_time()
            result = replay_policy(spec, Policy(args.policy), inputs)
            seconds.append(time.process_time() - started)
            cycles = result.cycles
        median = statistics.median(seconds)
        rate = len(inputs.jobs) / median if median else float("inf")
        print(
            f"{args.trace} first {len(inputs.jobs)} jobs on {args.cluster} ({total_gpus(inputs.cluster)} GPUs),"
            f" {args.policy}: {median:.2f} s CPU, {rate:.0f} jobs/s, {cycles} cycles"
            f" ({1000 * median / max(cycles, 1):.2f} ms per cycle)"
        )
    print(f"whole trace ({whole} jobs) at {rate:.0f} jobs/s: about {whole / rate:.0f} s" if rate else "")


if __name__ == "__main__":
    main()
