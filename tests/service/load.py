"""A bounded load: N concurrent clients, each submitting then cancelling a few workloads.

Shared by ``test_load.py`` and ``bench/service_load.py``. Every client is an asyncio task with
its own loop of ``rounds`` iterations, so the run always ends.
"""

from __future__ import annotations

import asyncio
import statistics
from dataclasses import dataclass, field

import httpx
from tests.api.specs import job_yaml

from toposched.model import parse_quantity


@dataclass
class LoadResult:
    latencies: list[float] = field(default_factory=list)  # seconds, one per request
    statuses: dict[int, int] = field(default_factory=dict)
    overcommits: list[str] = field(default_factory=list)  # seen by the sampler while running
    samples: int = 0
    transport_errors: list[str] = field(default_factory=list)  # connection dropped, timeout

    @property
    def server_errors(self) -> int:
        return sum(count for status, count in self.statuses.items() if status >= 500)

    def percentile(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0

    def summary(self) -> str:
        return (
            f"requests={len(self.latencies)} p50={self.percentile(0.5) * 1000:.1f}ms "
            f"p99={self.percentile(0.99) * 1000:.1f}ms mean={statistics.fmean(self.latencies or [0]) * 1000:.1f}ms "
            f"statuses={dict(sorted(self.statuses.items()))} overcommit_samples={self.samples} "
            f"transport_errors={len(self.transport_errors)}"
        )


async def _request(
    client: httpx.AsyncClient, result: LoadResult, method: str, url: str, token: str, body: object = None
) -> httpx.Response:
    loop = asyncio.get_running_loop()
    start = loop.time()
    try:
        response = await client.request(method, url, json=body, headers={"Authorization": f"Bearer {token}"})
    except httpx.TransportError as exc:
        result.transport_errors.append(f"{method} {url}: {exc!r}")
        raise
    result.latencies.append(loop.time() - start)
    result.statuses[response.status_code] = result.statuses.get(response.status_code, 0) + 1
    return response


async def _client(
    client: httpx.AsyncClient, base: str, token: str, index: int, rounds: int, result: LoadResult
) -> None:
    try:
        await _rounds(client, base, token, index, rounds, result)
    except httpx.TransportError:
        return  # recorded in result.transport_errors; the test reports it


async def _rounds(
    client: httpx.AsyncClient, base: str, token: str, index: int, rounds: int, result: LoadResult
) -> None:
    for r in range(rounds):
        spec = job_yaml(f"load-{index}-{r}", pods=1 + (index + r) % 3, gpus=(2, 4, 8)[(index * 7 + r) % 3])
        submitted = await _request(client, result, "POST", f"{base}/v1/workloads", token, {"spec": spec})
        if submitted.status_code != 201:
            continue
        workload = submitted.json()["id"]
        await _request(client, result, "GET", f"{base}/v1/workloads/{workload}", token)
        if (index + r) % 4 != 0:  # leave some running so capacity stays contended
            await _request(client, result, "DELETE", f"{base}/v1/workloads/{workload}", token)


async def _sampler(
    client: httpx.AsyncClient, base: str, admin: str, stop: asyncio.Event, result: LoadResult
) -> None:
    """Reads booked vs allocatable capacity while the clients run."""
    while not stop.is_set():
        response = await client.get(f"{base}/v1/nodes", headers={"Authorization": f"Bearer {admin}"})
        if response.status_code >= 500:
            result.statuses[response.status_code] = result.statuses.get(response.status_code, 0) + 1
        elif response.status_code == 200:
            result.samples += 1
            for node in response.json():
                for resource, amount in node["reserved"].items():
                    limit = node["allocatable"].get(resource, "0")
                    if parse_quantity(amount, resource) > parse_quantity(limit, resource):
                        result.overcommits.append(f"{node['name']}: {resource} {amount} > {limit}")
        await asyncio.sleep(0.2)


async def run_load(
    base: str, tokens: list[str], admin: str, *, clients: int = 100, rounds: int = 3
) -> LoadResult:
    """Run ``clients`` concurrent clients of ``rounds`` submit/get/cancel loops against ``base``."""
    result = LoadResult()
    limits = httpx.Limits(max_connections=clients + 10, max_keepalive_connections=clients + 10)
    async with httpx.AsyncClient(timeout=120.0, limits=limits) as client:
        stop = asyncio.Event()
        sampler = asyncio.create_task(_sampler(client, base, admin, stop, result))
        await asyncio.gather(
            *(_client(client, base, tokens[i % len(tokens)], i, rounds, result) for i in range(clients))
        )
        stop.set()
        await sampler
    return result
