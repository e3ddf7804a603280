"""RestKubeApi.watch: events after the listed version, the end at ``timeoutSeconds``, and an
expired resourceVersion raised as the signal to relist.

On the real API server, in the test's namespace. Its watch cache reports a resourceVersion older
than the cache's window as an ``ERROR`` event (410 Expired) in the stream; a custom resource's
cache starts when its CRD is installed, so resourceVersion 1 is always too old for one. On the
test double, what this server does not do on demand: answer a watch with an HTTP 410 (a server
watching etcd directly does), and send a bookmark at a moment of the test's choosing (the watch
cache sends one shortly before a watch times out, when its resourceVersion moved on, and not
reliably within a few seconds), so the request's asking for bookmarks is checked there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from tests.controller.kube_test_server import Call, KubeTestServer
from tests.controller.real_cluster import RealCluster

from toposched.controller.kubeapi import (
    KAI_PODGROUPS,
    LEASES,
    NODES,
    PODS,
    EventType,
    WatchEvent,
    WatchExpiredError,
)
from toposched.controller.rest import RestKubeApi

TOO_OLD = "1"  # older than any custom resource's watch cache


def until(events: Iterator[WatchEvent], last: Callable[[WatchEvent], bool]) -> list[WatchEvent]:
    """Events up to and including the first for which ``last`` holds."""
    seen = []
    for event in events:
        seen.append(event)
        if last(event):
            return seen
    return seen


def is_bookmark(event: WatchEvent) -> bool:
    return event.type is EventType.BOOKMARK


def lease(cluster: RealCluster, name: str) -> None:
    cluster.create(LEASES, {"metadata": {"name": name}, "spec": {"holderIdentity": "a"}})


def named(events: list[WatchEvent]) -> list[tuple[EventType, str | None]]:
    return [(e.type, e.object["metadata"].get("name")) for e in events]


def test_watch_delivers_what_changed_after_the_listed_version_in_its_namespace_only(
    real_cluster: RealCluster,
) -> None:
    api, namespace = real_cluster.admin, real_cluster.namespace
    lease(real_cluster, "l0")
    listing = api.list(LEASES, namespace)
    lease(real_cluster, "l1")
    stream = api.watch(LEASES, listing.resource_version, namespace, timeout_seconds=5)
    api.create(LEASES, {"metadata": {"name": f"{real_cluster.run}-elsewhere", "namespace": "default"}})
    api.patch(LEASES, "l0", {"metadata": {"labels": {"seen": "yes"}}}, namespace)
    api.delete(LEASES, "l0", namespace)
    api.delete(LEASES, f"{real_cluster.run}-elsewhere", "default")

    events = until(stream, lambda e: e.type is EventType.DELETED)
    stream.close()

    assert named(events) == [(EventType.ADDED, "l1"), (EventType.MODIFIED, "l0"), (EventType.DELETED, "l0")]
    assert [e.object["kind"] for e in events] == ["Lease"] * 3
    assert events[1].object["metadata"]["labels"] == {"seen": "yes"}


def test_watch_ends_when_the_server_closes_it_at_its_timeout(real_cluster: RealCluster) -> None:
    listing = real_cluster.admin.list(LEASES, real_cluster.namespace)

    events = list(
        real_cluster.admin.watch(LEASES, listing.resource_version, real_cluster.namespace, timeout_seconds=1)
    )

    assert events == []


def test_watching_from_an_expired_version_raises_watch_expired_and_a_relist_recovers(
    real_cluster: RealCluster,
) -> None:
    api, namespace = real_cluster.admin, real_cluster.namespace
    group = {"metadata": {"name": "g1", "namespace": namespace}, "spec": {"minMember": 1, "queue": "q"}}
    api.create(KAI_PODGROUPS, group)

    with pytest.raises(WatchExpiredError, match="watch podgroups from resourceVersion 1: too old") as error:
        next(api.watch(KAI_PODGROUPS, TOO_OLD, namespace, timeout_seconds=5))
    relisted = api.list(KAI_PODGROUPS, namespace)
    api.create(KAI_PODGROUPS, {**group, "metadata": {**group["metadata"], "name": "g2"}})
    stream = api.watch(KAI_PODGROUPS, relisted.resource_version, namespace, timeout_seconds=5)
    events = [next(stream)]
    stream.close()

    assert error.value.status == 410
    assert [i["metadata"]["name"] for i in relisted.items] == ["g1"]
    assert named(events) == [(EventType.ADDED, "g2")]


def test_stopping_a_watch_early_leaves_the_client_usable(real_cluster: RealCluster) -> None:
    api, namespace = real_cluster.admin, real_cluster.namespace
    listing = api.list(LEASES, namespace)
    lease(real_cluster, "n1")
    stream = api.watch(LEASES, listing.resource_version, namespace, timeout_seconds=30)
    next(stream)

    stream.close()

    assert api.get(LEASES, "n1", namespace)["metadata"]["name"] == "n1"


def test_an_http_410_raises_watch_expired(kube_test_server: KubeTestServer, kube_api: RestKubeApi) -> None:
    """On the double: the real server (its watch cache on) reports expiry in the stream only."""
    listing = kube_api.list(PODS)
    kube_test_server.fail_next("watch", PODS, 410)

    with pytest.raises(WatchExpiredError, match=r"^410: watch pods"):
        next(kube_api.watch(PODS, listing.resource_version, timeout_seconds=30))


def test_watch_asks_for_bookmarks_from_the_listed_version(
    kube_test_server: KubeTestServer, kube_api: RestKubeApi
) -> None:
    """On the double: see the module docstring."""
    kube_test_server.add_node("old", {})
    listing = kube_api.list(NODES)
    kube_test_server.add_node("n1", {"rack": "r1"})
    kube_test_server.bookmark(NODES)

    events = until(kube_api.watch(NODES, listing.resource_version, timeout_seconds=30), is_bookmark)

    assert named(events) == [(EventType.ADDED, "n1"), (EventType.BOOKMARK, None)]
    assert events[-1].object["metadata"]["resourceVersion"] == str(kube_test_server.store.resource_version)
    assert kube_test_server.calls[-1] == Call("watch", "", "nodes", None)
