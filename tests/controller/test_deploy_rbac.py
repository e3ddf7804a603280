"""deploy/ against the code: the RBAC rules grant exactly the calls ``permissions.PERMISSIONS``
declares per mode, every request the client sends in a controller-like run is declared, the CRDs
serve the resources the code names, and the manifests hang together."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from tests.controller.kube_test_server import Call, KubeTestServer
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
    KUBE_COMPOSITE_PODGROUPS,
    KUBE_PODGROUPS,
    KUBE_PODGROUPS_V1ALPHA3,
    KUBE_WORKLOADS,
    KUEUE_TOPOLOGIES,
    LEASES,
    NODES,
    PODS,
    ApiNotFoundError,
    PatchType,
    Resource,
)
from toposched.controller.modes import Mode
from toposched.controller.permissions import PERMISSIONS, Permission, Scope
from toposched.controller.rest import RestKubeApi

REPO = DEPLOY.parent
GATE = "toposched.io/topology"


@pytest.mark.parametrize("mode", list(Mode))
def test_rbac_grants_exactly_the_declared_calls(mode: Mode) -> None:
    rbac = granted(mode)

    assert sorted(PERMISSIONS[mode] - rbac) == [], "declared in permissions.py but not granted in deploy/"
    assert sorted(rbac - PERMISSIONS[mode]) == [], "granted in deploy/ but not declared in permissions.py"


def elect(server: KubeTestServer, api: RestKubeApi) -> None:
    """Leader election as a lease holder does it: read, create when absent, renew by update."""
    try:
        api.get(LEASES, "toposched", NAMESPACE)
    except ApiNotFoundError:
        api.create(
            LEASES,
            {"metadata": {"name": "toposched", "namespace": NAMESPACE}, "spec": {"holderIdentity": "a"}},
        )
    lease = api.get(LEASES, "toposched", NAMESPACE)
    api.replace(LEASES, {**lease, "spec": {"holderIdentity": "a", "leaseDurationSeconds": 15}})


def inform(server: KubeTestServer, api: RestKubeApi, resource: Resource) -> None:
    """An informer's calls: list, then watch from the listing (left at the first bookmark)."""
    listing = api.list(resource)
    server.bookmark(resource)
    stream = api.watch(resource, listing.resource_version)
    next(stream)
    stream.close()


def run_ungater(server: KubeTestServer, api: RestKubeApi) -> None:
    elect(server, api)
    informed = (KAI_TOPOLOGIES, KUEUE_TOPOLOGIES, GROVE_CLUSTER_TOPOLOGIES, NODES, PODS, KAI_PODGROUPS)
    upstream = (KUBE_PODGROUPS_V1ALPHA3, KUBE_PODGROUPS, KUBE_WORKLOADS, KUBE_COMPOSITE_PODGROUPS)
    for resource in (*informed, *upstream):
        inform(server, api, resource)
    server.add_pod("worker-0", namespace="team-a")
    server.add_pod("worker-1", namespace="team-a")
    assignment = {"metadata": {"annotations": {"toposched.io/assignment": '{"rack": "r1"}'}}}
    api.patch(PODS, "worker-0", assignment, "team-a")
    ungate = {
        "spec": {"nodeSelector": {"rack": "r1"}, "schedulingGates": [{"$patch": "delete", "name": GATE}]}
    }
    api.patch(PODS, "worker-0", ungate, "team-a", patch_type=PatchType.STRATEGIC)
    api.delete(PODS, "worker-1", "team-a")  # evicted from a failed node


def run_sync(server: KubeTestServer, api: RestKubeApi) -> None:
    elect(server, api)
    levels = {"levels": [{"nodeLabel": "rack"}, {"nodeLabel": "kubernetes.io/hostname"}]}
    server.add(KAI_TOPOLOGIES, {"metadata": {"name": "pool-old"}, "spec": levels})
    api.list(KAI_TOPOLOGIES)
    api.delete(KAI_TOPOLOGIES, "pool-old")  # a changed Topology: deleted, then written again
    api.apply(
        KAI_TOPOLOGIES,
        {"metadata": {"name": "pool-a"}, "spec": levels},
        field_manager="toposched",
        force=True,
    )
    group = {"metadata": {"name": "wf-1", "namespace": "team-a"}, "spec": {"minMember": 2}}
    api.apply(KAI_PODGROUPS, group, field_manager="toposched")
    grove = {
        "levels": [{"domain": "rack", "key": "rack"}, {"domain": "host", "key": "kubernetes.io/hostname"}]
    }
    api.apply(
        GROVE_CLUSTER_TOPOLOGIES, {"metadata": {"name": "pool-a"}, "spec": grove}, field_manager="toposched"
    )


RUNS: dict[Mode, Callable[[KubeTestServer, RestKubeApi], None]] = {
    Mode.UNGATER: run_ungater,
    Mode.SYNC: run_sync,
}


@pytest.mark.parametrize("mode", list(Mode))
def test_every_request_of_a_controller_like_run_is_declared_and_every_declaration_used(
    mode: Mode, kube_test_server: KubeTestServer, kube_api: RestKubeApi
) -> None:
    RUNS[mode](kube_test_server, kube_api)
    calls = kube_test_server.calls

    undeclared = [call for call in calls if not permitted(PERMISSIONS[mode], call)]
    used = {p for p in PERMISSIONS[mode] if any(permitted(frozenset({p}), call) for call in calls)}

    assert undeclared == []
    assert sorted(PERMISSIONS[mode] - used) == []


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
