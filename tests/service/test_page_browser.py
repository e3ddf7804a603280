"""The web page in headless Chromium against a real ``toposched serve`` on the bundled sample
cluster (the ``browser`` fixture: see ``tests/service/conftest.py``). Screenshots go to the test's
``tmp_path``. The 10k-node floor is ``test_floor_browser.py``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.service.browser import classes_of, screenshot, severe_console_errors, text_of, wait
from tests.service.server import ADMIN, USERS, Server, headers

SAMPLES = Path(__file__).resolve().parents[2] / "src" / "toposched" / "samples"
USER = USERS["user0"]
FOREIGN_BUSY = "z1-b2-r3-n01"  # the sample cluster's inference pod takes all 4 of its GPUs
ZONE, BLOCK, RACK, HOST = (
    "topology.kubernetes.io/zone",
    "cloud.provider.com/topology-block",
    "cloud.provider.com/topology-rack",
    "kubernetes.io/hostname",
)


def _submit(server: Server, job: str) -> int:
    spec = (SAMPLES / "jobs" / job).read_text(encoding="utf-8")
    answer = httpx.post(f"{server.url}/v1/workloads", json={"spec": spec}, headers=headers(USER), timeout=30)
    assert answer.status_code == 201, answer.text
    workload_id: int = answer.json()["id"]
    return workload_id


def _state(server: Server, workload_id: int) -> dict[str, Any]:
    answer = httpx.get(f"{server.url}/v1/workloads/{workload_id}", headers=headers(USER), timeout=30)
    body: dict[str, Any] = answer.json()
    return body


@pytest.mark.browser
def test_floor_view_workloads_node_panel_and_explanation(tmp_path: Path, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    server = Server(tmp_path, cluster=(SAMPLES / "cluster.yaml").read_text(encoding="utf-8"))
    server.start()
    try:
        placed = _submit(server, "1-rack-required.yaml")
        pending = _submit(server, "4-too-big-for-a-rack.yaml")
        wait(lambda: _state(server, placed)["state"] == "admitted", "the rack job is admitted")
        wait(
            lambda: (_state(server, pending).get("explanation") or {}).get("reason"),
            "the big job has a reason",
        )
        pods = {p["node"] for p in _state(server, placed)["placement"]["pods"]}

        browser.get(f"{server.url}/#token={USER}")
        wait(
            lambda: browser.find_elements(By.CSS_SELECTOR, f"#workloads li[data-key='{pending}']"),
            "workloads list",
        )
        screenshot(browser, tmp_path, "floor.png")

        assert len(browser.find_elements(By.CSS_SELECTOR, ".rack")) == 16  # the sample's racks
        assert len(browser.find_elements(By.CSS_SELECTOR, ".row")) == 4  # its blocks
        assert len(browser.find_elements(By.CSS_SELECTOR, ".c[data-node]")) == 288
        busy = browser.find_element(By.CSS_SELECTOR, f".c[data-node='{FOREIGN_BUSY}']").get_attribute("class")
        assert {"u", "o"} <= set(busy.split()), busy  # fully used, by pods toposched did not place
        rack = browser.find_element(By.CSS_SELECTOR, f".rack:has(.c[data-node='{FOREIGN_BUSY}']) .khead")
        assert rack.text == "z1-b2-r3 4/72 GPU"  # the rack's total: 18 nodes of 4 GPUs, 4 in use
        assert "4 used by other pods" in rack.get_attribute("title")

        browser.find_element(By.CSS_SELECTOR, f"#workloads li[data-key='{placed}']").click()
        lit = {el.get_attribute("data-node") for el in browser.find_elements(By.CSS_SELECTOR, "#floor .c.h")}
        assert lit == pods
        screenshot(browser, tmp_path, "workload-selected.png")

        browser.find_element(By.CSS_SELECTOR, f"#workloads li[data-key='{pending}']").click()
        text = wait(lambda: text_of(browser, "#explanation"), "the explanation is shown")
        assert "what would place it" in text and "best candidate domains" in text
        assert _state(server, pending)["explanation"]["reason"] in text
        screenshot(browser, tmp_path, "explanation.png")

        browser.find_element(By.CSS_SELECTOR, f".c[data-node='{FOREIGN_BUSY}']").click()
        panel = wait(lambda: text_of(browser, "#nodepanel"), "the node panel is shown")
        assert f"serving/inference-{FOREIGN_BUSY}" in panel and "Ready" in panel
        screenshot(browser, tmp_path, "node-panel.png")

        # Live refresh: the finished workload's nodes turn free without reloading the page.
        done = httpx.post(f"{server.url}/v1/workloads/{placed}/finish", headers=headers(USER), timeout=30)
        assert done.status_code == 200, done.text
        one = sorted(pods)[0]
        wait(lambda: "f" in classes_of(browser, f"#floor .c[data-node='{one}']"), "the freed node turns free")

        # A second topology gets its own tab; with one level above the hosts, racks are the columns.
        body = {"levels": [RACK, HOST]}
        put = httpx.put(f"{server.url}/v1/topologies/racks", json=body, headers=headers(ADMIN), timeout=30)
        assert put.status_code == 200, put.text
        wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#tabs button[data-topology='racks']"), "a tab")
        browser.find_element(By.CSS_SELECTOR, "#tabs button[data-topology='racks']").click()
        wait(lambda: len(browser.find_elements(By.CSS_SELECTOR, ".row")) == 1, "one row of racks")
        assert len(browser.find_elements(By.CSS_SELECTOR, ".rack")) == 16
        screenshot(browser, tmp_path, "racks-tab.png")
        assert severe_console_errors(browser) == []
    finally:
        server.kill()
