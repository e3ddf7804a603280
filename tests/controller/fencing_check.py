"""What the fencing tests share: two ``toposched controller`` processes, and the check they are
held to, on plain lists a server's own record gives (the audit log of the real API server, or the
double's record of the writes it applied).

As resourceVersions order every change of the server, the holder of the Lease when a write landed
is the holder of the Lease's last version before the write's own. A write that landed while its
writer did not hold the Lease is a violation.
"""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from tests.controller.kube_test_requests import Write

ROOT = Path(__file__).resolve().parents[2]
LEASE_DURATION, RENEW_DEADLINE, RETRY_PERIOD = 2, 1.2, 0.2


class Replica:
    """One ``toposched controller`` process (``--mode ungater``), with fast lease timings."""

    def __init__(self, name: str, kubeconfig: Path, log: Path, extra: Sequence[str] = ()) -> None:
        self.name, self.log = name, log
        command = [
            sys.executable,
            "-c",
            "from toposched.cli.main import app; app(prog_name='toposched')",
            "controller",
            f"--kubeconfig={kubeconfig}",
            f"--identity={name}",
            "--metrics-port=0",
            "--interval=0.05",
            f"--lease-duration={LEASE_DURATION}",
            f"--renew-deadline={RENEW_DEADLINE}",
            f"--retry-period={RETRY_PERIOD}",
            *extra,
        ]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
        with log.open("w") as out:
            self.process = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)

    def signal(self, number: int) -> None:
        if self.process.poll() is None:
            os.kill(self.process.pid, number)

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        self.signal(signal.SIGCONT)
        self.signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def writes_by_non_holders(
    writes: Iterable[Write], history: Sequence[tuple[int, str]], replicas: Iterable[str]
) -> tuple[list[str], int]:
    """Each replica write the server applied while the writer did not hold the lease (by the
    Lease's ``history``: each version's resourceVersion and holder), and how many there were."""
    writers = set(replicas)
    found, checked = [], 0
    for write in writes:
        if write.resource == "leases" or write.user not in writers:
            continue
        checked += 1
        before = [who for version, who in history if version < write.resource_version]
        held_by = before[-1] if before else ""
        if held_by != write.user:
            found.append(f"{write} landed while the lease was held by {held_by!r}")
    return found, checked


def handovers(history: Sequence[tuple[int, str]]) -> int:
    """How many times the Lease passed from one holder to another (releases not counted)."""
    holders = [who for _, who in history if who]
    return sum(1 for first, second in itertools.pairwise(holders) if first != second)
