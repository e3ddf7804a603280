"""Memory of the ungater controller while gangs come and go (issue: ~24 kB kept per finished gang).

Runs ``tests/controller/soak.py``'s rounds against the in-memory API double: each round creates
one two-pod gang per rack (gated), lets the controller place, record and ungate them, binds them,
finishes and deletes them. Every ``--every`` gangs it prints the resident set (RSS, Linux /proc)
and, with ``--tracemalloc`` (about five times slower), the Python heap traced since before the
controller was built, both after ``gc.collect()``; at the end, the growth per gang after the first
mark (the warm-up).

Run: python bench/controller_memory.py [--gangs 5000] [--every 1000] [--racks 20] [--tracemalloc]
     [--quick: 400 gangs, a mark every 200]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the soak harness, in tests/
from tests.controller.soak import marks


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--gangs", type=int, default=5_000)
    parser.add_argument("--every", type=int, default=1_000, help="gangs between two measurements")
    parser.add_argument("--racks", type=int, default=20, help="gangs per round")
    parser.add_argument("--tracemalloc", action="store_true")
    parser.add_argument("--quick", action="store_true", help="400 gangs, a mark every 200")
    args = parser.parse_args()
    if args.quick:
        args.gangs, args.every = 400, 200
    print(f"{'gangs':>7} {'RSS MB':>8} {'heap kB':>10} {'seconds':>8}")
    seen = []
    for mark in marks(args.gangs, args.every, trace=args.tracemalloc, racks=args.racks):
        seen.append(mark)
        heap = f"{mark.heap / 1024:>10.0f}" if args.tracemalloc else f"{'-':>10}"
        print(f"{mark.gangs:>7} {mark.rss / 2**20:>8.1f} {heap} {mark.seconds:>8.1f}", flush=True)
    if len(seen) > 1:
        first, last = seen[0], seen[-1]
        gangs = last.gangs - first.gangs
        heap = f" and {(last.heap - first.heap) / gangs:+.0f} B heap" if args.tracemalloc else ""
        print(
            f"after the warm-up ({first.gangs} gangs): {(last.rss - first.rss) / gangs:+.0f} B RSS{heap}"
            f" per finished gang over {gangs} gangs"
        )


if __name__ == "__main__":
    main()
