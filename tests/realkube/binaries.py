"""Where the control-plane binaries are: ``$TOPOSCHED_TESTENV_BIN``, else the folder
``testenv/build.sh`` built them into (asked with ``--locate``, which never builds)."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILD_SCRIPT = REPO / "testenv" / "build.sh"
BUILD_COMMAND = "testenv/build.sh"
ENV_VAR = "TOPOSCHED_TESTENV_BIN"
NAMES = ("etcd", "kube-apiserver", "kube-scheduler")
LOCATE_TIMEOUT = 60.0  # hashes a few files and asks `go version`


@dataclass(frozen=True, slots=True)
class Binaries:
    folder: Path

    @property
    def etcd(self) -> Path:
        return self.folder / "etcd"

    @property
    def kube_apiserver(self) -> Path:
        return self.folder / "kube-apiserver"

    @property
    def kube_scheduler(self) -> Path:
        return self.folder / "kube-scheduler"


class BinariesMissingError(Exception):
    """The binaries are not built; the message says which command builds them."""


def find_binaries() -> Binaries:
    """The binaries, or ``BinariesMissingError`` naming what is missing and the command that builds it."""
    given = os.environ.get(ENV_VAR)
    if given:
        folder, source = Path(given), f"${ENV_VAR} ({given})"
    else:
        folder, source = _located(), f"the folder {BUILD_COMMAND} --locate names"
    missing = [name for name in NAMES if not os.access(folder / name, os.X_OK)]
    if missing:
        raise BinariesMissingError(
            f"{', '.join(missing)} not found in {source}: build them with `{BUILD_COMMAND}` "
            f"(needs Go; prints the folder, which ${ENV_VAR} may name)"
        )
    return Binaries(folder)


def _located() -> Path:
    try:
        done = subprocess.run(
            [str(BUILD_SCRIPT), "--locate"],
            capture_output=True,
            text=True,
            timeout=LOCATE_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise BinariesMissingError(
            f"cannot run `{BUILD_COMMAND} --locate` ({exc}): build with `{BUILD_COMMAND}`"
        ) from exc
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        raise BinariesMissingError(
            f"the control-plane binaries are not built: run `{BUILD_COMMAND}` (a cold build takes minutes; "
            f"it prints the folder, which ${ENV_VAR} may name)"
        )
    return Path(lines[-1])
