"""Shared pytest setup.

This folder is on ``sys.path`` (it has no ``__init__.py``), so tests import ``builders`` and
``conformance.loader`` directly. The repository root is added too, so ``tests.conformance...``
imports also resolve when pytest is started without ``python -m``.

``real_apiserver`` is a real control plane (etcd and kube-apiserver built by testenv/build.sh,
see tests/realkube), started once per session by the first test that asks for it.
"""

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

_ROOT = str(Path(__file__).resolve().parents[1])
if _ROOT not in sys.path:
    sys.path.append(_ROOT)

if TYPE_CHECKING:
    from tests.realkube.control_plane import ControlPlane


@pytest.fixture(scope="session")
def real_apiserver() -> Iterator["ControlPlane"]:
    from tests.realkube.fixture import control_plane_for_tests  # the root is on sys.path only now

    yield from control_plane_for_tests()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that uses ``real_apiserver`` carries its marker: ``-m 'not real_apiserver'`` leaves
    out exactly the tests that start a control plane."""
    for item in items:
        if "real_apiserver" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.real_apiserver)
