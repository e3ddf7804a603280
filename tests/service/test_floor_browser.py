"""The floor view of a 10,368-node cluster (144 NVL72 racks, ``floor_cluster.py``) in headless
Chromium at 1920 x 1080 against a real ``toposched serve``: compact by default with every node on
one screen, search by node and by workload, a selected workload scrolled into view in the detailed
floor, a legend holding every colour drawn, and a ``#token=`` pasted into the open page.
Screenshots go to the test's ``tmp_path`` (and ``$TOPOSCHED_SCREENSHOTS``)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.service.browser import screenshot, severe_console_errors, text_of, wait
from tests.service.floor_cluster import NODES, cluster_json, job_yaml
from tests.service.server import USERS, Server, headers

USER = USERS["user0"]
BIG_JOB = "rack-z1"  # a whole rack of zone z1: the lower half of the detailed floor
SMALL_JOB = "three-of-four"  # 8 pods of 3 GPUs: 8 nodes partly booked

# Every cell's colours as the browser computes them: its fill, and the colour of its border and
# outline where it has one. The legend's swatches are measured the same way.
COLOURS = """
const measure = (selector) => {
  const out = {fill: new Set(), border: new Set(), outline: new Set()};
  for (const el of document.querySelectorAll(selector)) {
    const s = getComputedStyle(el);
    out.fill.add(s.backgroundColor + ' ' + s.backgroundImage);
    if (parseFloat(s.borderTopWidth) > 0) out.border.add(s.borderTopColor);
    if (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0) out.outline.add(s.outlineColor);
  }
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, [...v].sort()]));
};
return {drawn: measure('#floor .c'), legend: measure('#legend .c')};
"""
# Where the cells are: all inside the window, and the page no taller or wider than it.
EXTENT = """
let bottom = 0, right = 0, top = Infinity, left = Infinity, cells = 0;
for (const el of document.querySelectorAll('#floor .c[data-node]')) {
  const r = el.getBoundingClientRect();
  bottom = Math.max(bottom, r.bottom); right = Math.max(right, r.right);
  top = Math.min(top, r.top); left = Math.min(left, r.left); cells++;
}
const page = document.scrollingElement;
return {cells, top, left, bottom, right, width: innerWidth, height: innerHeight,
        pageHeight: page.scrollHeight, pageWidth: page.scrollWidth,
        cell: getComputedStyle(document.querySelector('#floor .c')).width};
