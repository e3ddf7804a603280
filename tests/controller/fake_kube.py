"""``FakeKubeApi``: a test double of ``KubeApi`` that keeps objects in memory.

For fast unit tests of the reconcilers' own logic (whole gangs, records, restarts, metrics,
memory over thousands of gangs) and of the error paths a real API server cannot be made to
produce on demand: a watch that breaks half way, a 410 or a conflict at a moment of the test's
choosing (``expire_watch``, ``conflicts``), a bookmark (``bookmark``), a partitioned or slow
replica. It is not a Kubernetes implementation: what the API server does (validation, RBAC,
server-side apply, strategic merge, watches, conflicts, graceful deletion) is tested on the real
one (``real_apiserver``, the ``test_real_*`` and ``test_rest_*`` files).

Every write bumps one resourceVersion counter and queues a watch event; ``watch`` hands out the
queued events after the given version (once: the stream then ends, as a watch timing out would).
A patch carrying ``metadata.resourceVersion`` and a delete with preconditions are conditional;
writes take and ignore a ``timeout`` (they are instant); a delete removes the object at once
(the API server keeps a bound pod until its kubelet confirms). Strategic merge patches are applied
for the shapes the controller sends (``nodeSelector`` merged key by key, ``schedulingGates``
entries deleted by ``$patch: delete``, annotations merged, ``null`` deleting a key). An object
stored without a ``metadata.uid`` gets a new one.
"""

from __future__ import annotations

import copy
import functools
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

from toposched.controller.kubeapi import (
    ApiConflictError,
    ApiNotFoundError,
    EventType,
    Listing,
    Object,
    PatchType,
    Preconditions,
    Resource,
    WatchEvent,
    WatchExpiredError,
)

F = TypeVar("F", bound=Callable[..., Any])


def _locked(method: F) -> F:
    """One call at a time, as the controller's threads (watches, lease renewals) and the test's
    own call the double side by side: each call is atomic, as on a server."""

    @functools.wraps(method)
    def locked(self: FakeKubeApi, *args: Any, **kwargs: Any) -> Any:
        with self.lock:
            return method(self, *args, **kwargs)

    return locked  # type: ignore[return-value]


def _key(resource: Resource, name: str, namespace: str | None) -> tuple[str, str, str]:
    return (resource.plural, (namespace or "") if resource.namespaced else "", name)


def _merge(target: dict[str, Any], patch: Mapping[str, Any]) -> None:
    for key, value in patch.items():
        if value is None:
            target.pop(key, None)
        elif key == "schedulingGates" and isinstance(value, list):
            removed = {g["name"] for g in value if g.get("$patch") == "delete"}
            added = [g for g in value if g.get("$patch") != "delete"]
            kept = [g for g in target.get(key) or [] if g.get("name") not in removed]
            target[key] = kept + [g for g in added if g not in kept]
            if not target[key]:
                del target[key]
        elif isinstance(value, Mapping) and isinstance(target.get(key), dict):
            _merge(target[key], value)
        else:
            target[key] = copy.deepcopy(value)


