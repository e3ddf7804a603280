"""deploy/ against the code: the RBAC rules grant exactly the calls ``permissions.PERMISSIONS``
declares per mode, the CRDs serve the resources the code names, and the manifests hang together.
(That a run of the controller's calls is granted, and uses every grant, is checked on the real API
server by ``test_real_rbac``.)"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from tests.controller.kube_test_server import Call
from tests.controller.rbac import (
    DEPLOY,
    NAMESPACE,
    controller,
    crd_serves,
    documents,
    granted,
    of_kind,
    permitted,
)

from toposched.controller.kubeapi import (
    GROVE_CLUSTER_TOPOLOGIES,
    KAI_PODGROUPS,
    KAI_TOPOLOGIES,
    Resource,
)
from toposched.controller.modes import Mode
from toposched.controller.permissions import PERMISSIONS, Permission, Scope

REPO = DEPLOY.parent
GATE = "toposched.io/topology"


@pytest.mark.parametrize("mode", list(Mode))
def test_rbac_grants_exactly_the_declared_calls(mode: Mode) -> None:
    rbac = granted(mode)

    assert sorted(PERMISSIONS[mode] - rbac) == [], "declared in permissions.py but not granted in deploy/"
    assert sorted(rbac - PERMISSIONS[mode]) == [], "granted in deploy/ but not declared in permissions.py"


def test_a_namespaced_grant_does_not_cover_other_namespaces() -> None:
    lease_get = Permission("coordination.k8s.io", "leases", "get", Scope.NAMESPACE)
    assert permitted(frozenset({lease_get}), Call("get", "coordination.k8s.io", "leases", NAMESPACE))
    assert not permitted(frozenset({lease_get}), Call("get", "coordination.k8s.io", "leases", "kube-system"))


@pytest.mark.parametrize("mode", list(Mode))
def test_each_controller_elects_a_leader_in_its_namespace_and_serves_health_and_metrics(mode: Mode) -> None:
    pod, container = controller(mode)
    probe = container["livenessProbe"]["httpGet"]
    port = next(p["containerPort"] for p in container["ports"] if p["name"] == probe["port"])
    env = {e["name"]: e.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") for e in container["env"]}

    assert f"--metrics-port={port}" in container["args"]
    assert probe["path"] == "/healthz"
    assert pod["spec"]["template"]["metadata"]["annotations"]["prometheus.io/path"] == "/metrics"
    assert "--lease-namespace=$(POD_NAMESPACE)" in container["args"]
    assert env["POD_NAMESPACE"] == "metadata.namespace"
    assert "--identity=$(POD_NAME)" in container["args"]


def test_the_ungater_runs_two_replicas_and_sync_one_on_the_services_store() -> None:
    ungater, _ = controller(Mode.UNGATER)
    sync, sync_controller = controller(Mode.SYNC)
    service = next(c for c in sync["spec"]["template"]["spec"]["containers"] if c["args"][0] == "serve")

    assert ungater["spec"]["replicas"] == 2  # safe: only the Lease holder acts
    assert (sync["spec"]["replicas"], sync["spec"]["strategy"]["type"]) == (1, "Recreate")
    assert [a for a in sync_controller["args"] if a.startswith("--db=")] == [
        a for a in service["args"] if a.startswith("--db=")
    ]


@pytest.mark.parametrize(
    "resource",
    [KAI_TOPOLOGIES, KAI_PODGROUPS, GROVE_CLUSTER_TOPOLOGIES],
    ids=lambda r: r.plural + "." + r.group,
)
def test_the_shipped_crds_are_full_and_serve_what_the_code_calls(resource: Resource) -> None:
    crds = [crd for crd in of_kind("CustomResourceDefinition") if crd_serves(crd, resource)]

    assert len(crds) == 1
    assert all(v["schema"]["openAPIV3Schema"]["properties"] for v in crds[0]["spec"]["versions"])


def test_every_manifest_is_installed_by_a_kustomization_and_every_entry_exists() -> None:
    listed: set[Path] = set()
    for path, document in documents():
        if document.get("kind") == "Kustomization":
            for entry in document["resources"]:
                target = (path.parent / entry).resolve()
                assert target.exists(), f"{path}: {entry} does not exist"
                listed.add(target / "kustomization.yaml" if target.is_dir() else target)
    manifests = {
        path.resolve()
        for path, _ in documents()
        if path.name != "kustomization.yaml" and "examples" not in path.relative_to(DEPLOY).parts
    }

    assert sorted(manifests - listed) == []


def test_the_dockerfile_copies_only_what_exists_and_is_not_ignored() -> None:
    lines = (REPO / "Dockerfile").read_text().splitlines()
    ignored = set((REPO / ".dockerignore").read_text().split())
    sources = [part for line in lines if line.startswith("COPY ") for part in line.split()[1:-1]]

    assert sources
    for source in sources:
        assert (REPO / source).exists(), f"COPY {source}: not in the repository"
        assert source.rstrip("/") not in ignored


def test_the_examples_parse_as_kubernetes_objects() -> None:
    for path in sorted((DEPLOY / "examples").glob("*.yaml")):
        for document in yaml.safe_load_all(path.read_text()):
            assert {"apiVersion", "kind"} <= set(document), path


@pytest.mark.skipif(
    shutil.which("kubectl") is None, reason="kubectl is not installed: the kustomizations are not built"
)
@pytest.mark.parametrize("directory", ["", "ungater", "sync", "crds"])
def test_each_kustomization_builds(directory: str) -> None:
    built = subprocess.run(
        ["kubectl", "kustomize", str(DEPLOY / directory)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert built.returncode == 0, built.stderr
    kinds = [document["kind"] for document in yaml.safe_load_all(built.stdout)]
    assert kinds and all(kinds)
