"""Load: 100 concurrent clients submit and cancel; no server error, no over-commit.
Prints p50 / p99 latency (run with -s to see them)."""

from __future__ import annotations

import asyncio

import pytest
from tests.service.checks import holding_capacity, overcommitted
from tests.service.load import run_load
from tests.service.server import ADMIN, USERS, Server

CLIENTS = 100
ROUNDS = 3

# Tens of seconds each: marked so a quick local run can leave them out; CI runs everything.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


def test_hundred_concurrent_clients(server: Server) -> None:
    result = asyncio.run(run_load(server.url, list(USERS.values()), ADMIN, clients=CLIENTS, rounds=ROUNDS))
    print(f"\nservice load, {CLIENTS} clients x {ROUNDS} rounds: {result.summary()}\n{result.methods()}")
    assert result.server_errors == 0, result.statuses
    assert result.transport_errors == []
    assert result.statuses.get(201, 0) == CLIENTS * ROUNDS
    assert result.overcommits == []
    assert result.samples > 0
    server.stop()
    assert overcommitted(server.db) == []
    assert holding_capacity(server.db) > 0
