"""A throwaway Kubernetes control plane: etcd and kube-apiserver on free loopback ports, in a
temporary folder removed on stop.

The API server authenticates clients by certificate (the admin is in ``system:masters``) and
service-account token, authorizes with RBAC and Node, and serves the ``scheduling.k8s.io``
versions and feature gates of upstream gang scheduling (see ``FEATURE_GATES``). It keeps an audit
log of what ServiceAccounts ask of it (``audit_log``, read by ``tests.realkube.audit``).
"""

from __future__ import annotations

import json
import shutil
import ssl
import tempfile
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from tests.realkube.audit import write_policy
from tests.realkube.binaries import Binaries
from tests.realkube.pki import Pki, make_pki
from tests.realkube.processes import ControlPlaneError, Process, free_port

from toposched.controller.kubeapi import Resource
from toposched.controller.rest import RestKubeApi, connect

# kube_features.go of k8s.io/kubernetes v1.37.2: GenericWorkload (beta, off by default) serves
# Workload and PodGroup; TopologyAwareWorkloadScheduling the schedulingConstraints.topology field;
# CompositePodGroup the v1alpha3 CompositePodGroup and parent links; WorkloadWithJob the Job's
# spec.scheduling; PodGroupPreemptionPolicy the preemptionPolicy fields; DRAWorkloadResourceClaims
# the resourceClaims of Workload templates and PodGroups. Fields of a gate that is off are dropped
# silently, so each one the front ends read (and validate, with every gate on) is on.
FEATURE_GATES = (
    "GenericWorkload",
    "TopologyAwareWorkloadScheduling",
    "CompositePodGroup",
    "WorkloadWithJob",
    "PodGroupPreemptionPolicy",
    "DRAWorkloadResourceClaims",
)
# Beta and alpha API versions are off unless named: the versions toposched reads and writes.
RUNTIME_CONFIG = ("scheduling.k8s.io/v1beta1", "scheduling.k8s.io/v1alpha3")
SERVICE_ACCOUNT_ISSUER = "https://kubernetes.default.svc"
ETCD_READY_TIMEOUT = 60.0
APISERVER_READY_TIMEOUT = 180.0  # a cold start on two busy cores takes tens of seconds
HTTP_TIMEOUT = 10.0
START_ATTEMPTS = 3  # a free port taken by someone else between probe and bind: try new ports


@dataclass
class ControlPlane:
    """A running etcd + kube-apiserver and the files to reach them."""

    folder: Path
    pki: Pki
    url: str
    kubeconfig: Path
    processes: list[Process]
    _resources: dict[tuple[str, str], Resource] = field(default_factory=dict)

    @property
    def audit_log(self) -> Path:
        """What ServiceAccounts asked of the API server (``tests.realkube.audit``)."""
        return self.folder / "audit.log"

    def admin_api(self) -> RestKubeApi:
        """The project's REST client, as the cluster admin (close it when done)."""
        return connect(str(self.kubeconfig))

    def request(self, method: str, path: str, body: Mapping[str, Any] | None = None) -> Any:
        """One admin call on a raw path (``/readyz``, discovery, subresources): the decoded JSON
        body, or the text when it is not JSON. ``ControlPlaneError`` on an HTTP error."""
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("Accept", "application/json")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, context=self._admin_tls(), timeout=HTTP_TIMEOUT) as response:
                text = response.read().decode()
        except urllib.error.HTTPError as exc:
            detail = exc.read().decode(errors="replace")
            raise ControlPlaneError(f"{method} {path}: HTTP {exc.code}: {detail}") from exc
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            return text

    def resource_for(self, api_version: str, kind: str) -> Resource:
        """The resource serving ``kind`` at ``api_version``, from the server's discovery."""
        key = (api_version, kind)
        if key not in self._resources:
            group, _, version = api_version.rpartition("/")
            listing = self.request("GET", f"/apis/{api_version}" if group else f"/api/{version}")
            for entry in listing["resources"]:
                if entry["kind"] == kind and "/" not in entry["name"]:
                    self._resources[key] = Resource(group, version, entry["name"], kind, entry["namespaced"])
                    break
            else:
                raise ControlPlaneError(f"the API server serves no {kind} at {api_version}")
        return self._resources[key]

    def ready(self) -> bool:
        try:
            return bool(self.request("GET", "/readyz") == "ok")
        except (ControlPlaneError, OSError):
            return False

    def stop(self) -> None:
        """Stops every process (the API server before its etcd) and removes the folder."""
        for process in reversed(self.processes):
            process.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

    def _admin_tls(self) -> ssl.SSLContext:
        context = ssl.create_default_context(cafile=str(self.pki.ca.cert))
        context.load_cert_chain(str(self.pki.admin.cert), str(self.pki.admin.key))
        return context


@contextmanager
def running_control_plane(binaries: Binaries) -> Iterator[ControlPlane]:
    """A started control plane, stopped (processes and folder) on leaving, whatever happened."""
    plane = start_control_plane(binaries)
    try:
        yield plane
    finally:
        plane.stop()


