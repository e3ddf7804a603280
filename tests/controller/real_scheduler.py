"""kube-scheduler v1.37.2 (built by testenv/build.sh beside the API server) for one test: it
schedules only the pods that name its profile (``schedulerName``), so it leaves every other
test's pods alone, and it binds an ungated pod to a node its selector and node affinity admit,
as in a cluster. Stopped, with its process group, when the test ends."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import yaml
from tests.realkube.binaries import find_binaries
from tests.realkube.control_plane import FEATURE_GATES, ControlPlane
from tests.realkube.processes import Process

READY_TIMEOUT = 60.0


@contextmanager
def running_scheduler(plane: ControlPlane, name: str, folder: Path) -> Iterator[str]:
    """kube-scheduler with one profile, ``name``; yields the ``schedulerName`` pods give to use it."""
    config = folder / "scheduler.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "kubescheduler.config.k8s.io/v1",
                "kind": "KubeSchedulerConfiguration",
                "clientConnection": {"kubeconfig": str(plane.kubeconfig)},
                "leaderElection": {"leaderElect": False},
                "profiles": [{"schedulerName": name}],
            }
        )
    )
    argv = [
        str(find_binaries().kube_scheduler),
        f"--config={config}",
        "--secure-port=0",  # nothing here reads its health or metrics
        f"--feature-gates={','.join(f'{gate}=true' for gate in FEATURE_GATES)}",
        "--v=2",
    ]
    process = Process("kube-scheduler", argv, folder / "kube-scheduler.log")
    try:
        process.wait_until(lambda: "Starting Kubernetes Scheduler" in _log(process), READY_TIMEOUT, "started")
        yield name
    finally:
        process.stop()


def _log(process: Process) -> str:
    try:
        return process.log.read_text(errors="replace")
    except OSError:
        return ""
