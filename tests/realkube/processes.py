"""Child processes of the control plane: each in its own process group with its output in a log
file, killed with the test process if that dies, and stopped by group (TERM, then KILL)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path

STOP_GRACE = 15.0  # seconds between TERM and KILL
LOG_TAIL = 4000  # characters of a log quoted in an error


class ControlPlaneError(Exception):
    """A control-plane process did not start or answer; the message quotes its log."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (the caller binds it soon after)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _with_parent_death_signal(argv: Sequence[str]) -> list[str]:
    """``argv`` run through util-linux's ``setpriv --pdeathsig KILL``: the kernel kills the server
    when the process that started it dies, so a test run killed with SIGKILL leaves none behind.
    (A ``preexec_fn`` would do the same, but is unsafe once the test process runs threads.)"""
    setpriv = shutil.which("setpriv")
    return [setpriv, "--pdeathsig", "KILL", "--", *argv] if setpriv else list(argv)


class Process:
    """One server process, its log file and its process group."""

    def __init__(self, name: str, argv: Sequence[str], log: Path) -> None:
        self.name = name
        self.log = log
        with log.open("wb") as out:
            self._popen = subprocess.Popen(
                _with_parent_death_signal(argv),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: stopped as one, with any children
            )

    @property
    def pid(self) -> int:
        return self._popen.pid

    def running(self) -> bool:
        return self._popen.poll() is None

    def log_tail(self) -> str:
        try:
            text = self.log.read_text(errors="replace")
        except OSError as exc:
            return f"(no log: {exc})"
        return text[-LOG_TAIL:]

    def wait_until(self, ready: Callable[[], bool], timeout: float, what: str) -> None:
        """Polls ``ready`` until it is true; ``ControlPlaneError`` with the log if the process exits
        or ``timeout`` seconds pass first."""
        deadline = time.monotonic() + timeout
        while True:
            if not self.running():
                raise ControlPlaneError(
                    f"{self.name} exited with {self._popen.returncode} before {what}; its log ends:\n{self.log_tail()}"
                )
            if ready():
                return
            if time.monotonic() > deadline:
                raise ControlPlaneError(
                    f"{self.name} not {what} after {timeout:.0f} s; its log ends:\n{self.log_tail()}"
                )
            time.sleep(0.2)

    def stop(self, grace: float = STOP_GRACE) -> None:
        """TERM to the whole group, KILL after ``grace`` seconds; returns once the server has exited
        (the rest of its group is killed too, which the kernel completes a moment later)."""
        if self.running():
            self._signal(signal.SIGTERM)
            try:
                self._popen.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                self._signal(signal.SIGKILL)
                self._popen.wait()
        # Anything the server started in its group goes too, even when the server itself had exited.
        self._signal(signal.SIGKILL)

    def _signal(self, number: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self._popen.pid, number)
