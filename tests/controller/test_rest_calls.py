"""RestKubeApi's calls and their errors.

On the real API server (``real_cluster``, as the admin unless a test says otherwise): list, get,
create, replace, delete and the three patch types, each with the answer and the typed error the
server gives. On the test double, only what a real server cannot be made to do on demand: answer
500 to one call. Without any server: a port nobody listens on, one that never answers, and
kubeconfig files that are missing or absent.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from kubernetes.client import Configuration
from tests.controller.cluster import kube_pod
from tests.controller.kube_test_server import KubeTestServer
from tests.controller.real_cluster import RUN, ControllerAccounts, RealCluster

from toposched.controller.kubeapi import (
    GROVE_CLUSTER_TOPOLOGIES,
    KAI_PODGROUPS,
    LEASES,
    NODES,
    PODS,
    ApiConflictError,
    ApiNotFoundError,
    KubeApiError,
    Object,
    PatchType,
    Resource,
)
from toposched.controller.modes import Mode
from toposched.controller.rest import RestKubeApi, connect
from toposched.model import ToposchedError

GATE = "toposched.io/topology"
SELF_SUBJECT_REVIEWS = Resource(
    "authentication.k8s.io", "v1", "selfsubjectreviews", "SelfSubjectReview", namespaced=False
)


def lease(cluster: RealCluster, holder: str, name: str = "toposched") -> dict[str, object]:
    return {"metadata": {"name": name, "namespace": cluster.namespace}, "spec": {"holderIdentity": holder}}


def pod(cluster: RealCluster, name: str, gates: tuple[str, ...] = (GATE,), **metadata: object) -> Object:
    made = kube_pod(name, gpus=1)
    made["spec"]["schedulingGates"] = [{"name": gate} for gate in gates]
    made["metadata"].update(metadata)
    return cluster.create(PODS, made)


def test_list_returns_items_with_kind_and_the_version_to_watch_from(real_cluster: RealCluster) -> None:
    for i in range(2):
        real_cluster.add_node(i)

    listing = real_cluster.admin.list(NODES)
    later = real_cluster.admin.list(NODES)

    mine = [item for item in listing.items if item["metadata"]["labels"].get(RUN) == real_cluster.run]
    assert [item["metadata"]["name"] for item in mine] == [real_cluster.node_name(i) for i in range(2)]
    assert {(item["apiVersion"], item["kind"]) for item in listing.items} == {("v1", "Node")}
    assert int(listing.resource_version) >= max(int(i["metadata"]["resourceVersion"]) for i in mine)
    assert later.resource_version >= listing.resource_version


def test_list_sends_the_label_selector_and_the_namespace(real_cluster: RealCluster) -> None:
    pod(real_cluster, "a", labels={"app": "train"})
    pod(real_cluster, "b", labels={"app": "serve"})

    names = [
        p["metadata"]["name"]
        for p in real_cluster.admin.list(PODS, real_cluster.namespace, label_selector="app=train").items
    ]
    elsewhere = real_cluster.admin.list(PODS, "default", label_selector="app=train").items

    assert names == ["a"]
    assert elsewhere == ()


def test_get_create_replace_and_delete_round_trip_a_lease(real_cluster: RealCluster) -> None:
    api, namespace = real_cluster.admin, real_cluster.namespace
    created = api.create(LEASES, lease(real_cluster, "replica-a"))
    created["spec"]["holderIdentity"] = "replica-b"

    replaced = api.replace(LEASES, created)
    fetched = api.get(LEASES, "toposched", namespace)
    api.delete(LEASES, "toposched", namespace)

    assert fetched["spec"]["holderIdentity"] == "replica-b"
    assert int(replaced["metadata"]["resourceVersion"]) > int(created["metadata"]["resourceVersion"])
    with pytest.raises(ApiNotFoundError, match="get leases/toposched"):
        api.get(LEASES, "toposched", namespace)


def test_replace_with_a_stale_resource_version_is_a_conflict(real_cluster: RealCluster) -> None:
    api = real_cluster.admin
    first = api.create(LEASES, lease(real_cluster, "replica-a"))
    api.replace(LEASES, {**first, "spec": {"holderIdentity": "replica-b"}})

    with pytest.raises(ApiConflictError, match=r"replace leases/toposched: .*has been modified"):
        api.replace(LEASES, {**first, "spec": {"holderIdentity": "replica-c"}})


def test_create_of_an_existing_object_is_a_conflict(real_cluster: RealCluster) -> None:
    real_cluster.admin.create(LEASES, lease(real_cluster, "replica-a"))

    with pytest.raises(ApiConflictError, match="already exists"):
        real_cluster.admin.create(LEASES, lease(real_cluster, "replica-b"))


def test_strategic_patch_removes_the_gate_alone_and_sets_the_node_selector(real_cluster: RealCluster) -> None:
    pod(real_cluster, "worker-0", gates=(GATE, "other.io/gate"))
    patch = {
        "spec": {"nodeSelector": {"rack": "r1"}, "schedulingGates": [{"$patch": "delete", "name": GATE}]}
    }

    patched = real_cluster.admin.patch(
        PODS, "worker-0", patch, real_cluster.namespace, patch_type=PatchType.STRATEGIC
    )

    assert patched["spec"]["nodeSelector"] == {"rack": "r1"}
    assert patched["spec"]["schedulingGates"] == [{"name": "other.io/gate"}]


def test_json_patch_removes_the_gate_and_sets_the_node_selector(real_cluster: RealCluster) -> None:
    pod(real_cluster, "worker-0")
    patch = [
        {"op": "test", "path": "/spec/schedulingGates/0/name", "value": GATE},
        {"op": "remove", "path": "/spec/schedulingGates/0"},
        {"op": "add", "path": "/spec/nodeSelector", "value": {"rack": "r1"}},
    ]

    patched = real_cluster.admin.patch(
        PODS, "worker-0", patch, real_cluster.namespace, patch_type=PatchType.JSON
    )

    assert patched["spec"]["nodeSelector"] == {"rack": "r1"}
    assert "schedulingGates" not in patched["spec"]


def test_merge_patch_records_an_annotation_beside_the_others(real_cluster: RealCluster) -> None:
    pod(real_cluster, "worker-0", annotations={"keep": "me"})

    patched = real_cluster.admin.patch(
        PODS, "worker-0", {"metadata": {"annotations": {"toposched.io/domain": "r1"}}}, real_cluster.namespace
    )

    assert patched["metadata"]["annotations"] == {"keep": "me", "toposched.io/domain": "r1"}


def test_namespaced_custom_objects_are_created_in_their_namespace(real_cluster: RealCluster) -> None:
    group = {"metadata": {"name": "gang", "namespace": real_cluster.namespace}, "spec": {"minMember": 4}}

    created = real_cluster.admin.create(KAI_PODGROUPS, group)

    assert created["metadata"]["namespace"] == real_cluster.namespace
    assert real_cluster.admin.get(KAI_PODGROUPS, "gang", real_cluster.namespace)["spec"]["minMember"] == 4


def test_a_kind_the_cluster_does_not_serve_is_not_found(real_cluster: RealCluster) -> None:
    unserved = Resource("widgets.example.com", "v1", "widgets", "Widget", namespaced=False)

    with pytest.raises(ApiNotFoundError, match="list widgets"):
        real_cluster.admin.list(unserved)


def test_connect_reads_a_kubeconfig_and_calls_as_its_user(controller_accounts: ControllerAccounts) -> None:
    api = connect(str(controller_accounts[Mode.UNGATER]))
    try:
        review = api.create(SELF_SUBJECT_REVIEWS, {"metadata": {}})
        with pytest.raises(KubeApiError) as refused:
            api.list(LEASES)  # the ungater may read Leases in its own namespace only
    finally:
        api.close()

    assert (
        review["status"]["userInfo"]["username"] == "system:serviceaccount:toposched-system:toposched-ungater"
    )
    assert refused.value.status == 403


def test_a_server_error_names_the_call_and_keeps_the_status(
    kube_test_server: KubeTestServer, kube_api: RestKubeApi
) -> None:
    """On the double: a real server cannot be made to answer 500 to one call."""
    kube_test_server.fail_next("get", GROVE_CLUSTER_TOPOLOGIES, 500)

    with pytest.raises(KubeApiError, match=r"^500: get clustertopologies/default: .*injected") as error:
        kube_api.get(GROVE_CLUSTER_TOPOLOGIES, "default")

    assert type(error.value) is KubeApiError
    assert error.value.status == 500


def test_no_server_is_a_kube_api_error_naming_the_call() -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    api = RestKubeApi(Configuration(host=f"http://127.0.0.1:{port}"))

    with pytest.raises(KubeApiError, match="list nodes: no response from"):
        api.list(NODES)


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections and never answers."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        yield listener.getsockname()[1]


def test_a_server_that_never_answers_times_out_as_a_kube_api_error(silent_port: int) -> None:
    api = RestKubeApi(Configuration(host=f"http://127.0.0.1:{silent_port}"), request_timeout=0.3)

    with pytest.raises(KubeApiError, match="get nodes/n1: no response from"):
        api.get(NODES, "n1")


def test_connect_without_a_kubeconfig_outside_a_cluster_says_what_to_pass(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.kube/config either

    with pytest.raises(ToposchedError, match=r"in-cluster service account.*--kubeconfig"):
        connect(None)


def test_connect_with_a_missing_kubeconfig_names_it(tmp_path: Path) -> None:
    with pytest.raises(ToposchedError, match="missing-config"):
        connect(str(tmp_path / "missing-config"))
