"""An informer-style cache of one resource over ``KubeApi``: list, then watch from the listing's
resourceVersion; resume from the last event's (or BOOKMARK's) resourceVersion; list again when
the watch expires (410).

Fetching and reading are apart, so the fetching can run on a thread of its own while the cache is
read by another: ``fetch`` runs one watch call (or listing) and queues what it got, delivery by
delivery, so what a call delivered before it broke is not lost, and calls ``on_delivery`` after
each; ``take`` folds the queued deliveries into the cache and hands over the pending changes
(the latest change per object: a kind whose calls keep failing leaves at most one per object
waiting). ``pump`` is both, for callers that act at once, and lets the tests drive an informer
step by step without threads.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from toposched.controller.kubeapi import (
    EventType,
    KubeApi,
    Listing,
    Object,
    Resource,
    WatchEvent,
    WatchExpiredError,
)


class ChangeType(StrEnum):
    UPSERT = "upsert"
    DELETE = "delete"


@dataclass(frozen=True, slots=True)
class Change:
    """One object of the cache changed: its new state (UPSERT) or its last known one (DELETE)."""

    type: ChangeType
    resource: Resource
    key: str
    object: Object


def object_key(obj: Mapping[str, Any]) -> str:
    """``namespace/name`` for namespaced objects, ``name`` otherwise (as client-go keys them)."""
    metadata = obj.get("metadata") or {}
    name = str(metadata.get("name", ""))
    namespace = metadata.get("namespace")
    return f"{namespace}/{name}" if namespace else name


def typed(resource: Resource, obj: Object) -> Object:
    """The object with its ``kind`` and ``apiVersion`` (list answers leave them out of items)."""
    if obj.get("kind") and obj.get("apiVersion"):
        return obj
    return {"apiVersion": resource.api_version, "kind": resource.kind, **obj}


def _resource_version(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("resourceVersion", ""))


class Informer:
    """The cached objects of one resource (optionally one namespace), kept current by ``fetch``
    (one watch call or listing: its deliveries queued) and ``take`` (the queue folded in)."""

    def __init__(
        self, api: KubeApi, resource: Resource, namespace: str | None = None, *, timeout_seconds: int = 300
    ) -> None:
        self.api = api
        self.resource = resource
        self.namespace = namespace
        self.timeout_seconds = timeout_seconds
        self.objects: dict[str, Object] = {}
        self.resource_version: str | None = None  # where ``fetch`` resumes; None: list first
        self.relists = 0  # how many times a 410 forced a new listing
        self.on_delivery: Callable[[], None] = lambda: None  # called after each delivery queued
        self._listed = False  # a listing has been folded into ``objects``
        self._queue: list[Listing | WatchEvent] = []  # fetched, not folded in yet
        self._lock = threading.Lock()  # guards ``_queue`` only
        self._pending: dict[str, Change] = {}  # by key, in the order of each object's latest change

    @property
    def synced(self) -> bool:
        return self._listed

    def pump(self) -> list[Change]:
        """``fetch``, then ``take``."""
        self.fetch()
        return self.take()

    def take(self) -> list[Change]:
        """Fold what was fetched into the cache; the pending changes, now no longer pending."""
        with self._lock:
            queued, self._queue = self._queue, []
        for delivery in queued:
            if isinstance(delivery, Listing):
                self._fold_listing(delivery)
            else:
                self.apply(delivery)
        changes, self._pending = list(self._pending.values()), {}
        return changes

    def fetch(self) -> None:
        """List when needed, then consume one watch call; on 410 list again (the next call
        watches from the new listing). What it got waits for ``take``."""
        if self.resource_version is None:
            self.relist()
            return
        try:
            for event in self.api.watch(
                self.resource, self.resource_version, self.namespace, timeout_seconds=self.timeout_seconds
            ):
                version = _resource_version(event.object)
                if version:
                    self.resource_version = version
                self._deliver(event)
        except WatchExpiredError:
            self.relists += 1
            self.resource_version = None
            self.relist()

    def relist(self) -> None:
        """List everything; once taken, the difference with the cache becomes pending (deletions
        missed while the watch was down included)."""
        listing = self.api.list(self.resource, self.namespace)
        self.resource_version = listing.resource_version
        self._deliver(listing)

    def _deliver(self, delivery: Listing | WatchEvent) -> None:
        with self._lock:
            self._queue.append(delivery)
        self.on_delivery()

    def _fold_listing(self, listing: Listing) -> None:
        fresh = {object_key(obj): typed(self.resource, obj) for obj in listing.items}
        for key, gone in sorted(self.objects.items()):
            if key not in fresh:
                self._note(Change(ChangeType.DELETE, self.resource, key, gone))
        for key, obj in fresh.items():
            old = self.objects.get(key)
            if old is None or _resource_version(old) != _resource_version(obj) or old != obj:
                self._note(Change(ChangeType.UPSERT, self.resource, key, obj))
        self.objects = fresh
        self._listed = True

    def _note(self, change: Change) -> None:
        self._pending.pop(change.key, None)  # the object's latest change goes last
        self._pending[change.key] = change

    def apply(self, event: WatchEvent) -> None:
        """Fold one watch event into the cache (its change pending); bookmarks change nothing."""
        if event.type is EventType.BOOKMARK:
            return
        obj = typed(self.resource, event.object)
        key = object_key(obj)
        if event.type is EventType.DELETED:
            self.objects.pop(key, None)
            change = Change(ChangeType.DELETE, self.resource, key, obj)
        else:
            self.objects[key] = obj
            change = Change(ChangeType.UPSERT, self.resource, key, obj)
        self._note(change)
