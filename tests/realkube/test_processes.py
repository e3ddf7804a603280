"""Stopping a control-plane process ends its whole process group, and a process that exits early
is reported with its log (no binaries needed: a shell stands in for the servers)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from tests.realkube.processes import ControlPlaneError, Process


def group_members(pgid: int) -> list[int]:
    """PIDs whose process group is ``pgid`` (zombies excluded), from /proc."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # exited meanwhile
        if fields[0] != "Z" and int(fields[2]) == pgid:
            members.append(int(entry.name))
    return members


def test_stop_ends_the_server_and_everything_it_started(tmp_path: Path) -> None:
    # A "server" that starts a child of its own and ignores TERM, as a hung one would.
    process = Process("server", ["sh", "-c", "trap '' TERM; sleep 600 & sleep 600"], tmp_path / "server.log")
    deadline = time.monotonic() + 10
    while len(group_members(process.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    started = group_members(process.pid)

    process.stop(grace=0.5)
    deadline = time.monotonic() + 10  # the kernel ends the rest of the group a moment after KILL
    while group_members(process.pid) and time.monotonic() < deadline:
        time.sleep(0.05)

    assert len(started) >= 2
    assert group_members(process.pid) == []
    assert not process.running()


def test_a_server_that_exits_before_it_is_ready_is_reported_with_its_log(tmp_path: Path) -> None:
    process = Process(
        "server", ["sh", "-c", "echo 'bind: address already in use' >&2; exit 3"], tmp_path / "s.log"
    )

    with pytest.raises(
        ControlPlaneError, match=r"(?s)server exited with 3 before ready.*address already in use"
    ):
        process.wait_until(lambda: False, 10, "ready")
    process.stop()


def test_the_group_is_its_own_and_not_the_test_runners(tmp_path: Path) -> None:
    process = Process("server", ["sleep", "600"], tmp_path / "server.log")
    group = os.getpgid(process.pid)
    process.stop()

    assert group == process.pid != os.getpgid(0)
