"""HTTP service latency under load: a real ``toposched serve`` on a loopback port, N concurrent
clients each submitting, reading and cancelling workloads (bounded loops).

Cluster: 1 zone x 2 blocks x 2 racks x 4 nodes, 8 GPUs each; jobs of 1-3 pods x 2/4/8 GPUs,
rack-required. Prints request count, p50 / p99 latency, the status mix and the server's CPU time
per request (read from /proc where there is one). Every client waits for each answer before it
sends the next request, so latency is about clients / throughput: on a shared machine the CPU time
per request is the steadier figure. ``--runs N`` starts a fresh server N times and prints the
medians.

``--client raw`` (default) gives every client its own lean keep-alive HTTP/1.1 connection;
``--client httpx`` shares one ``httpx.AsyncClient``, whose own CPU cost (about 10 ms a request)
dominates what it measures on a small machine.

Run: python bench/service_load.py [--clients 100] [--rounds 3] [--runs 1] [--client raw|httpx] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
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


def one_run(clients: int, rounds: int, client: ClientKind) -> tuple[LoadResult, float | None, int]:
    """One load on a fresh server: the result, server CPU seconds per request, over-commits."""
    with tempfile.TemporaryDirectory() as workdir:
        server = Server(Path(workdir), cluster=cluster_yaml())
        server.start()
        assert server.process is not None
        pid = server.process.pid
        try:
            before = cpu_seconds(pid)
            result = asyncio.run(
                run_load(
                    server.url, list(USERS.values()), ADMIN, clients=clients, rounds=rounds, client=client
                )
            )
            after = cpu_seconds(pid)
        finally:
            server.stop()
        per_request = None
        if before is not None and after is not None and result.latencies:
            per_request = (after - before) / len(result.latencies)
        return result, per_request, len(overcommitted(server.db))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--client", choices=["raw", "httpx"], default="raw")
    parser.add_argument("--quick", action="store_true", help="10 clients, 1 round: checks the script runs")
    args = parser.parse_args()
    clients, rounds = (10, 1) if args.quick else (args.clients, args.rounds)
    print(f"cluster: 16 nodes x 8 GPUs; {clients} clients x {rounds} rounds ({args.client} client)")
    p50s, p99s, cpus, errors, overcommits = [], [], [], 0, 0
    for _ in range(args.runs):
        result, per_request, overcommit = one_run(clients, rounds, args.client)
        print(result.summary())
        print(result.methods())
        p50s.append(result.percentile(0.5))
        p99s.append(result.percentile(0.99))
        if per_request is not None:
            cpus.append(per_request)
        errors += result.server_errors + len(result.transport_errors)
        overcommits += overcommit
    cpu = f"{statistics.median(cpus) * 1000:.2f} ms" if cpus else "n/a"
    print(
        f"median of {args.runs}: p50 {statistics.median(p50s) * 1000:.1f} ms, "
        f"p99 {statistics.median(p99s) * 1000:.1f} ms, server CPU per request {cpu}"
    )
    print(f"server errors: {errors}; over-commit: {overcommits}")


if __name__ == "__main__":
    main()