def start_control_plane(binaries: Binaries) -> ControlPlane:
    """Starts etcd and kube-apiserver and waits for ``/readyz``; the caller must ``stop()`` it."""
    folder = Path(tempfile.mkdtemp(prefix="toposched-kube-"))
    try:
        pki = make_pki(folder / "pki")
        for attempt in range(1, START_ATTEMPTS + 1):
            try:
                return _start(binaries, folder, pki)
            except ControlPlaneError as exc:
                if attempt == START_ATTEMPTS or "address already in use" not in str(exc):
                    raise
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    raise AssertionError("unreachable: the last attempt returns or raises")


def _start(binaries: Binaries, folder: Path, pki: Pki) -> ControlPlane:
    etcd_url = f"http://127.0.0.1:{free_port()}"
    peer_url = f"http://127.0.0.1:{free_port()}"
    data = folder / "etcd"
    shutil.rmtree(data, ignore_errors=True)  # a failed attempt's data
    etcd = Process(
        "etcd",
        [
            str(binaries.etcd),
            "--name=default",
            f"--data-dir={data}",
            f"--listen-client-urls={etcd_url}",
            f"--advertise-client-urls={etcd_url}",
            f"--listen-peer-urls={peer_url}",
            f"--initial-advertise-peer-urls={peer_url}",
            f"--initial-cluster=default={peer_url}",
            "--unsafe-no-fsync=true",  # throwaway data: durability is not worth the disk waits
            "--log-level=warn",
        ],
        folder / "etcd.log",
    )
    processes = [etcd]
    try:
        etcd.wait_until(lambda: _etcd_healthy(etcd_url), ETCD_READY_TIMEOUT, "healthy")
        port = free_port()
        apiserver = Process(
            "kube-apiserver",
            _apiserver_argv(binaries, pki, etcd_url, port, folder),
            folder / "kube-apiserver.log",
        )
        processes.append(apiserver)
        kubeconfig = folder / "admin.kubeconfig"
        plane = ControlPlane(folder, pki, f"https://127.0.0.1:{port}", kubeconfig, processes)
        apiserver.wait_until(plane.ready, APISERVER_READY_TIMEOUT, "ready (/readyz)")
    except BaseException:
        for process in reversed(processes):
            process.stop()
        raise
    write_kubeconfig(
        kubeconfig,
        plane.url,
        pki.ca.cert,
        "admin",
        {"client-certificate": str(pki.admin.cert), "client-key": str(pki.admin.key)},
    )
    return plane


def _apiserver_argv(binaries: Binaries, pki: Pki, etcd_url: str, port: int, folder: Path) -> list[str]:
    return [
        str(binaries.kube_apiserver),
        f"--etcd-servers={etcd_url}",
        "--bind-address=127.0.0.1",
        "--advertise-address=127.0.0.1",
        # The kubernetes Service's endpoints would name this address, and 1.37 refuses loopback
        # there; nothing in the tests dials the Service, so no endpoint reconciler runs.
        "--endpoint-reconciler-type=none",
        f"--secure-port={port}",
        f"--cert-dir={folder / 'apiserver-certs'}",  # unused (the files below are given); kept in the folder
        f"--tls-cert-file={pki.serving.cert}",
        f"--tls-private-key-file={pki.serving.key}",
        f"--client-ca-file={pki.ca.cert}",
        f"--service-account-issuer={SERVICE_ACCOUNT_ISSUER}",
        f"--service-account-key-file={pki.service_account_key}",
        f"--service-account-signing-key-file={pki.service_account_key}",
        "--service-cluster-ip-range=10.0.0.0/24",  # addresses only allocated to Services, never dialled
        "--authorization-mode=RBAC,Node",
        "--allow-privileged=true",
        f"--runtime-config={','.join(f'{version}=true' for version in RUNTIME_CONFIG)}",
        f"--feature-gates={','.join(f'{gate}=true' for gate in FEATURE_GATES)}",
        f"--audit-policy-file={write_policy(folder)}",
        f"--audit-log-path={folder / 'audit.log'}",
    ]


def _etcd_healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=HTTP_TIMEOUT) as response:
            return bool(json.loads(response.read()).get("health") == "true")
    except (OSError, ValueError):
        return False


def write_kubeconfig(path: Path, server: str, ca: Path, user: str, credentials: Mapping[str, str]) -> Path:
    """A kubeconfig with one cluster, one user (``credentials``: client cert files or a token) and
    its context as the current one."""
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {"name": "toposched-test", "cluster": {"server": server, "certificate-authority": str(ca)}}
        ],
        "users": [{"name": user, "user": dict(credentials)}],
        "contexts": [{"name": user, "context": {"cluster": "toposched-test", "user": user}}],
        "current-context": user,
    }
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    path.chmod(0o600)
    return path
