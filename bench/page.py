"""The web page at 10,368 nodes (144 NVL72 racks of 72 nodes: tests/service/floor_cluster.py).

Prints, for ``GET /v1/cluster/view`` as a real ``toposched serve`` answers it with two admitted
workloads: its size (raw and gzip-compressed, as a proxy in front would send it) and the CPU time
the service takes to build and encode the view (in this process, median of ``--runs``). With
Chromium, chromedriver and selenium installed, also what a 1920 x 1080 headless window takes: the
page's own render time of the view (``data-render-ms``: drawing the floor, fitting the compact
cells, painting, the list) and the wall time from navigation to a drawn floor, medians of
``--runs`` loads; ``--no-browser`` leaves them out.

Run: python bench/page.py [--runs 5] [--no-browser] [--quick]
"""

from __future__ import annotations

import argparse
import gzip
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

# The generated cluster and the server harness live with the service tests; reuse them.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.service.floor_cluster import NODES, SHAPE, cluster_json, job_yaml
from tests.service.server import USERS, Server, headers

from toposched.api.clusterview import build_view
from toposched.api.offload import json_bytes
from toposched.intake.cluster import load_cluster

USER = USERS["user0"]


def build_seconds(runs: int) -> float:
    """Median CPU seconds to build and encode the view of the whole cluster (no workloads: the
    nodes are what costs)."""
    cluster = load_cluster(cluster_json())
    times = []
    for _ in range(runs):
        started = time.process_time()
        json_bytes(build_view(cluster.nodes, cluster.topologies, None, (), {}, cluster.pods, None))
        times.append(time.process_time() - started)
    return statistics.median(times)


def admitted(server: Server, workload_id: int) -> bool:
    body = httpx.get(f"{server.url}/v1/workloads/{workload_id}", headers=headers(USER), timeout=60).json()
    return bool(body["state"] == "admitted")


def browser_figures(server: Server, runs: int) -> tuple[float, float] | None:
    """Median page render ms and navigation-to-drawn seconds; None without a browser."""
    if shutil.which("chromium") is None or shutil.which("chromedriver") is None:
        return None
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        return None
    options = webdriver.ChromeOptions()
    options.binary_location = str(shutil.which("chromium"))
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(flag)
    options.add_argument("--window-size=1920,1080")
    driver: Any = webdriver.Chrome(options=options, service=Service(str(shutil.which("chromedriver"))))
    renders, loads = [], []
    try:
        for _ in range(runs):
            driver.get("about:blank")  # else the same page is only told of a new #token
            started = time.monotonic()
            driver.get(f"{server.url}/#token={USER}")
            while not driver.execute_script("return document.body.dataset.ready === 'true'"):
                if time.monotonic() - started > 120:
                    raise RuntimeError("the page did not draw within 120 s")
                time.sleep(0.02)
            loads.append(time.monotonic() - started)
            renders.append(float(driver.execute_script("return document.body.dataset.renderMs")))
    finally:
        driver.quit()
    return statistics.median(renders), statistics.median(loads)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-browser", action="store_true", help="leave out the browser's figures")
    parser.add_argument("--quick", action="store_true", help="one run of each (for the test suite)")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error(f"--runs {args.runs}: at least 1")
    runs = 1 if args.quick else args.runs
    zones, blocks, racks, nodes = SHAPE
    print(f"cluster: {NODES:,} nodes = {zones} zones x {blocks} blocks x {racks} racks x {nodes} nodes")
    print(f"view build + encode: {build_seconds(runs) * 1000:.0f} ms CPU (median of {runs})")
    with tempfile.TemporaryDirectory() as workdir:
        server = Server(Path(workdir), cluster=cluster_json())
        server.start(timeout=240)
        try:
            jobs = [job_yaml("rack-z1", 72, 4, zone="z1"), job_yaml("three-of-four", 8, 3)]
            ids = []
            for spec in jobs:
                answer = httpx.post(
                    f"{server.url}/v1/workloads", json={"spec": spec}, headers=headers(USER), timeout=60
                )
                ids.append(answer.json()["id"])
            deadline = time.monotonic() + 180
            while not all(admitted(server, i) for i in ids):
                if time.monotonic() > deadline:
                    raise RuntimeError("the workloads were not admitted within 180 s")
                time.sleep(0.2)
            body = httpx.get(f"{server.url}/v1/cluster/view", headers=headers(USER), timeout=60).content
            print(f"view JSON: {len(body) / 1024:.0f} KiB, {len(gzip.compress(body)) / 1024:.0f} KiB gzip")
            figures = None if args.no_browser else browser_figures(server, runs)
            if figures is None:
                print("page render: not measured (--no-browser, or no chromium, chromedriver and selenium)")
            else:
                render_ms, load_s = figures
                print(
                    f"page render: {render_ms:.0f} ms; drawn {load_s:.2f} s after navigation (median of {runs})"
                )
        finally:
            server.kill()


if __name__ == "__main__":
    main()