"""


def _submit(server: Server, spec: str) -> int:
    answer = httpx.post(f"{server.url}/v1/workloads", json={"spec": spec}, headers=headers(USER), timeout=60)
    assert answer.status_code == 201, answer.text
    workload_id: int = answer.json()["id"]
    return workload_id


def _nodes_of(server: Server, workload_id: int) -> set[str] | None:
    answer = httpx.get(f"{server.url}/v1/workloads/{workload_id}", headers=headers(USER), timeout=60)
    body = answer.json()
    if body["state"] != "admitted":
        return None
    return {pod["node"] for pod in body["placement"]["pods"]}


def _lit(browser: Any, selector: str) -> set[str]:
    return set(
        browser.execute_script(
            f"return [...document.querySelectorAll({selector!r})].map(e => e.dataset.node)"
        )
    )


def _search(browser: Any, query: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    box = browser.find_element(By.ID, "search")
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(Keys.BACKSPACE, query)  # typed, as a user does (clear() sends no input event)
    shown = "return document.body.dataset.query === arguments[0]"
    wait(lambda: browser.execute_script(shown, query.lower()), f"the floor shows the search {query!r}")


def _visible_workloads(browser: Any) -> set[str]:
    from selenium.webdriver.common.by import By

    return {
        li.get_attribute("data-key")
        for li in browser.find_elements(By.CSS_SELECTOR, "#workloads li[data-key]")
        if li.is_displayed()
    }


@pytest.mark.browser
@pytest.mark.slow  # a 10k-node server, two admissions on it and a dozen page states: about a minute
def test_ten_thousand_nodes_on_one_screen(tmp_path: Path, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    server = Server(tmp_path, cluster=cluster_json())
    server.start(timeout=240)
    try:
        big = _submit(server, job_yaml(BIG_JOB, 72, 4, zone="z1"))
        small = _submit(server, job_yaml(SMALL_JOB, 8, 3))
        big_nodes = wait(lambda: _nodes_of(server, big), "the rack job is admitted", 180)
        small_nodes = wait(lambda: _nodes_of(server, small), "the small job is admitted", 180)
        assert len(big_nodes) == 72 and len(small_nodes) == 8

        # Opened without a token: nodes, no workloads.
        started = time.monotonic()
        browser.get(server.url + "/")
        wait(
            lambda: browser.execute_script("return document.body.dataset.ready === 'true'"), "the floor", 120
        )
        print(
            f"10,368-node page: drawn {time.monotonic() - started:.2f} s after navigation, "
            f"{browser.execute_script('return document.body.dataset.renderMs')} ms to render the view"
        )
        assert "enter a token" in text_of(browser, "#workloads")

        # A token pasted into the open page's address (#token=...) is read at once.
        browser.execute_script(f"location.hash = 'token={USER}'")
        wait(lambda: browser.find_elements(By.CSS_SELECTOR, f"#workloads li[data-key='{big}']"), "workloads")
        assert "token" not in browser.execute_script("return location.hash")  # not left in the address bar

        # Compact by default above 2,000 nodes: every node a cell inside the 1920 x 1080 window.
        assert "compact" in browser.find_element(By.ID, "floor").get_attribute("class").split()
        extent = browser.execute_script(EXTENT)
        assert (extent["width"], extent["height"]) == (1920, 1080)
        assert extent["cells"] == NODES
        assert extent["top"] >= 0 and extent["left"] >= 0, extent
        assert extent["bottom"] <= extent["height"] and extent["right"] <= extent["width"], extent
        assert extent["pageHeight"] <= extent["height"] and extent["pageWidth"] <= extent["width"], extent
        screenshot(browser, tmp_path, "compact.png")

        # Search by node: a rack's name prefix leaves its 72 nodes undimmed.
        _search(browser, "z0-b3-r4-")
        assert _lit(browser, "#floor .c[data-node]:not(.d)") == {f"z0-b3-r4-n{n:02d}" for n in range(72)}
        assert _visible_workloads(browser) == set()  # none runs there
        # ... and one node: the workloads with pods on it stay listed.
        (one,) = sorted(small_nodes)[:1]
        _search(browser, one)
        assert _lit(browser, "#floor .c[data-node]:not(.d)") == {one}
        assert _visible_workloads(browser) == {str(small)}
        # Search by workload: its nodes, and it alone in the list.
        _search(browser, BIG_JOB)
        assert _lit(browser, "#floor .c[data-node]:not(.d)") == big_nodes
        assert _visible_workloads(browser) == {str(big)}
        assert text_of(browser, "#found") == "72 node(s), 1 workload(s) match"
        screenshot(browser, tmp_path, "search-workload.png")
        _search(browser, "")
        assert _lit(browser, "#floor .c.d") == set()

        # The detailed floor is screens tall; selecting a workload brings its nodes into view.
        browser.find_element(By.ID, "mode").click()
        wait(lambda: "compact" not in browser.find_element(By.ID, "floor").get_attribute("class"), "detailed")
        assert browser.execute_script(EXTENT)["pageHeight"] > 2 * 1080
        head = browser.find_element(By.CSS_SELECTOR, ".rack .khead").text
        assert head.endswith(" GPU"), head  # "z0-b0-r0 6/280 GPU": the rack's totals say their unit
        browser.execute_script("window.scrollTo(0, 0)")
        first = browser.find_element(By.CSS_SELECTOR, f"#floor .c[data-node='{min(big_nodes)}']")
        in_view = (
            "const r = arguments[0].getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight;"
        )
        assert not browser.execute_script(in_view, first)  # below the fold
        browser.find_element(By.CSS_SELECTOR, f"#workloads li[data-key='{big}']").click()
        assert _lit(browser, "#floor .c.h") == big_nodes
        wait(
            lambda: browser.execute_script(in_view, first),
            "the workload's first node is scrolled into view",
            5,
        )
        screenshot(browser, tmp_path, "workload-scrolled.png")

        # Every colour drawn is in the legend: each node state, the selected workload and node.
        browser.find_element(By.ID, "mode").click()
        wait(lambda: "compact" in browser.find_element(By.ID, "floor").get_attribute("class"), "compact")
        with_workload = browser.execute_script(COLOURS)  # the workload selected above stays selected
        browser.find_element(By.CSS_SELECTOR, "#floor .c[data-node='z0-b0-r0-n00']").click()
        with_node = browser.execute_script(COLOURS)
        for kind in ("fill", "border", "outline"):
            drawn = {*with_workload["drawn"][kind], *with_node["drawn"][kind]}
            missing = drawn - set(with_node["legend"][kind])
            assert not missing, f"{kind} drawn but not in the legend: {missing}"
        # The floor draws all seven fills here (free, partly and fully booked, partly and fully
        # used with other pods, no GPUs, NotReady or cordoned), the dark orange among them; the
        # tainted node's border; the selected workload's outline, then the selected node's.
        fills = with_node["drawn"]["fill"]
        assert len(fills) == 7 and any("217, 115, 31" in fill for fill in fills), fills
        assert len(with_node["drawn"]["border"]) == 1
        assert with_workload["drawn"]["outline"] != with_node["drawn"]["outline"]
        assert "no GPU" in text_of(browser, "#legend")  # the grey of the node without GPUs, named
        screenshot(browser, tmp_path, "legend.png")
        assert severe_console_errors(browser) == []
    finally:
        server.kill()
