"""An informer-style cache of one resource over ``KubeApi``: list, then watch from the listing's
resourceVersion; resume from the last event's (or BOOKMARK's) resourceVersion; list again when
the watch expires (410).

``pump`` runs one watch call to its end and returns what changed, so the controller's tests drive
it step by step without threads; the controller's loop simply pumps again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from toposched.controller.kubeapi import (
    EventType,
    KubeApi,
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
    """The cached objects of one resource (optionally one namespace), kept current by ``pump``."""

    def __init__(
        self, api: KubeApi, resource: Resource, namespace: str | None = None, *, timeout_seconds: int = 300
    ) -> None:
        self.api = api
        self.resource = resource
        self.namespace = namespace
        self.timeout_seconds = timeout_seconds
        self.objects: dict[str, Object] = {}
        self.resource_version: str | None = None  # None: not listed yet (or the watch expired)
        self.relists = 0  # how many times a 410 forced a new listing

    @property
    def synced(self) -> bool:
        return self.resource_version is not None

    def relist(self) -> list[Change]:
        """List everything and report the difference with the cache (deletions missed while the
        watch was down included)."""
        listing = self.api.list(self.resource, self.namespace)
        fresh = {object_key(obj): typed(self.resource, obj) for obj in listing.items}
        changes = [
            Change(ChangeType.DELETE, self.resource, key, old)
            for key, old in sorted(self.objects.items())
            if key not in fresh
        ]
        for key, obj in fresh.items():
            old = self.objects.get(key)
            if old is None or _resource_version(old) != _resource_version(obj) or old != obj:
                changes.append(Change(ChangeType.UPSERT, self.resource, key, obj))
        self.objects = fresh
        self.resource_version = listing.resource_version
        return changes

    def pump(self) -> list[Change]:
        """List when needed, then consume one watch call; on 410 list again (the next pump
        watches from the new listing)."""
        if self.resource_version is None:
            return self.relist()
        changes: list[Change] = []
        try:
            for event in self.api.watch(
                self.resource, self.resource_version, self.namespace, timeout_seconds=self.timeout_seconds
            ):
                change = self.apply(event)
                if change is not None:
                    changes.append(change)
        except WatchExpiredError:
            self.relists += 1
            self.resource_version = None
            changes.extend(self.relist())
        return changes

    def apply(self, event: WatchEvent) -> Change | None:
        """Fold one watch event into the cache; bookmarks only move the resume point."""
        version = _resource_version(event.object)
        if version:
            self.resource_version = version
        if event.type is EventType.BOOKMARK:
            return None
        obj = typed(self.resource, event.object)
        key = object_key(obj)
        if event.type is EventType.DELETED:
            self.objects.pop(key, None)
            return Change(ChangeType.DELETE, self.resource, key, obj)
        self.objects[key] = obj
        return Change(ChangeType.UPSERT, self.resource, key, obj)
