"""HTTP service latency under load: a real ``toposched serve`` on a loopback port, N concurrent
clients each submitting, reading and cancelling workloads (bounded loops).

Cluster: 1 zone x 2 blocks x 2 racks x 4 nodes, 8 GPUs each; jobs of 1-3 pods x 2/4/8 GPUs,
rack-required. Prints request count, p50 / p99 latency, the status mix and the server's CPU time
per request (read from /proc where there is one). Every client waits for each answer before it
sends the next request, so latency is about clients / throughput: on a shared machine the CPU time
per request is the steadier figure; throughput is requests per second of the load's wall time.
The clients run in this process, the server in its own; the clients' CPU time per request is
printed too, since on a small machine it competes with the server's.
``--runs N`` starts a fresh server N times and prints the medians. ``--baseline SRC`` alternates
each run with a server importing toposched from the source tree SRC (e.g. an older checkout's
``src``), so load from other processes falls on both alike, and prints the ratios.

``--think MS`` makes each client pause that long after every answer, as a user reading it would
(the clients start spread over one pause): the load is then what the clients ask for (about
clients / think requests per second), and the throughput printed is that offered rate, not what
the server could take; latency is the service time plus what queueing remains.

``--client raw`` (default) gives every client its own lean keep-alive HTTP/1.1 connection;
``--client httpx`` shares one ``httpx.AsyncClient``, whose own CPU cost (about 10 ms a request)
dominates what it measures on a small machine.

Run: python bench/service_load.py [--clients 100] [--rounds 3] [--runs 1] [--client raw|httpx]
[--think MS] [--baseline SRC] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

# The load driver and the server harness live with the service tests; reuse them.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.api.specs import cluster_yaml
from tests.service.checks import overcommitted
from tests.service.load import ClientKind, LoadResult, run_load
from tests.service.server import ADMIN, USERS, Server


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of process ``pid`` so far; None without /proc."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Figures:
    """The medians over the runs of one server build."""

    p50s: list[float] = field(default_factory=list)
    p99s: list[float] = field(default_factory=list)
    throughputs: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)
    client_cpus: list[float] = field(default_factory=list)
    errors: int = 0
    overcommits: int = 0
    rate_name: str = "throughput"  # "offered rate" when the clients pause (--think)

    def add(self, load: Load) -> None:
        result, seconds, per_request, overcommit = (
            load.result,
            load.seconds,
            load.server_cpu,
            load.overcommits,
        )
        self.client_cpus.append(load.client_cpu)
        self.p50s.append(result.percentile(0.5))
        self.p99s.append(result.percentile(0.99))
        self.throughputs.append(len(result.latencies) / seconds)
        if per_request is not None:
            self.cpus.append(per_request)
        self.errors += result.server_errors + len(result.transport_errors)
        self.overcommits += overcommit

    @property
    def cpu(self) -> float | None:
        return statistics.median(self.cpus) if self.cpus else None

    def summary(self) -> str:
        cpu = f"{self.cpu * 1000:.2f} ms" if self.cpu is not None else "n/a"
        return (
            f"p50 {statistics.median(self.p50s) * 1000:.1f} ms, p99 {statistics.median(self.p99s) * 1000:.1f} ms, "
            f"{self.rate_name} {statistics.median(self.throughputs):.0f}/s, server CPU per request {cpu}, "
            f"client CPU per request {statistics.median(self.client_cpus) * 1000:.2f} ms"
        )


@dataclass(frozen=True)
class Load:
    """One load on a fresh server: the clients' result, its wall seconds, the server's and the
    clients' CPU seconds per request (the server's None without /proc), over-commits found after."""

    result: LoadResult
    seconds: float
    server_cpu: float | None
    client_cpu: float
    overcommits: int


def one_run(clients: int, rounds: int, client: ClientKind, source: str | None, think: float = 0.0) -> Load:
    """One load on a fresh server (importing toposched from ``source`` when given)."""
    env = dict(os.environ)
    if source is not None:  # the server inherits the environment
        os.environ["PYTHONPATH"] = os.pathsep.join([source, env.get("PYTHONPATH", "")])
    try:
        return _load(clients, rounds, client, think)
    finally:
        os.environ.clear()
        os.environ.update(env)


def _load(clients: int, rounds: int, client: ClientKind, think: float) -> Load:
    with tempfile.TemporaryDirectory() as workdir:
        server = Server(Path(workdir), cluster=cluster_yaml())
        server.start()
        assert server.process is not None
        pid = server.process.pid
        try:
            before, started, own = cpu_seconds(pid), time.perf_counter(), time.process_time()
            result = asyncio.run(
                run_load(
                    server.url,
                    list(USERS.values()),
                    ADMIN,
                    clients=clients,
                    rounds=rounds,
                    client=client,
                    think=think,
                )
            )
            after, seconds, own = cpu_seconds(pid), time.perf_counter() - started, time.process_time() - own
        finally:
            server.stop()
        per_request = None
        if before is not None and after is not None and result.latencies:
            per_request = (after - before) / len(result.latencies)
        requests = max(1, len(result.latencies))
        return Load(result, seconds, per_request, own / requests, len(overcommitted(server.db)))


def _milliseconds(text: str) -> float:
    value = float(text)
    if not value >= 0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"{text} is not a pause: give 0 or more milliseconds")
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--client", choices=["raw", "httpx"], default="raw")
    parser.add_argument(
        "--think", type=_milliseconds, default=0.0, metavar="MS", help="each client's pause after an answer"
    )
    parser.add_argument(
        "--baseline", metavar="SRC", help="alternate runs with a server from this source tree"
    )
    parser.add_argument("--quick", action="store_true", help="10 clients, 1 round: checks the script runs")
    args = parser.parse_args()
    clients, rounds = (10, 1) if args.quick else (args.clients, args.rounds)
    think = args.think / 1000
    pause = f", {args.think:g} ms think time" if think else ""
    print(f"cluster: 16 nodes x 8 GPUs; {clients} clients x {rounds} rounds ({args.client} client{pause})")
    rate_name = "offered rate" if think else "throughput"
    figures, baseline = Figures(rate_name=rate_name), Figures(rate_name=rate_name)
    for _ in range(args.runs):
        if args.baseline is not None:
            load = one_run(clients, rounds, args.client, args.baseline, think)
            print(f"baseline: {load.result.summary()}")
            baseline.add(load)
        load = one_run(clients, rounds, args.client, None, think)
        print(load.result.summary())
        print(load.result.methods())
        figures.add(load)
    print(f"median of {args.runs}: {figures.summary()}")
    if args.baseline is not None:
        print(f"baseline median of {args.runs}: {baseline.summary()}")
        ratios = [
            ("p50", statistics.median(figures.p50s) / statistics.median(baseline.p50s)),
            ("p99", statistics.median(figures.p99s) / statistics.median(baseline.p99s)),
        ]
        if not think:  # with think time both runs get the rate the clients offer
            ratios.append(
                (
                    "throughput",
                    statistics.median(figures.throughputs) / statistics.median(baseline.throughputs),
                )
            )
        if figures.cpu is not None and baseline.cpu is not None:
            ratios.append(("CPU per request", figures.cpu / baseline.cpu))
        print("ratio to baseline: " + ", ".join(f"{name} {ratio:.2f}x" for name, ratio in ratios))
    print(f"server errors: {figures.errors}; over-commit: {figures.overcommits}")


if __name__ == "__main__":
    main()
