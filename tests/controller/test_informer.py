"""The informer cache: list, watch from the listing's version, resume from bookmarks, relist on 410.

Listing, watching and the relist after the real server's 410 run on the real API server, in the
test's namespace. On the in-memory double (``FakeKubeApi``): a bookmark at a moment of the test's
choosing (the real server sends them best-effort, before a watch times out), a stream that breaks
half way, and which of an object's changes are handed over (the informer's own bookkeeping).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.controller.cluster import node
from tests.controller.fake_kube import FakeKubeApi
from tests.controller.real_cluster import RealCluster

from toposched.controller.informer import ChangeType, Informer
from toposched.controller.kubeapi import KAI_PODGROUPS, LEASES, NODES, KubeApiError, Resource, WatchEvent


def lease(cluster: RealCluster, name: str) -> None:
    cluster.create(LEASES, {"metadata": {"name": name}, "spec": {"holderIdentity": "a"}})


def test_the_first_pump_lists_and_later_pumps_watch_from_where_it_left(real_cluster: RealCluster) -> None:
    lease(real_cluster, "l0")
    informer = Informer(real_cluster.admin, LEASES, real_cluster.namespace, timeout_seconds=1)
    first = informer.pump()
    listed = informer.resource_version
    lease(real_cluster, "l1")
    real_cluster.admin.delete(LEASES, "l0", real_cluster.namespace)
    second = informer.pump()
    third = informer.pump()  # nothing new: events are not handed out twice

    assert [(c.type, c.key) for c in first] == [(ChangeType.UPSERT, f"{real_cluster.namespace}/l0")]
    assert (
        informer.objects[f"{real_cluster.namespace}/l1"]["kind"] == "Lease"
    )  # list items get their kind back
    assert [(c.type, c.key.split("/")[1]) for c in second] == [
        (ChangeType.UPSERT, "l1"),
        (ChangeType.DELETE, "l0"),
    ]
    assert set(informer.objects) == {f"{real_cluster.namespace}/l1"}
    assert third == []
    assert int(informer.resource_version or 0) > int(listed or 0) and informer.relists == 0


def test_a_bookmark_moves_the_resume_point_without_changing_the_cache() -> None:
    api = FakeKubeApi()
    informer = Informer(api, NODES)
    informer.pump()
    api.bookmark(NODES)
    assert informer.pump() == []
    assert informer.resource_version == str(api.version)


def test_an_expired_watch_relists_and_reports_what_changed_meanwhile(real_cluster: RealCluster) -> None:
    api, namespace = real_cluster.admin, real_cluster.namespace
    for name in ("g0", "g1"):
        api.create(KAI_PODGROUPS, podgroup(namespace, name))
    informer = Informer(api, KAI_PODGROUPS, namespace, timeout_seconds=1)
    informer.pump()
    api.delete(KAI_PODGROUPS, "g0", namespace)
    api.create(KAI_PODGROUPS, podgroup(namespace, "g2"))
    informer.resource_version = "1"  # its resume point fell out of the server's window (410)

    changes = informer.pump()

    assert informer.relists == 1
    assert {(c.type, c.key.split("/")[1]) for c in changes} == {
        (ChangeType.DELETE, "g0"),
        (ChangeType.UPSERT, "g2"),
    }
    assert {key.split("/")[1] for key in informer.objects} == {"g1", "g2"}


def podgroup(namespace: str, name: str) -> dict[str, object]:
    return {"metadata": {"name": name, "namespace": namespace}, "spec": {"minMember": 1, "queue": "q"}}


class BreakingWatch(FakeKubeApi):
    """The next watch delivers its events, then the stream breaks."""

    def __init__(self) -> None:
        super().__init__()
        self.breaking = False

    def watch(
        self,
        resource: Resource,
        resource_version: str,
        namespace: str | None = None,
        *,
        timeout_seconds: int = 300,
    ) -> Iterator[WatchEvent]:
        events = super().watch(resource, resource_version, namespace, timeout_seconds=timeout_seconds)
        if not self.breaking:
            return events
        self.breaking = False
        return self._broken(events)

    @staticmethod
    def _broken(events: Iterator[WatchEvent]) -> Iterator[WatchEvent]:
        yield from events
        raise KubeApiError(500, "the connection was reset")


def test_what_a_broken_watch_delivered_stays_pending_for_the_next_call() -> None:
    api = BreakingWatch()
    informer = Informer(api, NODES)
    informer.pump()
    api.put(NODES, node(0))
    api.breaking = True
    with pytest.raises(KubeApiError):
        informer.pump()
    assert informer.resource_version == str(api.version)  # the resume point moved on ...
    assert [(c.type, c.key) for c in informer.pump()] == [(ChangeType.UPSERT, "n0")]  # ... and it is told
    assert "n0" in informer.objects


def test_pending_changes_keep_each_object_s_latest_only() -> None:
    api = FakeKubeApi()
    informer = Informer(api, NODES)
    informer.pump()
    api.put(NODES, node(0))
    api.put(NODES, node(1))
    api.remove(NODES, "n0")
    informer.fetch()
    api.put(NODES, node(1, ready=False))
    informer.fetch()
    assert [(c.type, c.key) for c in informer.take()] == [
        (ChangeType.DELETE, "n0"),
        (ChangeType.UPSERT, "n1"),
    ]
    assert informer.take() == []
