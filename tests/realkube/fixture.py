"""The session's control plane for tests that ask for ``real_apiserver`` (tests/conftest.py).

Without the binaries the tests skip with the command that builds them; under CI (``CI=true``)
they fail instead, so a broken build step cannot pass as a green run of skipped tests.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from tests.realkube.binaries import Binaries, BinariesMissingError, find_binaries
from tests.realkube.control_plane import ControlPlane, running_control_plane
from tests.realkube.crds import install_crds

if TYPE_CHECKING:
    from tests.realkube.sidebyside.batch import SideBySide


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


def side_by_side_for_tests() -> Iterator[SideBySide]:
    """A control plane of its own with kube-scheduler running (tests/realkube/sidebyside): its
    nodes and pods are the cases', and no other test's pods get bound."""
    from tests.realkube.sidebyside.batch import side_by_side

    with side_by_side(binaries_for_tests()) as side:
        yield side


def binaries_for_tests() -> Binaries:
    """The control-plane binaries; a skip naming the command that builds them (under CI, a failure)."""
    try:
        return find_binaries()
    except BinariesMissingError as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and {exc}", pytrace=False)
        pytest.skip(str(exc))
