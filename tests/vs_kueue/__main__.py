"""``python -m tests.vs_kueue --cases N --seed S`` (from the repository root): starts the tests'
control plane and Kueue's manager (testenv/build.sh builds both), runs N generated cases through
Kueue and toposched, one manager per profile, and prints the agreement tables and every
disagreement last. ``--out DIR`` writes each disagreeing case, with Kueue's answer as its
expectation, in the conformance format."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tests.realkube.binaries import BinariesMissingError, find_binaries
from tests.realkube.control_plane import running_control_plane
from tests.realkube.crds import install_crds
from tests.realkube.processes import ControlPlaneError
from tests.vs_kueue.cases import PROFILES, generate
from tests.vs_kueue.compare import Outcome, Verdict
from tests.vs_kueue.manager import KueueBuild, install_kueue_crds, running_manager
from tests.vs_kueue.report import describe, dumps, regression_case, table
from tests.vs_kueue.runner import ensure_namespaces, run_batch


def case_key(seed: int, index: int) -> str:
    return f"s{seed}c{index}"


def run(cases: int, seed: int, *, batch: int, profiles: Sequence[str], out: Path | None) -> list[Outcome]:
    try:
        binaries = find_binaries()
    except BinariesMissingError as exc:
        raise ControlPlaneError(str(exc)) from exc
    build = KueueBuild.beside(binaries.folder)
    missing = build.missing()
    if missing:
        raise ControlPlaneError(missing)
    generated = [(case_key(seed, i), generate(seed, i)) for i in range(cases)]
    outcomes: list[Outcome] = []
    with running_control_plane(binaries) as plane:
        install_crds(plane)
        install_kueue_crds(plane, build)
        ensure_namespaces(plane)
        for profile in profiles:
            mine = [(key, case) for key, case in generated if case["profile"] == profile]
            if not mine:
                continue
            started = time.monotonic()
            with running_manager(plane, build, profile):
                api = plane.admin_api()
                try:
                    for first in range(0, len(mine), batch):
                        outcomes += run_batch(api, mine[first : first + batch])
                        print(
                            f"{profile}: {min(first + batch, len(mine))}/{len(mine)} cases",
                            file=sys.stderr,
                            flush=True,
                        )
                finally:
                    api.close()
            print(f"{profile}: {len(mine)} cases in {time.monotonic() - started:.0f} s", file=sys.stderr)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        keys = {id(case): key for key, case in generated}
        for outcome in outcomes:
            if outcome.verdict is Verdict.DIFFERENT:
                key = keys[id(outcome.case)]
                (out / f"{outcome.case['id']}.json").write_text(dumps(regression_case(outcome, key)))
    return outcomes


def render(outcomes: Sequence[Outcome], seed: int) -> str:
    lines = [
        f"Kueue v0.19.2 (its manager on kube-apiserver v1.37.2) vs toposched, {len(outcomes)} generated cases, seed {seed}",
        "",
        table(outcomes, "profile"),
        "",
        table(outcomes, "requestKind"),
    ]
    different = [o for o in outcomes if o.verdict is Verdict.DIFFERENT]
    lines += ["", f"disagreements: {len(different)}"]
    for outcome in different:
        case: dict[str, Any] = dict(outcome.case)
        lines += [
            f"- {case['id']} ({case['requestKind']}, {case['profile']}):",
            f"    kueue:     {describe(outcome.kueue)}",
            f"    toposched: {describe(outcome.toposched)}",
            f"    why:       {outcome.explanation or 'not explained'}",
        ]
    worded = [o for o in outcomes if o.verdict is Verdict.BOTH_REFUSE and not o.same_message]
    lines += ["", f"both refuse, in other words: {len(worded)}"]
    for outcome in worded:
        lines += [
            f"- {outcome.case['id']} ({outcome.case['requestKind']}, {outcome.case['profile']}):",
            f"    kueue:     {outcome.kueue}",
            f"    toposched: {outcome.toposched}",
            f"    why:       {outcome.explanation or 'not explained'}",
        ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.vs_kueue", description=__doc__)
    parser.add_argument("--cases", type=int, default=60, help="generated cases (default 60)")
    parser.add_argument("--seed", type=int, default=1, help="generator seed (default 1)")
    parser.add_argument("--batch", type=int, default=20, help="cases created side by side (default 20)")
    parser.add_argument(
        "--profile", action="append", choices=PROFILES, help="only these profiles (repeatable)"
    )
    parser.add_argument("--out", type=Path, help="write each disagreeing case here as a conformance case")
    args = parser.parse_args(argv)
    if args.cases < 1 or args.batch < 1:
        parser.error("--cases and --batch must be at least 1")
    try:
        outcomes = run(
            args.cases, args.seed, batch=args.batch, profiles=args.profile or PROFILES, out=args.out
        )
    except ControlPlaneError as exc:
        print(f"vs_kueue: {exc}", file=sys.stderr)
        return 1
    print(render(outcomes, args.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
