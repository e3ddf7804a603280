"""The web page in headless Chromium against a real ``toposched serve``.

Needs Debian's ``chromium`` and ``chromium-driver`` and the ``selenium`` package: without them the
tests skip, saying what is missing, except under CI (``CI=true``), where ``.ci/run`` installs them
and a missing browser fails. Screenshots go to the test's ``tmp_path``.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.conformance.loader import in_ci
from tests.service.server import ADMIN, USERS, Server, headers

from toposched.model import Topology
from toposched.wire.core import list_object, node_object
from toposched.wire.kueue import topology_object

SAMPLES = Path(__file__).resolve().parents[2] / "src" / "toposched" / "samples"
USER = USERS["user0"]
FOREIGN_BUSY = "z1-b2-r3-n01"  # the sample cluster's inference pod takes all 4 of its GPUs
ZONE, BLOCK, RACK, HOST = (
    "topology.kubernetes.io/zone",
    "cloud.provider.com/topology-block",
    "cloud.provider.com/topology-rack",
    "kubernetes.io/hostname",
)


def _missing_browser() -> str | None:
    missing = [tool for tool in ("chromium", "chromedriver") if shutil.which(tool) is None]
    if importlib.util.find_spec("selenium") is None:
        missing.append("the selenium package (pip install '.[test]')")
    if not missing:
        return None
    return f"browser tests need {', '.join(missing)} (apt-get install chromium chromium-driver)"


@pytest.fixture
def browser() -> Iterator[Any]:
    reason = _missing_browser()
    if reason is not None:
        if in_ci():
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(shutil.which("chromium"))
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(flag)
    options.add_argument("--window-size=1600,1000")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # the page's console, checked below
    driver = webdriver.Chrome(options=options, service=Service(str(shutil.which("chromedriver"))))
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


def _wait(condition: Any, what: str, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up after {timeout:g} s waiting until {what}")
        time.sleep(0.05)


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


def test_floor_view_workloads_node_panel_and_explanation(tmp_path: Path, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    server = Server(tmp_path, cluster=(SAMPLES / "cluster.yaml").read_text(encoding="utf-8"))
    server.start()
    try:
        placed = _submit(server, "1-rack-required.yaml")
        pending = _submit(server, "4-too-big-for-a-rack.yaml")
        _wait(lambda: _state(server, placed)["state"] == "admitted", "the rack job is admitted")
        _wait(
            lambda: (_state(server, pending).get("explanation") or {}).get("reason"),
            "the big job has a reason",
        )
        pods = {p["node"] for p in _state(server, placed)["placement"]["pods"]}

        browser.get(f"{server.url}/#token={USER}")
        _wait(
            lambda: browser.find_elements(By.CSS_SELECTOR, f"#workloads li[data-key='{pending}']"),
            "workloads list",
        )
        browser.save_screenshot(str(tmp_path / "floor.png"))

        assert len(browser.find_elements(By.CSS_SELECTOR, ".rack")) == 16  # the sample's racks
        assert len(browser.find_elements(By.CSS_SELECTOR, ".row")) == 4  # its blocks
        assert len(browser.find_elements(By.CSS_SELECTOR, ".c[data-node]")) == 288
        busy = browser.find_element(By.CSS_SELECTOR, f".c[data-node='{FOREIGN_BUSY}']").get_attribute("class")
        assert {"u", "o"} <= set(busy.split()), busy  # fully used, by pods toposched did not place
        rack = browser.find_element(By.CSS_SELECTOR, f".rack:has(.c[data-node='{FOREIGN_BUSY}']) .khead")
        assert rack.text == "z1-b2-r3 4/72"  # the rack's total: 18 nodes of 4 GPUs, 4 in use
        assert "4 used by other pods" in rack.get_attribute("title")

        browser.find_element(By.CSS_SELECTOR, f"#workloads li[data-key='{placed}']").click()
        lit = {el.get_attribute("data-node") for el in browser.find_elements(By.CSS_SELECTOR, "#floor .c.h")}
        assert lit == pods
        browser.save_screenshot(str(tmp_path / "workload-selected.png"))

        browser.find_element(By.CSS_SELECTOR, f"#workloads li[data-key='{pending}']").click()
        text = _wait(lambda: _text(browser, "#explanation"), "the explanation is shown")
        assert "what would place it" in text and "best candidate domains" in text
        assert _state(server, pending)["explanation"]["reason"] in text
        browser.save_screenshot(str(tmp_path / "explanation.png"))

        browser.find_element(By.CSS_SELECTOR, f".c[data-node='{FOREIGN_BUSY}']").click()
        panel = _wait(lambda: _text(browser, "#nodepanel"), "the node panel is shown")
        assert f"serving/inference-{FOREIGN_BUSY}" in panel and "Ready" in panel
        browser.save_screenshot(str(tmp_path / "node-panel.png"))

        # Live refresh: the finished workload's nodes turn free without reloading the page.
        done = httpx.post(f"{server.url}/v1/workloads/{placed}/finish", headers=headers(USER), timeout=30)
        assert done.status_code == 200, done.text
        one = sorted(pods)[0]
        _wait(lambda: "f" in _classes(browser, f"#floor .c[data-node='{one}']"), "the freed node turns free")

        # A second topology gets its own tab; with one level above the hosts, racks are the columns.
        body = {"levels": [RACK, HOST]}
        put = httpx.put(f"{server.url}/v1/topologies/racks", json=body, headers=headers(ADMIN), timeout=30)
        assert put.status_code == 200, put.text
        _wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#tabs button[data-topology='racks']"), "a tab")
        browser.find_element(By.CSS_SELECTOR, "#tabs button[data-topology='racks']").click()
        _wait(lambda: len(browser.find_elements(By.CSS_SELECTOR, ".row")) == 1, "one row of racks")
        assert len(browser.find_elements(By.CSS_SELECTOR, ".rack")) == 16
        browser.save_screenshot(str(tmp_path / "racks-tab.png"))
        errors = [entry["message"] for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
        assert errors == []
    finally:
        server.kill()


def _classes(browser: Any, selector: str) -> set[str]:
    from selenium.webdriver.common.by import By

    found = browser.find_elements(By.CSS_SELECTOR, selector)
    return set(str(found[0].get_attribute("class")).split()) if found else set()


def _text(browser: Any, selector: str) -> str:
    from selenium.webdriver.common.by import By

    found = browser.find_elements(By.CSS_SELECTOR, selector)
    return str(found[0].text) if found else ""


def _big_cluster(zones: int = 4, blocks: int = 8, racks: int = 18, nodes: int = 18) -> str:
    """10,368 nodes (4 zones x 8 blocks x 18 racks x 18 nodes) of 8 GPUs, as JSON (YAML reads it)."""
    items: list[dict[str, Any]] = []
    allocatable = {"cpu": "128", "memory": "1Ti", "nvidia.com/gpu": "8", "pods": "110"}
    for z in range(zones):
        for b in range(blocks):
            for r in range(racks):
                for n in range(nodes):
                    name = f"z{z}-b{b}-r{r}-n{n}"
                    labels = {ZONE: f"z{z}", BLOCK: f"z{z}-b{b}", RACK: f"z{z}-b{b}-r{r}", HOST: name}
                    items.append(node_object(name, labels, allocatable))
    items.append(
        topology_object(Topology.create("default", (ZONE, BLOCK, RACK, HOST)), "kueue.x-k8s.io/v1beta1")
    )
    return json.dumps(list_object(items))


def test_ten_thousand_nodes_render(tmp_path: Path, browser: Any) -> None:
    """Records (prints) how long the page takes to draw a 10k-node cluster; asserts no time."""
    from selenium.webdriver.common.by import By

    server = Server(tmp_path, cluster=_big_cluster())
    server.start(timeout=180)
    try:
        started = time.monotonic()
        browser.get(f"{server.url}/#token={USER}")
        _wait(
            lambda: browser.execute_script("return document.body.dataset.ready === 'true'"),
            "the floor is drawn",
            120,
        )
        seconds = time.monotonic() - started
        cells = len(browser.find_elements(By.CSS_SELECTOR, ".c[data-node]"))
        render_ms = browser.execute_script("return document.body.dataset.renderMs")
        browser.save_screenshot(str(tmp_path / "ten-thousand.png"))
        print(
            f"10k-node page: {cells} nodes drawn in {seconds:.2f} s from navigation ({render_ms} ms to render the view)"
        )
        assert cells == 4 * 8 * 18 * 18
    finally:
        server.kill()
