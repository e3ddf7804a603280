"""Kueue's controller manager as its own process against the tests' control plane: the release's own binary with a configuration file, its webhooks served on loopback with a
certificate signed by the control plane's CA and registered with the API server by URL (as its
integration tests register them), one TAS profile per process (feature gates).

Everything listens on 127.0.0.1; metrics, the visibility server and leader election are off.
Without Kueue's internal certificate management the binary reads a metrics certificate from the
fixed path /etc/kueue/metrics/certs, where its Deployment mounts one; here it runs in a private
mount namespace (util-linux ``unshare``) whose /etc is the host's plus that folder, so nothing is
written outside the run's temporary folder."""

from __future__ import annotations

import base64
import copy
import json
import os
import shutil
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from tests.realkube.control_plane import ControlPlane
from tests.realkube.crds import install_crds
from tests.realkube.pki import issue_serving_cert
from tests.realkube.processes import ControlPlaneError, Process, free_port

from toposched.controller.kubeapi import ApiNotFoundError, Resource

NAMESPACE = "kueue-system"
KUEUE_GROUP = "kueue.x-k8s.io"
READY_TIMEOUT = 120.0  # the manager syncs its informers and starts its webhook server
WEBHOOK_TIMEOUT = 60.0

# What each of Kueue v0.19.2's TAS profiles is, as feature gates (pkg/features/kube_features.go):
# TASProfileMixed (beta, on) gives LeastFreeCapacity to unconstrained requests and BestFit to the
# rest; off, BestFit everywhere. TASBalancedPlacement (alpha, off) adds the balanced algorithm for
# preferred requests. v0.19 has no gate for LeastFreeCapacity everywhere (removed in 0.17).
PROFILE_GATES: Mapping[str, Mapping[str, bool]] = {
    "Mixed": {},
    "BestFit": {"TASProfileMixed": False},
    "BalancedPlacement": {"TASBalancedPlacement": True},
}
# Kept fixed for every profile: no extension API server, and the TAS gates at their defaults spelled out.
BASE_GATES: Mapping[str, bool] = {"VisibilityOnDemand": False, "TopologyAwareScheduling": True}

WEBHOOK_CONFIGS = {
    "MutatingWebhookConfiguration": Resource(
        "admissionregistration.k8s.io",
        "v1",
        "mutatingwebhookconfigurations",
        "MutatingWebhookConfiguration",
        namespaced=False,
    ),
    "ValidatingWebhookConfiguration": Resource(
        "admissionregistration.k8s.io",
        "v1",
        "validatingwebhookconfigurations",
        "ValidatingWebhookConfiguration",
        namespaced=False,
    ),
}
NAMESPACES = Resource("", "v1", "namespaces", "Namespace", namespaced=False)
FLAVORS = Resource(KUEUE_GROUP, "v1beta2", "resourceflavors", "ResourceFlavor", namespaced=False)


@dataclass(frozen=True, slots=True)
class KueueBuild:
    """The manager binary and the CRDs and webhook manifest of the same release (build.sh)."""

    binary: Path
    config: Path  # kueue-config/: the CRDs and manifests.yaml

    @classmethod
    def beside(cls, binaries_folder: Path) -> KueueBuild:
        return cls(binaries_folder / "kueue", binaries_folder / "kueue-config")

    def missing(self) -> str | None:
        if not self.binary.is_file() or not (self.config / "manifests.yaml").is_file():
            return f"Kueue's manager is not in {self.binary.parent}: build it with `testenv/build.sh`"
        return None

    def crd_files(self) -> tuple[Path, ...]:
        return tuple(sorted(self.config.glob("kueue.x-k8s.io_*.yaml")))


def install_kueue_crds(plane: ControlPlane, build: KueueBuild) -> None:
    """Every Kueue CRD of the release (the tests' plane already has its Topology and Workload)."""
    install_crds(plane, build.crd_files())


def manager_config(profile: str, health_port: int, webhook_port: int, cert_dir: Path) -> dict[str, Any]:
    gates = {**BASE_GATES, **PROFILE_GATES[profile]}
    return {
        "apiVersion": "config.kueue.x-k8s.io/v1beta2",
        "kind": "Configuration",
        "namespace": NAMESPACE,
        "health": {"healthProbeBindAddress": f"127.0.0.1:{health_port}"},
        "metrics": {"bindAddress": "0"},
        "webhook": {"host": "127.0.0.1", "port": webhook_port, "certDir": str(cert_dir)},
        "leaderElection": {"leaderElect": False},
        "internalCertManagement": {"enable": False},
        "integrations": {"frameworks": ["batch/job"]},
        "featureGates": gates,
    }


