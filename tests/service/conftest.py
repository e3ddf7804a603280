"""Server-level tests: a real ``toposched serve`` subprocess on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.api.specs import cluster_yaml
from tests.service.browser import chromium
from tests.service.server import Server


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    srv = Server(tmp_path, cluster=cluster_yaml())
    srv.start()
    try:
        yield srv
    finally:
        srv.kill()


@pytest.fixture
def browser() -> Iterator[Any]:
    """Headless Chromium with a 1920 x 1080 viewport (``tests.service.browser``)."""
    yield from chromium()
