"""Crash safety: SIGKILL the server at random moments while clients submit; nothing acknowledged is
lost and no node is ever over-booked."""

from __future__ import annotations

import random
import threading
import time

import httpx
import pytest
from tests.api.specs import job_yaml
from tests.service.checks import holding_capacity, overcommitted
from tests.service.server import ADMIN, USERS, Server, headers

WANTED = 200  # acknowledged submissions
KILLS = 6
MAX_ATTEMPTS = 1500  # bounds the loop even if the server never comes back

# Tens of seconds each: marked so a quick local run can leave them out; CI runs everything.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


def test_sigkill_during_submissions_loses_nothing(server: Server) -> None:
    rng = random.Random(7)
    acknowledged: dict[int, str] = {}
    lock = threading.Lock()
    done = threading.Event()
    tokens = list(USERS.values())

    def submitter(seed: int) -> None:
        local = random.Random(seed)
        with httpx.Client(timeout=10.0) as client:
            for attempt in range(MAX_ATTEMPTS):
                if done.is_set():
                    return
                name = f"job-{seed}-{attempt}"
                spec = job_yaml(name, pods=local.randint(1, 4), gpus=local.choice([2, 4, 8]))
                try:
                    response = client.post(
                        f"{server.url}/v1/workloads",
                        json={"spec": spec, "priority": local.randint(0, 3)},
                        headers=headers(local.choice(tokens)),
                    )
                except httpx.HTTPError:
                    time.sleep(0.05)  # the server is down: retry with the next submission
                    continue
                assert response.status_code < 500 or response.status_code == 503, response.text
                if response.status_code == 201:
                    with lock:
                        acknowledged[response.json()["id"]] = name
                        if len(acknowledged) >= WANTED:
                            done.set()

    threads = [threading.Thread(target=submitter, args=(seed,)) for seed in range(3)]
    for thread in threads:
        thread.start()
    for _ in range(KILLS):
        time.sleep(rng.uniform(0.1, 0.6))
        server.kill()
        server.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(t.is_alive() for t in threads)
    assert len(acknowledged) >= WANTED
    assert server.starts == KILLS + 1

    # One more kill after the last acknowledgement: it still must all be there.
    server.kill()
    assert overcommitted(server.db) == []
    server.start()
    with httpx.Client(timeout=10.0) as client:
        for workload_id, name in sorted(acknowledged.items()):
            response = client.get(f"{server.url}/v1/workloads/{workload_id}", headers=headers(ADMIN))
            assert response.status_code == 200, (workload_id, response.text)
            assert response.json()["name"] == name
        time.sleep(0.5)  # let the restarted loop admit some more before the last check
    server.kill()
    assert overcommitted(server.db) == []
    assert holding_capacity(server.db) > 0
