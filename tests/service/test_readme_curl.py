"""The README's curl examples, run line by line as written against ``toposched serve`` on a free
port (``$TOPOSCHED_SERVER`` and ``$TOPOSCHED_TOKEN`` point them at it), their answers checked."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.service.server import USERS, Server, headers

ROOT = Path(__file__).resolve().parents[2]
MARKER = "<!-- tests/service/test_readme_curl.py runs these curl lines against a served instance -->"
TOKEN = USERS["user0"]


def readme_curl_lines() -> list[str]:
    """The curl commands of the README's marked block, continuation lines joined."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(re.escape(MARKER) + r"\n```sh\n(.*?)\n```", text, re.DOTALL)
    assert block is not None, "README.md lost the marked curl block"
    joined = block.group(1).replace("\\\n", " ")
    return [line.strip() for line in joined.splitlines() if line.strip().startswith("curl ")]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Server]:
    if shutil.which("curl") is None:
        pytest.skip("curl is not installed: the README's curl examples cannot be run")
    sample = (ROOT / "src" / "toposched" / "samples" / "cluster.yaml").read_text(encoding="utf-8")
    server = Server(tmp_path, cluster=sample)
    server.start()
    try:
        yield server
    finally:
        server.kill()


def run(line: str, server: Server) -> Any:
    env = {**os.environ, "TOPOSCHED_SERVER": server.url, "TOPOSCHED_TOKEN": TOKEN}
    done = subprocess.run(
        ["bash", "-c", line], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, (line, done.stderr)
    return json.loads(done.stdout)


def wait_for_state(server: Server, workload_id: int, state: str) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        record = httpx.get(f"{server.url}/v1/workloads/{workload_id}", headers=headers(TOKEN)).json()
        if record["state"] == state:
            return
        time.sleep(0.05)
    raise AssertionError(f"workload {workload_id} never reached {state}: {record}")


def test_the_readme_curl_examples_answer_as_it_says(served: Server) -> None:
    lines = readme_curl_lines()
    assert [re.sub(r"\s+", " ", line).split('"')[1] for line in lines] == [
        "$TOPOSCHED_SERVER/v1/workloads?priority=10",
        "$TOPOSCHED_SERVER/v1/workloads",
        "$TOPOSCHED_SERVER/v1/workloads",
        "$TOPOSCHED_SERVER/v1/workloads/1",
        "$TOPOSCHED_SERVER/v1/workloads/2/explanation",
    ]
    submit_fits, submit_too_big, listing, get_one, explanation = lines

    first = run(submit_fits, served)
    assert (first["id"], first["name"], first["priority"], first["pods"]) == (1, "train-rack", 10, 16)
    assert first["state"] == "pending"
    second = run(submit_too_big, served)
    assert (second["id"], second["state"]) == (2, "pending")

    assert [w["id"] for w in run(listing, served)] == [1, 2]

    wait_for_state(served, 1, "admitted")
    placed = run(get_one, served)
    nodes = {pod["node"] for pod in placed["placement"]["pods"]}
    assert len(nodes) == 16 and len({node.rsplit("-", 1)[0] for node in nodes}) == 1

    explained = run(explanation, served)
    assert (explained["group"], explained["level"]) == ("main", "cloud.provider.com/topology-rack")
    best = explained["candidates"][0]
    assert (best["fit"], best["needed"], best["shortfall"]) == (18, 20, {"nvidia.com/gpu": 8})
    assert explained["excludedNodes"] and explained["suggestions"], explained
    assert "/docs" not in served.log.read_text()  # the banner claims no page it does not serve
