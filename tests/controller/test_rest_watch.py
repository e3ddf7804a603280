"""RestKubeApi.watch over a chunked HTTP stream: events after the listed version, bookmarks, and
410 Gone (as an HTTP status and as an in-stream ERROR) raised as the signal to relist."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from tests.controller.kube_test_server import Call, KubeTestServer

from toposched.controller.kubeapi import NODES, PODS, EventType, WatchEvent, WatchExpiredError
from toposched.controller.rest import RestKubeApi


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


def test_watch_asks_for_bookmarks_from_the_listed_version(
    kube_test_server: KubeTestServer, kube_api: RestKubeApi
) -> None:
    kube_test_server.add_node("old", {})
    listing = kube_api.list(NODES)
    kube_test_server.add_node("n1", {"rack": "r1"})
    kube_test_server.bookmark(NODES)

    events = until(kube_api.watch(NODES, listing.resource_version, timeout_seconds=30), is_bookmark)

    assert [(e.type, e.object["metadata"].get("name")) for e in events] == [
        (EventType.ADDED, "n1"),
        (EventType.BOOKMARK, None),
    ]
    assert events[0].object["kind"] == "Node"
    assert events[-1].object["metadata"]["resourceVersion"] == str(kube_test_server.store.resource_version)
    assert kube_test_server.calls[-1] == Call("watch", "", "nodes", None)


def test_watch_sees_changes_made_while_it_streams(
    kube_test_server: KubeTestServer, kube_api: RestKubeApi
) -> None:
    kube_test_server.add_pod("worker-0")
    listing = kube_api.list(PODS)
    stream = kube_api.watch(PODS, listing.resource_version, "default", timeout_seconds=30)
    kube_test_server.add_pod("elsewhere", namespace="other")
    kube_api.patch(PODS, "worker-0", {"metadata": {"labels": {"seen": "yes"}}}, "default")
    kube_api.delete(PODS, "worker-0", "default")
    kube_test_server.bookmark(PODS)

    events = until(stream, is_bookmark)

    assert [(e.type, e.object["metadata"].get("name")) for e in events] == [
        (EventType.MODIFIED, "worker-0"),
        (EventType.DELETED, "worker-0"),
        (EventType.BOOKMARK, None),
    ]
    assert events[0].object["metadata"]["labels"] == {"seen": "yes"}


def test_watch_ends_when_the_server_closes_it_at_its_timeout(
    kube_test_server: KubeTestServer, kube_api: RestKubeApi
) -> None:
    listing = kube_api.list(NODES)

    assert list(kube_api.watch(NODES, listing.resource_version, timeout_seconds=1)) == []


def test_an_expired_version_in_the_stream_raises_watch_expired(
    kube_test_server: KubeTestServer, kube_api: RestKubeApi
) -> None:
    listing = kube_api.list(PODS)
    kube_test_server.add_pod("worker-0")
    stream = kube_api.watch(PODS, listing.resource_version, timeout_seconds=30)
    first = next(stream)
    kube_test_server.expire(PODS)

    with pytest.raises(WatchExpiredError, match="watch pods from resourceVersion") as error:
        next(stream)

    assert first.type is EventType.ADDED
    assert error.value.status == 410


def test_watching_from_a_compacted_version_raises_watch_expired_and_a_relist_recovers(
    kube_test_server: KubeTestServer, kube_api: RestKubeApi
) -> None:
    stale = kube_api.list(NODES).resource_version
    kube_test_server.add_node("n1", {})
    kube_test_server.expire(NODES)

    with pytest.raises(WatchExpiredError):
        next(kube_api.watch(NODES, stale, timeout_seconds=30))
    relisted = kube_api.list(NODES)
    kube_test_server.add_node("n2", {})
    kube_test_server.bookmark(NODES)
    events = until(kube_api.watch(NODES, relisted.resource_version, timeout_seconds=30), is_bookmark)

    assert [i["metadata"]["name"] for i in relisted.items] == ["n1"]
    assert [e.object["metadata"].get("name") for e in events] == ["n2", None]


def test_an_http_410_raises_watch_expired(kube_test_server: KubeTestServer, kube_api: RestKubeApi) -> None:
    listing = kube_api.list(PODS)
    kube_test_server.fail_next("watch", PODS, 410)

    with pytest.raises(WatchExpiredError, match=r"^410: watch pods"):
        next(kube_api.watch(PODS, listing.resource_version, timeout_seconds=30))


def test_stopping_a_watch_early_leaves_the_client_usable(
    kube_test_server: KubeTestServer, kube_api: RestKubeApi
) -> None:
    listing = kube_api.list(NODES)
    kube_test_server.add_node("n1", {})
    stream = kube_api.watch(NODES, listing.resource_version, timeout_seconds=30)
    next(stream)

    stream.close()

    assert kube_api.get(NODES, "n1")["metadata"]["name"] == "n1"


def test_changes_by_other_clients_reach_the_watch(
    kube_test_server: KubeTestServer, kube_api: RestKubeApi
) -> None:
    kube_test_server.add_node("n1", {"rack": "r1"})
    kube_test_server.add_node("n2", {"rack": "r1"})
    listing = kube_api.list(NODES)

    def not_ready(node: dict[str, Any]) -> dict[str, Any]:
        node["status"]["conditions"] = [{"type": "Ready", "status": "False"}]
        return node

    kube_test_server.change(NODES, "n1", not_ready)
    kube_test_server.remove(NODES, "n2")
    kube_test_server.bookmark(NODES)
    events = until(kube_api.watch(NODES, listing.resource_version, timeout_seconds=30), is_bookmark)

    assert [(e.type, e.object["metadata"].get("name")) for e in events] == [
        (EventType.MODIFIED, "n1"),
        (EventType.DELETED, "n2"),
        (EventType.BOOKMARK, None),
    ]
    assert events[0].object["status"]["conditions"] == [{"type": "Ready", "status": "False"}]
