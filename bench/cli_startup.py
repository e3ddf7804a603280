"""CPU time of a whole ``toposched`` command, start to exit: ``--version`` and ``place`` of the
README's example on the bundled 288-node cluster, each against a budget of 0.4 s.

Each command runs as its own process; its CPU time (user + system) is read from the operating
system when it exits (``os.wait4``), so it counts the interpreter's start, every import and the
work. The floor is the bare interpreter (``python -c pass``). Bytecode is compiled once into a
temporary ``PYTHONPYCACHEPREFIX`` before timing, as an installed package's is at install time
(a checkout run with ``PYTHONDONTWRITEBYTECODE`` compiles every module on every start). Runs of
the three alternate, so load from other processes falls on each alike; the median is printed.

Run: python bench/cli_startup.py [--runs N] [--quick]
(--quick: 2 runs, to check that the script works; the figures mean little.)
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUDGET = 0.4  # seconds of CPU per command (issue 27)
CLI = "from toposched.cli.main import app; app(prog_name='toposched')"
COMMANDS = {
    "floor (python -c pass)": ["-c", "pass"],
    "toposched --version": ["-c", CLI, "--version"],
    "toposched place (288 nodes)": [
        "-c",
        CLI,
        "place",
        str(ROOT / "examples/kueue/job-rack.yaml"),
        "--cluster",
        str(ROOT / "src/toposched/samples/cluster.yaml"),
    ],
}


def cpu_seconds(args: list[str], env: dict[str, str]) -> float:
    """User + system CPU of one run of ``python ARGS``, which must succeed."""
    child = subprocess.Popen(
        [sys.executable, *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    stderr = child.stderr.read().decode() if child.stderr else ""
    if child.returncode != 0:
        raise SystemExit(f"python {' '.join(args)} exited {child.returncode}: {stderr}")
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--quick", action="store_true", help="2 runs: check that the script works")
    args = parser.parse_args()
    runs = 2 if args.quick else args.runs
    with tempfile.TemporaryDirectory(prefix="toposched-pyc-") as cache:
        env = {**os.environ, "PYTHONPYCACHEPREFIX": cache}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        src = str(ROOT / "src")
        env["PYTHONPATH"] = os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH")) if p)
        for command in COMMANDS.values():  # fills the bytecode cache
            cpu_seconds(command, env)
        times: dict[str, list[float]] = {name: [] for name in COMMANDS}
        for _ in range(runs):
            for name, command in COMMANDS.items():
                times[name].append(cpu_seconds(command, env))
    print(f"CPU time (user + sys) per command, median of {runs} runs; budget {BUDGET} s")
    for name, samples in times.items():
        median = statistics.median(samples)
        verdict = "" if name.startswith("floor") else f"  {median / BUDGET:.2f} of budget"
        print(f"{name:<30} {median:6.3f} s  (min {min(samples):.3f}, max {max(samples):.3f}){verdict}")


if __name__ == "__main__":
    main()
