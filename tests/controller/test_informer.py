"""The informer cache: list, watch from the listing's version, resume from bookmarks, relist on 410."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.controller.cluster import node
from tests.controller.fake_kube import FakeKubeApi

from toposched.controller.informer import ChangeType, Informer
from toposched.controller.kubeapi import NODES, KubeApiError, Resource, WatchEvent


def test_the_first_pump_lists_and_later_pumps_watch_from_where_it_left() -> None:
    api = FakeKubeApi()
    api.put(NODES, node(0))
    informer = Informer(api, NODES)
    first = informer.pump()
    assert [(c.type, c.key) for c in first] == [(ChangeType.UPSERT, "n0")]
    assert informer.objects["n0"]["kind"] == "Node"  # list items get their kind back
    api.put(NODES, node(1))
    api.remove(NODES, "n0")
    second = informer.pump()
    assert [(c.type, c.key) for c in second] == [(ChangeType.UPSERT, "n1"), (ChangeType.DELETE, "n0")]
    assert set(informer.objects) == {"n1"}
    assert informer.pump() == []  # nothing new: events are not handed out twice
    assert [verb for verb, _ in api.calls] == ["list", "watch", "watch"]


def test_a_bookmark_moves_the_resume_point_without_changing_the_cache() -> None:
    api = FakeKubeApi()
    informer = Informer(api, NODES)
    informer.pump()
    api.bookmark(NODES)
    assert informer.pump() == []
    assert informer.resource_version == str(api.version)


def test_an_expired_watch_relists_and_reports_what_changed_meanwhile() -> None:
    api = FakeKubeApi()
    api.put(NODES, node(0))
    api.put(NODES, node(1))
    informer = Informer(api, NODES)
    informer.pump()
    api.remove(NODES, "n0")
    api.put(NODES, node(2))
    api.expire_watch(NODES)
    changes = informer.pump()
    assert informer.relists == 1
    assert {(c.type, c.key) for c in changes} == {(ChangeType.DELETE, "n0"), (ChangeType.UPSERT, "n2")}
    assert set(informer.objects) == {"n1", "n2"}
    assert [verb for verb, _ in api.calls] == ["list", "watch", "list"]


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
    assert "n0" in informer.objects  # the cache and the resume point moved on ...
    assert [(c.type, c.key) for c in informer.pump()] == [(ChangeType.UPSERT, "n0")]  # ... and it is told


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
