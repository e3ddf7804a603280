"""A bounded load: N concurrent clients, each submitting then cancelling a few workloads.

Shared by ``test_load.py`` and ``bench/service_load.py``. Every client is an asyncio task with
its own loop of ``rounds`` iterations, so the run always ends. A latency is measured from just
before the request is written to when its whole body has been read.

Two clients: ``raw`` (default), one lean keep-alive HTTP/1.1 connection per client (``wire``),
and ``httpx``, one shared ``httpx.AsyncClient`` pool. httpx costs about 10 ms of CPU per request,
which on a small machine makes the driver, not the server, the bottleneck it measures.
"""

from __future__ import annotations

import asyncio
import random
import statistics
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal, Protocol

import httpx
from tests.api.specs import job_yaml
from tests.service.wire import Wire, WireError

from toposched.model import parse_quantity

ClientKind = Literal["raw", "httpx"]


@dataclass
class LoadResult:
    latencies: list[float] = field(default_factory=list)  # seconds, one per request
    by_method: dict[str, list[float]] = field(default_factory=dict)  # the same, per HTTP method
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

    def methods(self) -> str:
        """p50 / p99 per HTTP method, e.g. ``POST 300: p50=..ms p99=..ms``."""
        parts = []
        for method, values in sorted(self.by_method.items()):
            ordered = sorted(values)
            p50, p99 = (
                ordered[int(0.5 * len(ordered))],
                ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))],
            )
            parts.append(f"{method} {len(ordered)}: p50={p50 * 1000:.1f}ms p99={p99 * 1000:.1f}ms")
        return "; ".join(parts)

    def summary(self) -> str:
        return (
            f"requests={len(self.latencies)} p50={self.percentile(0.5) * 1000:.1f}ms "
            f"p99={self.percentile(0.99) * 1000:.1f}ms mean={statistics.fmean(self.latencies or [0]) * 1000:.1f}ms "
            f"statuses={dict(sorted(self.statuses.items()))} overcommit_samples={self.samples} "
            f"transport_errors={len(self.transport_errors)}"
        )


class Answer(Protocol):
    @property
    def status_code(self) -> int: ...

    def json(self) -> object: ...


class TransportFailedError(Exception):
    """The request never got an answer (recorded in ``LoadResult.transport_errors``)."""


Send = Callable[[str, str, str, object], Awaitable[Answer]]  # method, path, token, JSON body


async def _request(
    send: Send, result: LoadResult, method: str, path: str, token: str, body: object = None
) -> Answer:
    loop = asyncio.get_running_loop()
    start = loop.time()
    try:
        response = await send(method, path, token, body)
    except (httpx.TransportError, WireError) as exc:
        result.transport_errors.append(f"{method} {path}: {exc!r}")
        raise TransportFailedError from exc
    elapsed = loop.time() - start
    result.latencies.append(elapsed)
    result.by_method.setdefault(method, []).append(elapsed)
    result.statuses[response.status_code] = result.statuses.get(response.status_code, 0) + 1
    return response


async def _client(
    send: Send, token: str, index: int, rounds: int, result: LoadResult, think: float = 0.0
) -> None:
    try:
        await _rounds(send, token, index, rounds, result, think)
    except TransportFailedError:
        return  # recorded in result.transport_errors; the test reports it


async def _rounds(
    send: Send, token: str, index: int, rounds: int, result: LoadResult, think: float = 0.0
) -> None:
    """``rounds`` submit / read / cancel loops; ``think`` seconds pass between an answer and the
    client's next request (a user reading the answer)."""
    if think > 0:
        await asyncio.sleep(think * random.Random(index).random())  # users do not all start at once
    first = True

    async def request(method: str, path: str, body: object = None) -> Answer:
        nonlocal first
        if think > 0 and not first:
            await asyncio.sleep(think)
        first = False
        return await _request(send, result, method, path, token, body)

    for r in range(rounds):
        spec = job_yaml(f"load-{index}-{r}", pods=1 + (index + r) % 3, gpus=(2, 4, 8)[(index * 7 + r) % 3])
        submitted = await request("POST", "/v1/workloads", {"spec": spec})
        if submitted.status_code != 201:
            continue
        answer = submitted.json()
        assert isinstance(answer, dict)
        workload = answer["id"]
        await request("GET", f"/v1/workloads/{workload}")
        if (index + r) % 4 != 0:  # leave some running so capacity stays contended
            await request("DELETE", f"/v1/workloads/{workload}")


async def _sampler(send: Send, admin: str, stop: asyncio.Event, result: LoadResult) -> None:
    """Reads booked vs allocatable capacity while the clients run."""
    while not stop.is_set():
        try:
            response = await send("GET", "/v1/nodes", admin, None)
        except (httpx.TransportError, WireError) as exc:
            result.transport_errors.append(f"GET /v1/nodes: {exc!r}")
            return
        if response.status_code >= 500:
            result.statuses[response.status_code] = result.statuses.get(response.status_code, 0) + 1
        elif response.status_code == 200:
            result.samples += 1
            nodes = response.json()
            assert isinstance(nodes, list)
            for node in nodes:
                for resource, amount in node["reserved"].items():
                    limit = node["allocatable"].get(resource, "0")
                    if parse_quantity(amount, resource) > parse_quantity(limit, resource):
                        result.overcommits.append(f"{node['name']}: {resource} {amount} > {limit}")
        await asyncio.sleep(0.2)


async def run_load(
    base: str,
    tokens: list[str],
    admin: str,
    *,
    clients: int = 100,
    rounds: int = 3,
    client: ClientKind = "raw",
    think: float = 0.0,
) -> LoadResult:
    """Run ``clients`` concurrent clients of ``rounds`` submit/get/cancel loops against ``base``,
    each pausing ``think`` seconds after every answer."""
    result = LoadResult()
    stop = asyncio.Event()
    if client == "httpx":
        limits = httpx.Limits(max_connections=clients + 10, max_keepalive_connections=clients + 10)
        async with httpx.AsyncClient(base_url=base, timeout=120.0, limits=limits) as pool:

            async def send(method: str, path: str, token: str, body: object) -> Answer:
                auth = {"Authorization": f"Bearer {token}"}
                return await pool.request(method, path, json=body, headers=auth)

            sampler = asyncio.create_task(_sampler(send, admin, stop, result))
            await asyncio.gather(
                *(_client(send, tokens[i % len(tokens)], i, rounds, result, think) for i in range(clients))
            )
            stop.set()
            await sampler
        return result
    wires = [Wire(base) for _ in range(clients + 1)]  # one connection per client, one for the sampler
    try:
        sampler = asyncio.create_task(_sampler(wires[-1].request, admin, stop, result))
        await asyncio.gather(
            *(
                _client(wires[i].request, tokens[i % len(tokens)], i, rounds, result, think)
                for i in range(clients)
            )
        )
        stop.set()
        await sampler
    finally:
        for wire in wires:
            await wire.close()
    return result
