"""kube-scheduler and toposched side by side: generated cases placed by kube-scheduler v1.37.2 on
a real control plane and by ``toposched place`` (faithful search) on a dump of the same cluster,
compared PodGroup by PodGroup (tests/realkube/sidebyside).

Each case is a generated cluster (zone / block / rack / host labels, mixed allocatable, some
nodes tainted, cordoned, NotReady or partly used by bound pods) and gang (a PodGroup, a
Workload of several PodGroups, a CompositePodGroup tree or a Job with ``spec.scheduling``),
the same on every machine for the same seed and case number. The report at the end counts
agreements per gang kind and lists every disagreement with its explanation.

Needs the binaries of testenv/build.sh (etcd, kube-apiserver, kube-scheduler).

Run: python bench/vs_kube_scheduler.py [--cases 1000] [--seed 1] [--start 0 | --only 3,17] [--keep DIR]
[--json FILE] [--quiet]
(--keep DIR: each case that does not agree leaves toposched's inputs and kube-scheduler's
bindings in DIR/seed<S>-case<N>/; --json FILE: every verdict, one JSON object a line;
--quiet: no line per case.)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the harness lives with the tests

from tests.realkube.binaries import BinariesMissingError, find_binaries
from tests.realkube.processes import ControlPlaneError
from tests.realkube.sidebyside.batch import run_batch, side_by_side
from tests.realkube.sidebyside.compare import Verdict
from tests.realkube.sidebyside.report import agreed, report, verdict_json


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--start", type=int, default=0, help="number of the first case")
    parser.add_argument("--only", help="these case numbers (comma-separated) instead of a range")
    parser.add_argument("--keep", type=Path, help="folder for the files of cases that do not agree")
    parser.add_argument("--json", type=Path, help="write each case's verdict there, one JSON object a line")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args()
    try:
        binaries = find_binaries()
    except BinariesMissingError as exc:
        print(exc, file=sys.stderr)
        return 2
    start = time.monotonic()

    record = args.json.open("w") if args.json else None

    def each(verdict: Verdict) -> None:
        if record is not None:
            record.write(json.dumps(verdict_json(verdict)) + "\n")
            record.flush()
        if not args.quiet:
            mark = "  " if agreed(verdict) else "!!"
            print(
                f"{mark} case {verdict.case.index:>5} {verdict.outcome:<12} {verdict.case.summary}",
                file=sys.stderr,
            )

    try:
        indexes = (
            [int(i) for i in args.only.split(",")]
            if args.only
            else range(args.start, args.start + args.cases)
        )
        with side_by_side(binaries) as side:
            verdicts = run_batch(side, args.seed, indexes, keep=args.keep, each=each)
    except ControlPlaneError as exc:
        print(f"the control plane failed: {exc}", file=sys.stderr)
        return 1
    command = f"python bench/vs_kube_scheduler.py --cases {args.cases} --seed {args.seed}"
    if args.only:
        command = f"python bench/vs_kube_scheduler.py --seed {args.seed} --only {args.only}"
    elif args.start:
        command += f" --start {args.start}"
    print(report(verdicts, command))
    print(f"\n{len(verdicts)} cases in {time.monotonic() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
