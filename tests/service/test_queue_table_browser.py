"""The page's queue table (``static/queues.js``) in headless Chromium against a real
``toposched serve``: a queue an admin puts shows with its guarantee, limit and the usage of the
gang admitted in it. Skips like the floor view's browser test when no browser is installed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.service.browser import screenshot, severe_console_errors, wait
from tests.service.server import ADMIN, USERS, Server, headers
from tests.service.test_page_browser import SAMPLES, _submit

QUEUE = {"name": "gpu-queue", "guaranteed": {"nvidia.com/gpu": 64}, "limit": {"nvidia.com/gpu": 96}}


@pytest.mark.browser
def test_queue_table_shows_usage(tmp_path: Path, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    server = Server(tmp_path, cluster=(SAMPLES / "cluster.yaml").read_text(encoding="utf-8"))
    server.start()
    try:
        put = httpx.put(f"{server.url}/v1/queues", json=QUEUE, headers=headers(ADMIN), timeout=30)
        assert put.status_code == 200, put.text
        placed = _submit(server, "1-rack-required.yaml")  # LocalQueue gpu-queue: queue gpu-queue

        def admitted() -> bool:
            answer = httpx.get(
                f"{server.url}/v1/workloads/{placed}", headers=headers(USERS["user0"]), timeout=30
            )
            return bool(answer.json()["state"] == "admitted")

        wait(admitted, "the rack job is admitted")
        browser.get(f"{server.url}/#token={USERS['user0']}")
        row = wait(
            lambda: [
                [td.text for td in tr.find_elements(By.TAG_NAME, "td")]
                for tr in browser.find_elements(By.CSS_SELECTOR, "#queues tr")
                if "gpu-queue" in tr.text
            ],
            "the queue's row",
        )[0]
        assert row[0] == "gpu-queue" and row[1] == "gpu 64" and row[2] == "gpu 96"
        assert "gpu 64" in row[3] and row[7:] == ["0", "1"]  # 16 pods of 4 GPUs; one gang admitted
        screenshot(browser, tmp_path, "queues.png")
        assert severe_console_errors(browser) == []
    finally:
        server.kill()
