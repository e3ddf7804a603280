"""RestKubeApi against a real API server: the tests' control plane (``real_apiserver``).

Reads nodes (read-only), then works in a throwaway namespace it creates and deletes: a Lease is
created, replaced, conflicted on, applied and deleted, and a watch sees the change.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from tests.realkube.control_plane import ControlPlane

from toposched.controller.kubeapi import LEASES, NODES, ApiConflictError, EventType, Resource
from toposched.controller.rest import RestKubeApi, connect

NAMESPACES = Resource("", "v1", "namespaces", "Namespace", namespaced=False)


@pytest.fixture
def api(real_apiserver: ControlPlane) -> Iterator[RestKubeApi]:
    client = connect(str(real_apiserver.kubeconfig))
    yield client
    client.close()


@pytest.fixture
def namespace(api: RestKubeApi) -> Iterator[str]:
    name = f"toposched-test-{uuid.uuid4().hex[:8]}"
    api.create(NAMESPACES, {"metadata": {"name": name, "labels": {"toposched.io/test": "throwaway"}}})
    yield name
    api.delete(NAMESPACES, name)


def test_nodes_list_and_watch_read_only(api: RestKubeApi) -> None:
    listing = api.list(NODES)

    events = list(api.watch(NODES, listing.resource_version, timeout_seconds=2))

    assert listing.resource_version
    assert all(item["kind"] == "Node" for item in listing.items)
    assert all(event.type in set(EventType) for event in events)


def test_a_lease_round_trip_in_a_throwaway_namespace(api: RestKubeApi, namespace: str) -> None:
    lease = {"metadata": {"name": "toposched-test", "namespace": namespace}, "spec": {"holderIdentity": "a"}}
    created = api.create(LEASES, lease)
    watch_from = created["metadata"]["resourceVersion"]
    replaced = api.replace(LEASES, {**created, "spec": {"holderIdentity": "b"}})
    with pytest.raises(ApiConflictError):
        api.replace(LEASES, {**created, "spec": {"holderIdentity": "c"}})
    applied = api.apply(
        LEASES,
        {
            "metadata": {"name": "toposched-test", "namespace": namespace},
            "spec": {"leaseDurationSeconds": 15},
        },
        field_manager="toposched-test",
    )
    stream = api.watch(LEASES, watch_from, namespace, timeout_seconds=5)
    first = next(stream)
    stream.close()
    api.delete(LEASES, "toposched-test", namespace)

    assert replaced["spec"]["holderIdentity"] == "b"
    assert applied["spec"] == {"holderIdentity": "b", "leaseDurationSeconds": 15}
    assert (first.type, first.object["spec"]["holderIdentity"]) == (EventType.MODIFIED, "b")