class FakeKubeApi:
    """In-memory objects with resourceVersions and a replayable event log per resource."""

    def __init__(self) -> None:
        self.objects: dict[tuple[str, str, str], Object] = {}
        self.events: dict[str, list[tuple[int, WatchEvent]]] = {}
        self.version = 0
        self.expired: set[str] = set()  # plurals whose next watch answers 410
        self.conflicts = 0  # how many of the next writes answer 409
        self.calls: list[tuple[str, str]] = []  # (verb, plural), in order
        self.lock = threading.RLock()

    # -- test controls -------------------------------------------------------------------------
    @_locked
    def expire_watch(self, resource: Resource) -> None:
        self.expired.add(resource.plural)

    @_locked
    def bookmark(self, resource: Resource) -> None:
        self.version += 1
        event = WatchEvent(EventType.BOOKMARK, {"metadata": {"resourceVersion": str(self.version)}})
        self.events.setdefault(resource.plural, []).append((self.version, event))

    @_locked
    def put(self, resource: Resource, obj: Mapping[str, Any]) -> Object:
        """Create or overwrite an object (as another actor in the cluster would)."""
        metadata = obj.get("metadata") or {}
        key = _key(resource, str(metadata["name"]), metadata.get("namespace"))
        kind = EventType.MODIFIED if key in self.objects else EventType.ADDED
        return self._store(resource, key, copy.deepcopy(dict(obj)), kind)

    @_locked
    def remove(self, resource: Resource, name: str, namespace: str | None = None) -> None:
        key = _key(resource, name, namespace)
        obj = self.objects.pop(key)
        self.version += 1
        obj["metadata"]["resourceVersion"] = str(self.version)
        self.events.setdefault(resource.plural, []).append((self.version, WatchEvent(EventType.DELETED, obj)))

    @_locked
    def obj(self, resource: Resource, name: str, namespace: str | None = None) -> Object:
        return self.objects[_key(resource, name, namespace)]

    # -- KubeApi -------------------------------------------------------------------------------
    @_locked
    def list(
        self, resource: Resource, namespace: str | None = None, *, label_selector: str | None = None
    ) -> Listing:
        self.calls.append(("list", resource.plural))
        items = tuple(
            copy.deepcopy(o)
            for (plural, ns, _), o in sorted(self.objects.items())
            if plural == resource.plural and (namespace is None or ns == namespace)
        )
        return Listing(items, str(self.version))

    @_locked
    def watch(
        self,
        resource: Resource,
        resource_version: str,
        namespace: str | None = None,
        *,
        timeout_seconds: int = 300,
    ) -> Iterator[WatchEvent]:
        self.calls.append(("watch", resource.plural))
        if resource.plural in self.expired:
            self.expired.discard(resource.plural)
            raise WatchExpiredError(410, "too old resource version")
        since = int(resource_version or 0)
        events = [e for v, e in self.events.get(resource.plural, []) if v > since]
        return iter([WatchEvent(e.type, copy.deepcopy(e.object)) for e in events])

    @_locked
    def get(self, resource: Resource, name: str, namespace: str | None = None) -> Object:
        self.calls.append(("get", resource.plural))
        found = self.objects.get(_key(resource, name, namespace))
        if found is None:
            raise ApiNotFoundError(404, f"{resource.plural} {name} not found")
        return copy.deepcopy(found)

    @_locked
    def create(self, resource: Resource, obj: Mapping[str, Any], *, timeout: float | None = None) -> Object:
        self.calls.append(("create", resource.plural))
        self._maybe_conflict()
        metadata = obj.get("metadata") or {}
        key = _key(resource, str(metadata["name"]), metadata.get("namespace"))
        if key in self.objects:
            raise ApiConflictError(409, f"{resource.plural} {metadata['name']} already exists")
        return self._store(resource, key, copy.deepcopy(dict(obj)), EventType.ADDED)

    @_locked
    def replace(self, resource: Resource, obj: Mapping[str, Any], *, timeout: float | None = None) -> Object:
        self.calls.append(("replace", resource.plural))
        self._maybe_conflict()
        metadata = obj.get("metadata") or {}
        key = _key(resource, str(metadata["name"]), metadata.get("namespace"))
        old = self.objects.get(key)
        if old is None:
            raise ApiNotFoundError(404, f"{resource.plural} {metadata['name']} not found")
        wanted = metadata.get("resourceVersion")
        if wanted is not None and wanted != old["metadata"]["resourceVersion"]:
            raise ApiConflictError(409, "the object has been modified")
        return self._store(resource, key, copy.deepcopy(dict(obj)), EventType.MODIFIED)

    @_locked
    def patch(
        self,
        resource: Resource,
        name: str,
        patch: Any,
        namespace: str | None = None,
        *,
        patch_type: PatchType = PatchType.MERGE,
        field_manager: str | None = None,
        timeout: float | None = None,
    ) -> Object:
        self.calls.append(("patch", resource.plural))
        self._maybe_conflict()
        key = _key(resource, name, namespace)
        old = self.objects.get(key)
        if old is None:
            raise ApiNotFoundError(404, f"{resource.plural} {name} not found")
        wanted = (patch.get("metadata") or {}).get("resourceVersion") if isinstance(patch, Mapping) else None
        if wanted is not None and wanted != old["metadata"]["resourceVersion"]:
            raise ApiConflictError(409, f"{resource.plural} {name}: the object has been modified")
        new = copy.deepcopy(old)
        _merge(new, patch)
        return self._store(resource, key, new, EventType.MODIFIED)

    @_locked
    def apply(
        self,
        resource: Resource,
        obj: Mapping[str, Any],
        *,
        field_manager: str,
        force: bool = False,
        timeout: float | None = None,
    ) -> Object:
        self.calls.append(("apply", resource.plural))
        self._maybe_conflict()
        metadata = obj.get("metadata") or {}
        key = _key(resource, str(metadata["name"]), metadata.get("namespace"))
        kind = EventType.MODIFIED if key in self.objects else EventType.ADDED
        stored = copy.deepcopy(dict(obj))
        stored["metadata"]["managedFields"] = [{"manager": field_manager, "operation": "Apply"}]
        return self._store(resource, key, stored, kind)

    @_locked
    def delete(
        self,
        resource: Resource,
        name: str,
        namespace: str | None = None,
        *,
        preconditions: Preconditions | None = None,
        timeout: float | None = None,
    ) -> None:
        self.calls.append(("delete", resource.plural))
        found = self.objects.get(_key(resource, name, namespace))
        if found is None:
            raise ApiNotFoundError(404, f"{resource.plural} {name} not found")
        if preconditions is not None:
            meta = found["metadata"]
            for field, wanted in (
                ("uid", preconditions.uid),
                ("resourceVersion", preconditions.resource_version),
            ):
                if wanted is not None and wanted != meta.get(field):
                    raise ApiConflictError(409, f"Precondition failed: {field} {wanted} != {meta.get(field)}")
        self.remove(resource, name, namespace)

    # -- helpers -------------------------------------------------------------------------------
    def _maybe_conflict(self) -> None:
        if self.conflicts > 0:
            self.conflicts -= 1
            raise ApiConflictError(409, "the object has been modified; please apply your changes again")

    def _store(self, resource: Resource, key: tuple[str, str, str], obj: Object, kind: EventType) -> Object:
        self.version += 1
        metadata = obj.setdefault("metadata", {})
        metadata["resourceVersion"] = str(self.version)
        metadata.setdefault("uid", str(uuid.uuid4()))
        self.objects[key] = obj
        self.events.setdefault(resource.plural, []).append(
            (self.version, WatchEvent(kind, copy.deepcopy(obj)))
        )
        return copy.deepcopy(obj)
