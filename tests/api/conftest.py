"""An in-process app over a real ``Scheduler`` on a ``MemoryStore`` and a ``ManualClock``.

The loop thread is off (``run_loop=False``): tests call ``cycle()`` themselves, so every
placement they check happened at a known point.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from fastapi.testclient import TestClient
from tests.api.specs import cluster_yaml

from toposched.api import AuthConfig, Limits, create_app
from toposched.intake.cluster import load_cluster
from toposched.scheduler import ManualClock, Scheduler
from toposched.store import MemoryStore

ADMIN = "admin-token-0123456789"
ALICE = "alice-token-0123456789"
BOB = "bob-token-012345678901"

AUTH = AuthConfig.from_mapping(
    {
        "tokens": [
            {"token": ADMIN, "user": "root", "role": "admin"},
            {"token": ALICE, "user": "alice", "role": "user"},
            {"token": BOB, "user": "bob", "role": "user"},
        ]
    }
)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@dataclass
class Api:
    client: TestClient
    scheduler: Scheduler
    store: MemoryStore

    def as_(self, token: str) -> dict[str, str]:
        return bearer(token)


@pytest.fixture
def api() -> Iterator[Api]:
    store = MemoryStore()
    scheduler = Scheduler(store, ManualClock(1000.0))
    scheduler.import_cluster(load_cluster(cluster_yaml()))
    app = create_app(scheduler, AUTH, limits=Limits(max_body_bytes=64 * 1024, max_list=50), run_loop=False)
    with TestClient(app, raise_server_exceptions=False) as client:
        yield Api(client, scheduler, store)
