"""kube-scheduler (the binary testenv/build.sh builds, same release as the API server) run
against a test control plane, as a cluster runs it: its own identity (``system:kube-scheduler``,
a client certificate, held to the bootstrap RBAC role the API server grants that user), no
leader election, and the feature gates of upstream gang and topology-aware scheduling.

Its configuration is the default profile, exactly as kube-scheduler's own integration tests for
PodGroups run it (test/integration/scheduler/podgroup/topology_aware_scheduling: the default
configuration with the gates GenericWorkload, TopologyAwareWorkloadScheduling and
CompositePodGroup on). With those gates the defaults already add the GangScheduling plugin,
the TopologyPlacementGenerator and the PodGroupPodsCount placement scorer (v1.37.2
pkg/scheduler/apis/config/v1/default_plugins.go), so no plugin is named here. Only the client's
rate limit is raised: it bounds bindings and status writes per second, not any placement.
"""

from __future__ import annotations

import ssl
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import yaml
from tests.realkube.binaries import Binaries
from tests.realkube.control_plane import FEATURE_GATES, ControlPlane, write_kubeconfig
from tests.realkube.pki import issue_client_cert
from tests.realkube.processes import ControlPlaneError, Process, free_port

USER = "system:kube-scheduler"  # bound to the system:kube-scheduler ClusterRole by the API server
READY_TIMEOUT = 120.0  # informers synced on two busy cores
QPS = 1000  # kube-scheduler's default client (50 QPS, burst 100) would pace bindings, not placements


@dataclass(frozen=True, slots=True)
class KubeScheduler:
    """A running kube-scheduler and its files (in the control plane's folder)."""

    process: Process
    config: Path
    kubeconfig: Path
    port: int

    def ready(self) -> bool:
        """``/readyz`` answers ok: its informers are synced and it schedules."""
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE  # a self-signed serving certificate made at start
        try:
            with urllib.request.urlopen(
                f"https://127.0.0.1:{self.port}/readyz", context=context, timeout=5
            ) as response:
                return bool(response.read().decode() == "ok")
        except (OSError, urllib.error.URLError):
            return False

    def stop(self) -> None:
        self.process.stop()


def scheduler_configuration(kubeconfig: Path, qps: int = QPS) -> dict[str, object]:
    """The KubeSchedulerConfiguration: the default profile, this kubeconfig, no leader election."""
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "clientConnection": {"kubeconfig": str(kubeconfig), "qps": qps, "burst": qps},
        "leaderElection": {"leaderElect": False},
    }


def start_kube_scheduler(plane: ControlPlane, binaries: Binaries, *, verbosity: int = 2) -> KubeScheduler:
    """Starts kube-scheduler against ``plane`` and waits until it is ready; the caller stops it."""
    folder = plane.folder
    client = issue_client_cert(folder / "pki", plane.pki.ca, USER)
    kubeconfig = write_kubeconfig(
        folder / "kube-scheduler.kubeconfig",
        plane.url,
        plane.pki.ca.cert,
        USER,
        {"client-certificate": str(client.cert), "client-key": str(client.key)},
    )
    config = folder / "kube-scheduler.yaml"
    config.write_text(yaml.safe_dump(scheduler_configuration(kubeconfig), sort_keys=False))
    port = free_port()
    process = Process(
        "kube-scheduler",
        [
            str(binaries.kube_scheduler),
            f"--config={config}",
            f"--feature-gates={','.join(f'{gate}=true' for gate in FEATURE_GATES)}",
            "--bind-address=127.0.0.1",
            f"--secure-port={port}",
            f"--cert-dir={folder / 'kube-scheduler-certs'}",
            # Delegated authentication and authorization read the API server; /readyz is open.
            f"--authentication-kubeconfig={kubeconfig}",
            f"--authorization-kubeconfig={kubeconfig}",
            f"--v={verbosity}",
        ],
        folder / "kube-scheduler.log",
    )
    scheduler = KubeScheduler(process, config, kubeconfig, port)
    try:
        process.wait_until(scheduler.ready, READY_TIMEOUT, "ready (/readyz)")
    except BaseException:
        process.stop()
        raise
    return scheduler


@contextmanager
def running_kube_scheduler(
    plane: ControlPlane, binaries: Binaries, *, verbosity: int = 2
) -> Iterator[KubeScheduler]:
    """A started kube-scheduler, stopped on leaving whatever happened (``verbosity`` 10 logs
    every plugin's score of every node and placement)."""
    scheduler = start_kube_scheduler(plane, binaries, verbosity=verbosity)
    try:
        yield scheduler
    finally:
        scheduler.stop()


__all__ = ["ControlPlaneError", "KubeScheduler", "running_kube_scheduler", "start_kube_scheduler"]