def webhook_configurations(manifests: str, port: int, ca_pem: bytes, suffix: str) -> list[dict[str, Any]]:
    """Kueue's webhook configurations, pointed at ``https://127.0.0.1:<port><path>``: only the
    webhooks for Kueue's own kinds (the manager serves no Pod or Job framework webhooks here)."""
    bundle = base64.b64encode(ca_pem).decode()
    out: list[dict[str, Any]] = []
    for document in yaml.safe_load_all(manifests):
        if not document or document.get("kind") not in WEBHOOK_CONFIGS:
            continue
        config = copy.deepcopy(document)
        config["metadata"] = {"name": f"vs-kueue-{document['metadata']['name']}-{suffix}"}
        hooks = []
        for hook in config.get("webhooks") or []:
            groups = {g for rule in hook.get("rules") or [] for g in rule.get("apiGroups") or []}
            if groups != {KUEUE_GROUP}:
                continue
            path = hook["clientConfig"]["service"]["path"]
            hook["clientConfig"] = {"url": f"https://127.0.0.1:{port}{path}", "caBundle": bundle}
            hooks.append(hook)
        config["webhooks"] = hooks
        out.append(config)
    return out


@contextmanager
def running_manager(plane: ControlPlane, build: KueueBuild, profile: str) -> Iterator[Process]:
    """Kueue's manager with ``profile``'s gates, ready to admit; stopped and its webhook
    configurations removed on leaving."""
    folder = plane.folder / f"kueue-{profile.lower()}-{time.monotonic_ns()}"
    cert_dir = folder / "certs"
    cert_dir.mkdir(parents=True)
    serving = issue_serving_cert(folder, plane.pki.ca, "kueue-webhook")
    (cert_dir / "tls.crt").write_bytes(serving.cert.read_bytes())
    (cert_dir / "tls.key").write_bytes(serving.key.read_bytes())
    health_port, webhook_port = free_port(), free_port()
    config_path = folder / "config.yaml"
    config_path.write_text(yaml.safe_dump(manager_config(profile, health_port, webhook_port, cert_dir)))
    api = plane.admin_api()
    configs = webhook_configurations(
        (build.config / "manifests.yaml").read_text(),
        webhook_port,
        plane.pki.ca.cert.read_bytes(),
        folder.name,
    )
    process: Process | None = None
    try:
        _ensure_namespace(plane, NAMESPACE)
        argv = _with_metrics_certs_mounted(
            [str(build.binary), f"--config={config_path}", f"--kubeconfig={plane.kubeconfig}"],
            folder,
            cert_dir,
        )
        process = Process(f"kueue ({profile})", argv, folder / "kueue.log")
        process.wait_until(lambda: _healthy(health_port), READY_TIMEOUT, "ready")
        for config in configs:
            api.create(WEBHOOK_CONFIGS[config["kind"]], config)
        process.wait_until(lambda: _webhooks_answer(plane), WEBHOOK_TIMEOUT, "answering its webhooks")
        yield process
    finally:
        for config in configs:
            with suppress(ApiNotFoundError):
                api.delete(WEBHOOK_CONFIGS[config["kind"]], config["metadata"]["name"])
        if process is not None:
            process.stop()
        api.close()


def _with_metrics_certs_mounted(argv: list[str], folder: Path, certs: Path) -> list[str]:
    """``argv`` run with /etc replaced by a folder of links to the host's /etc entries plus
    kueue/metrics/certs -> ``certs``, in a mount namespace of its own (a user namespace too when
    not root); the host's /etc stays as it is."""
    host_etc, etc = folder / "host-etc", folder / "etc"
    host_etc.mkdir()
    etc.mkdir()
    for entry in Path("/etc").iterdir():
        (etc / entry.name).symlink_to(host_etc / entry.name)
    (etc / "kueue" / "metrics").mkdir(parents=True)
    (etc / "kueue" / "metrics" / "certs").symlink_to(certs)
    unshare = shutil.which("unshare")
    if unshare is None:
        raise ControlPlaneError("Kueue's manager needs util-linux's `unshare` (apt-get install util-linux)")
    user = [] if os.geteuid() == 0 else ["--user", "--map-root-user"]
    script = 'mount --bind /etc "$1" && mount --bind "$2" /etc && shift 2 && exec "$@"'
    return [
        unshare,
        *user,
        "--mount",
        "--propagation",
        "private",
        "--",
        "sh",
        "-c",
        script,
        "sh",
        str(host_etc),
        str(etc),
        *argv,
    ]


def _ensure_namespace(plane: ControlPlane, name: str) -> None:
    try:
        plane.request(
            "POST",
            "/api/v1/namespaces",
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}},
        )
    except ControlPlaneError as exc:
        if "HTTP 409" not in str(exc):
            raise


def _healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def _webhooks_answer(plane: ControlPlane) -> bool:
    """A dry-run ResourceFlavor goes through Kueue's defaulting and validating webhooks."""
    probe = {
        "apiVersion": f"{KUEUE_GROUP}/v1beta2",
        "kind": "ResourceFlavor",
        "metadata": {"name": "vs-kueue-probe"},
    }
    try:
        plane.request("POST", f"/apis/{KUEUE_GROUP}/v1beta2/resourceflavors?dryRun=All", probe)
    except ControlPlaneError:
        return False
    return True


def manager_log_excerpt(process: Process) -> str:
    return json.dumps(process.log_tail()[-2000:])
