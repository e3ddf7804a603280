"""RestKubeApi over HTTP against the API server test double: each call, its request and its errors."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from kubernetes.client import Configuration
from tests.controller.kube_test_server import Call, KubeTestServer

from toposched.controller.kubeapi import (
    GROVE_CLUSTER_TOPOLOGIES,
    KAI_PODGROUPS,
    LEASES,
    NODES,
    PODS,
    ApiConflictError,
    ApiNotFoundError,
    KubeApiError,
    PatchType,
)
from toposched.controller.rest import RestKubeApi, connect
from toposched.model import ToposchedError

GATE = "toposched.io/topology"


def lease(name: str, holder: str) -> dict[str, object]:
    return {"metadata": {"name": name, "namespace": "toposched-system"}, "spec": {"holderIdentity": holder}}


def test_list_returns_items_with_kind_and_the_version_to_watch_from(
    kube_test_server: KubeTestServer, kube_api: RestKubeApi
) -> None:
    kube_test_server.add_node("n1", {"rack": "r1"})
    kube_test_server.add_node("n2", {"rack": "r2"})

    listing = kube_api.list(NODES)

    assert [item["metadata"]["name"] for item in listing.items] == ["n1", "n2"]
    assert {(item["apiVersion"], item["kind"]) for item in listing.items} == {("v1", "Node")}
    assert listing.resource_version == str(kube_test_server.store.resource_version)


def test_list_sends_the_label_selector_and_the_namespace(
    kube_test_server: KubeTestServer, kube_api: RestKubeApi
) -> None:
    kube_test_server.add_pod("a", labels={"app": "train"})
    kube_test_server.add_pod("b", labels={"app": "serve"})
    kube_test_server.add_pod("c", namespace="other", labels={"app": "train"})

    names = [p["metadata"]["name"] for p in kube_api.list(PODS, "default", label_selector="app=train").items]

    assert names == ["a"]
    assert kube_test_server.calls[-1] == Call("list", "", "pods", "default")


def test_get_create_replace_and_delete_round_trip_a_lease(kube_api: RestKubeApi) -> None:
    created = kube_api.create(LEASES, lease("toposched", "replica-a"))
    created["spec"]["holderIdentity"] = "replica-b"

    replaced = kube_api.replace(LEASES, created)
    fetched = kube_api.get(LEASES, "toposched", "toposched-system")
    kube_api.delete(LEASES, "toposched", "toposched-system")

    assert fetched["spec"]["holderIdentity"] == "replica-b"
    assert int(replaced["metadata"]["resourceVersion"]) > int(created["metadata"]["resourceVersion"])
    with pytest.raises(ApiNotFoundError, match="get leases/toposched"):
        kube_api.get(LEASES, "toposched", "toposched-system")


def test_replace_with_a_stale_resource_version_is_a_conflict(kube_api: RestKubeApi) -> None:
    first = kube_api.create(LEASES, lease("toposched", "replica-a"))
    kube_api.replace(LEASES, {**first, "spec": {"holderIdentity": "replica-b"}})

    with pytest.raises(ApiConflictError, match="replace leases/toposched"):
        kube_api.replace(LEASES, {**first, "spec": {"holderIdentity": "replica-c"}})


def test_create_of_an_existing_object_is_a_conflict(kube_api: RestKubeApi) -> None:
    kube_api.create(LEASES, lease("toposched", "replica-a"))

    with pytest.raises(ApiConflictError, match="already exists"):
        kube_api.create(LEASES, lease("toposched", "replica-b"))


def test_strategic_patch_removes_the_gate_and_sets_the_node_selector(
    kube_test_server: KubeTestServer, kube_api: RestKubeApi
) -> None:
    kube_test_server.add_pod("worker-0", gates=(GATE, "other.io/gate"))
    patch = {
        "spec": {"nodeSelector": {"rack": "r1"}, "schedulingGates": [{"$patch": "delete", "name": GATE}]}
    }

    pod = kube_api.patch(PODS, "worker-0", patch, "default", patch_type=PatchType.STRATEGIC)

    assert pod["spec"]["nodeSelector"] == {"rack": "r1"}
    assert pod["spec"]["schedulingGates"] == [{"name": "other.io/gate"}]
    assert kube_test_server.calls[-1].content_type == PatchType.STRATEGIC.value


def test_json_patch_removes_the_gate_and_sets_the_node_selector(
    kube_test_server: KubeTestServer, kube_api: RestKubeApi
) -> None:
    kube_test_server.add_pod("worker-0")
    patch = [
        {"op": "test", "path": "/spec/schedulingGates/0/name", "value": GATE},
        {"op": "remove", "path": "/spec/schedulingGates/0"},
        {"op": "add", "path": "/spec/nodeSelector", "value": {"rack": "r1"}},
    ]

    pod = kube_api.patch(PODS, "worker-0", patch, "default", patch_type=PatchType.JSON)

    assert pod["spec"]["nodeSelector"] == {"rack": "r1"}
    assert "schedulingGates" not in pod["spec"]
    assert kube_test_server.calls[-1].content_type == PatchType.JSON.value


def test_merge_patch_records_an_annotation(kube_test_server: KubeTestServer, kube_api: RestKubeApi) -> None:
    kube_test_server.add_pod("worker-0", annotations={"keep": "me"})

    pod = kube_api.patch(
        PODS, "worker-0", {"metadata": {"annotations": {"toposched.io/domain": "r1"}}}, "default"
    )

    assert pod["metadata"]["annotations"] == {"keep": "me", "toposched.io/domain": "r1"}
    assert kube_test_server.calls[-1].content_type == PatchType.MERGE.value


def test_a_node_selector_on_an_ungated_pod_is_refused_as_by_the_api_server(
    kube_test_server: KubeTestServer, kube_api: RestKubeApi
) -> None:
    kube_test_server.add_pod("worker-0", gates=())

    with pytest.raises(KubeApiError, match="nodeSelector") as error:
        kube_api.patch(PODS, "worker-0", {"spec": {"nodeSelector": {"rack": "r1"}}}, "default")

    assert error.value.status == 422


def test_namespaced_custom_objects_are_created_in_their_namespace(
    kube_test_server: KubeTestServer, kube_api: RestKubeApi
) -> None:
    group = {"metadata": {"name": "gang", "namespace": "team-a"}, "spec": {"minMember": 4}}

    kube_api.create(KAI_PODGROUPS, group)

    assert kube_test_server.calls[-1] == Call("create", "scheduling.run.ai", "podgroups", "team-a")
    assert kube_test_server.object(KAI_PODGROUPS, "gang", "team-a")["spec"] == {"minMember": 4}


def test_a_server_error_names_the_call_and_keeps_the_status(
    kube_test_server: KubeTestServer, kube_api: RestKubeApi
) -> None:
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


def test_connect_reads_a_kubeconfig(kube_test_server: KubeTestServer, tmp_path: Path) -> None:
    kubeconfig = tmp_path / "config"
    kubeconfig.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "test", "cluster": {"server": kube_test_server.url}}],
                "users": [{"name": "test", "user": {"token": "secret-token"}}],
                "contexts": [{"name": "test", "context": {"cluster": "test", "user": "test"}}],
                "current-context": "test",
            }
        )
    )
    kube_test_server.add_node("n1", {})

    api = connect(str(kubeconfig))

    assert [n["metadata"]["name"] for n in api.list(NODES).items] == ["n1"]
    assert kube_test_server.authorizations == ["Bearer secret-token"]


def test_connect_without_a_kubeconfig_outside_a_cluster_says_what_to_pass(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)

    with pytest.raises(ToposchedError, match=r"in-cluster service account.*--kubeconfig"):
        connect(None)


def test_connect_with_a_missing_kubeconfig_names_it(tmp_path: Path) -> None:
    with pytest.raises(ToposchedError, match="missing-config"):
        connect(str(tmp_path / "missing-config"))


def test_a_kind_the_cluster_does_not_serve_is_not_found() -> None:
    server = KubeTestServer(resources=(NODES, PODS)).start()
    api = RestKubeApi(Configuration(host=server.url))
    try:
        with pytest.raises(ApiNotFoundError, match="list clustertopologies"):
            api.list(GROVE_CLUSTER_TOPOLOGIES)
    finally:
        api.close()
        server.stop()
