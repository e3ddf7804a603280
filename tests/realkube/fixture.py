"""The session's control plane for tests that ask for ``real_apiserver`` (tests/conftest.py).

Without the binaries the tests skip with the command that builds them; under CI (``CI=true``)
they fail instead, so a broken build step cannot pass as a green run of skipped tests.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from tests.realkube.binaries import BinariesMissingError, find_binaries
from tests.realkube.control_plane import ControlPlane, running_control_plane
from tests.realkube.crds import install_crds


def control_plane_for_tests() -> Iterator[ControlPlane]:
    """Starts etcd and kube-apiserver with toposched's CRDs installed; stops and removes them after."""
    try:
        binaries = find_binaries()
    except BinariesMissingError as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and {exc}", pytrace=False)
        pytest.skip(str(exc))
    with running_control_plane(binaries) as plane:
        install_crds(plane)
        yield plane
