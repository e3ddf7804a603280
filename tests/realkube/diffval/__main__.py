"""``python -m tests.realkube.diffval [--mutations N] [--seed S]`` (from the repository root):
starts the tests' control plane, runs the differential validation and prints its report; exit 1
when a disagreement is unexplained."""

from __future__ import annotations

import argparse
import sys

from tests.realkube.binaries import find_binaries
from tests.realkube.control_plane import running_control_plane
from tests.realkube.crds import install_crds
from tests.realkube.diffval.run import MUTATIONS, SEED, corpus, run


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.realkube.diffval")
    parser.add_argument("--mutations", type=int, default=MUTATIONS)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--show", type=int, default=40, help="unexplained disagreements shown")
    args = parser.parse_args()
    with running_control_plane(find_binaries()) as plane:
        install_crds(plane)
        report = run(plane, corpus(args.seed, args.mutations))
    for line in report.lines(limit=args.show):
        print(line)
    return 1 if report.unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
