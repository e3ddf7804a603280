"""HTTP service latency under load: a real ``toposched serve`` on a loopback port, N concurrent
clients each submitting, reading and cancelling workloads (bounded loops).

Cluster: 1 zone x 2 blocks x 2 racks x 4 nodes, 8 GPUs each; jobs of 1-3 pods x 2/4/8 GPUs,
rack-required. Prints request count, p50 / p99 latency and the status mix.

``--client raw`` (default) gives every client its own lean keep-alive HTTP/1.1 connection;
``--client httpx`` shares one ``httpx.AsyncClient``, whose own CPU cost (about 10 ms a request)
dominates what it measures on a small machine.

Run: python bench/service_load.py [--clients 100] [--rounds 3] [--client raw|httpx]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

# The load driver and the server harness live with the service tests; reuse them.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.api.specs import cluster_yaml
from tests.service.checks import overcommitted
from tests.service.load import run_load
from tests.service.server import ADMIN, USERS, Server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--client", choices=["raw", "httpx"], default="raw")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        server = Server(Path(workdir), cluster=cluster_yaml())
        server.start()
        try:
            result = asyncio.run(
                run_load(
                    server.url,
                    list(USERS.values()),
                    ADMIN,
                    clients=args.clients,
                    rounds=args.rounds,
                    client=args.client,
                )
            )
        finally:
            server.stop()
        print(
            f"cluster: 16 nodes x 8 GPUs; {args.clients} clients x {args.rounds} rounds ({args.client} client)"
        )
        print(result.summary())
        print(result.methods())
        print(f"p50 {result.percentile(0.5) * 1000:.1f} ms, p99 {result.percentile(0.99) * 1000:.1f} ms")
        print(f"server errors: {result.server_errors}; over-commit: {len(overcommitted(server.db))}")


if __name__ == "__main__":
    main()
