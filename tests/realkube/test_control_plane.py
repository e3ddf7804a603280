"""The real control plane itself: it starts at the pinned release, serves the scheduling.k8s.io
kinds at the versions the front end reads, installs every CRD toposched reads and writes, and
enforces RBAC on the controller's ServiceAccounts as deploy/ grants it."""

from __future__ import annotations

import pytest
from tests.realkube.accounts import apply_manifest, service_account_kubeconfig
from tests.realkube.binaries import REPO
from tests.realkube.control_plane import ControlPlane
from tests.realkube.crds import crd_documents

from toposched.controller.kubeapi import (
    GROVE_CLUSTER_TOPOLOGIES,
    KAI_PODGROUPS,
    KAI_TOPOLOGIES,
    KUBE_COMPOSITE_PODGROUPS,
    KUBE_PODGROUPS,
    KUBE_PODGROUPS_V1ALPHA3,
    KUBE_WORKLOADS,
    KUEUE_TOPOLOGIES,
    NODES,
    PODS,
    KubeApiError,
    Resource,
)
from toposched.controller.rest import connect

SECRETS = Resource("", "v1", "secrets", "Secret")


def test_the_api_server_is_ready_at_the_pinned_release(real_apiserver: ControlPlane) -> None:
    version = real_apiserver.request("GET", "/version")

    assert real_apiserver.request("GET", "/readyz") == "ok"
    assert (version["gitVersion"], version["major"], version["minor"]) == ("v1.37.2", "1", "37")


@pytest.mark.parametrize(
    "resource",
    [KUBE_WORKLOADS, KUBE_PODGROUPS, KUBE_PODGROUPS_V1ALPHA3, KUBE_COMPOSITE_PODGROUPS],
    ids=lambda r: f"{r.plural}.{r.version}",
)
def test_scheduling_kinds_are_served_where_the_front_end_reads_them(
    real_apiserver: ControlPlane, resource: Resource
) -> None:
    served = real_apiserver.resource_for(resource.api_version, resource.kind)
    api = real_apiserver.admin_api()
    listing = api.list(resource)
    api.close()

    assert served == resource
    assert listing.resource_version


def test_every_crd_serves_each_of_its_versions(real_apiserver: ControlPlane) -> None:
    api = real_apiserver.admin_api()
    listed = []
    for crd in crd_documents():
        group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
        for version in (v["name"] for v in crd["spec"]["versions"] if v["served"]):
            listed.append((api.list(real_apiserver.resource_for(f"{group}/{version}", kind)), kind))
    api.close()

    kinds = {kind for _, kind in listed}
    assert kinds == {
        "Topology",
        "PodGroup",
        "ClusterTopology",
        "Workload",
        "JobSet",
        "PodCliqueSet",
        "PodGang",
    }
    assert all(listing.resource_version for listing, _ in listed)


@pytest.mark.parametrize(
    "resource", [KAI_TOPOLOGIES, KAI_PODGROUPS, KUEUE_TOPOLOGIES, GROVE_CLUSTER_TOPOLOGIES]
)
def test_the_controllers_crd_resources_match_what_the_server_serves(
    real_apiserver: ControlPlane, resource: Resource
) -> None:
    assert real_apiserver.resource_for(resource.api_version, resource.kind) == resource


def test_a_controller_service_account_gets_exactly_its_rbac_grants(real_apiserver: ControlPlane) -> None:
    apply_manifest(real_apiserver, REPO / "deploy" / "ungater" / "rbac.yaml")
    ungater = connect(
        str(service_account_kubeconfig(real_apiserver, "toposched-system", "toposched-ungater"))
    )

    nodes = ungater.list(NODES)
    with pytest.raises(KubeApiError) as secrets:
        ungater.list(SECRETS, "toposched-system")
    with pytest.raises(KubeApiError) as pod:
        ungater.create(PODS, {"metadata": {"name": "p", "namespace": "toposched-system"}, "spec": {}})
    ungater.close()

    assert nodes.resource_version
    assert (secrets.value.status, pod.value.status) == (403, 403)
    assert "system:serviceaccount:toposched-system:toposched-ungater" in str(secrets.value)
