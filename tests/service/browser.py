"""Headless Chromium for the page's tests (``browser`` fixture in this folder's conftest.py).

Needs Debian's ``chromium`` and ``chromium-driver`` and the ``selenium`` package: without them the
tests skip, saying what is missing, except under CI (``CI=true``), where ``.ci/run`` installs them
and a missing browser fails. Screenshots go to the test's ``tmp_path`` and, when
``TOPOSCHED_SCREENSHOTS`` names a folder, there too."""

from __future__ import annotations

import importlib.util
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.conformance.loader import in_ci

WINDOW = (1920, 1080)  # the screen the compact floor must fit


def missing_browser() -> str | None:
    missing = [tool for tool in ("chromium", "chromedriver") if shutil.which(tool) is None]
    if importlib.util.find_spec("selenium") is None:
        missing.append("the selenium package (pip install '.[test]')")
    if not missing:
        return None
    return f"browser tests need {', '.join(missing)} (apt-get install chromium chromium-driver)"


def chromium() -> Iterator[Any]:
    """A headless Chromium of ``WINDOW``'s inner size, quit afterwards (skips without one)."""
    reason = missing_browser()
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
    options.add_argument(f"--window-size={WINDOW[0]},{WINDOW[1]}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # the page's console, checked by tests
    driver = webdriver.Chrome(options=options, service=Service(str(shutil.which("chromedriver"))))
    driver.set_page_load_timeout(60)
    try:
        # --window-size is the outer size; the page's viewport is what must be 1920 x 1080.
        inner = driver.execute_script("return [window.innerWidth, window.innerHeight]")
        driver.set_window_size(2 * WINDOW[0] - inner[0], 2 * WINDOW[1] - inner[1])
        yield driver
    finally:
        driver.quit()


def wait(condition: Any, what: str, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up after {timeout:g} s waiting until {what}")
        time.sleep(0.05)


def screenshot(driver: Any, tmp_path: Path, name: str) -> None:
    driver.save_screenshot(str(tmp_path / name))
    folder = os.environ.get("TOPOSCHED_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(tmp_path / name, Path(folder) / name)


def classes_of(driver: Any, selector: str) -> set[str]:
    from selenium.webdriver.common.by import By

    found = driver.find_elements(By.CSS_SELECTOR, selector)
    return set(str(found[0].get_attribute("class")).split()) if found else set()


def text_of(driver: Any, selector: str) -> str:
    from selenium.webdriver.common.by import By

    found = driver.find_elements(By.CSS_SELECTOR, selector)
    return str(found[0].text) if found else ""


def severe_console_errors(driver: Any) -> list[str]:
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
