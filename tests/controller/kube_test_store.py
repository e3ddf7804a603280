"""Test double: the object store behind ``kube_test_server`` (what etcd and the API server keep).

One global resourceVersion counter as in etcd; an event log per resource for watches; optimistic
concurrency on ``metadata.resourceVersion``; server-side apply SIMPLIFIED to field ownership of
leaf fields (maps recurse, lists are atomic): applying a field another manager owns with another
value conflicts (409) unless ``force``, which takes it over; a field the applier owned and no
longer applies is removed if nobody else owns it; updates (create, replace, patch) take ownership
of the fields they change. ``metadata.managedFields`` is written in the ``FieldsV1`` shape.
Pods keep the API server's rule the ungater depends on: scheduling gates can only be removed, and
``nodeSelector`` / ``affinity`` can change only while the pod is gated.
"""

from __future__ import annotations

import copy
import itertools
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from toposched.controller.kubeapi import PODS, Object, Resource

Path = tuple[str, ...]
Key = tuple[str, str, str]  # (resource key, namespace, name)
# metadata the server owns: never part of a field manager's set
_SERVER_METADATA = {
    "name",
    "namespace",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "managedFields",
}
_IMMUTABLE_ON_UPDATE = ("uid", "creationTimestamp")


class StatusError(Exception):
    """A failure the server reports as a ``Status`` object with this HTTP code and reason."""

    def __init__(self, code: int, reason: str, message: str) -> None:
        super().__init__(message)
        self.code, self.reason, self.message = code, reason, message


@dataclass(frozen=True, slots=True)
class Event:
    resource_version: int
    type: str  # ADDED, MODIFIED, DELETED, BOOKMARK, ERROR
    namespace: str
    object: Object


@dataclass(slots=True)
class Stored:
    object: Object
    owners: dict[str, tuple[str, set[Path]]] = field(default_factory=dict)  # manager -> (operation, fields)


def resource_key(resource: Resource) -> str:
    return f"{resource.plural}.{resource.group}" if resource.group else resource.plural


class ObjectStore:
    """Objects, their versions and their event log, safe to use from the server's threads."""

    def __init__(self) -> None:
        self.changed = threading.Condition()
        self._objects: dict[Key, Stored] = {}
        self._events: dict[str, list[Event]] = {}
        self._compacted: dict[str, int] = {}
        self._counter = itertools.count(1)
        self.resource_version = 0

    # reads -------------------------------------------------------------------------------------

    def list(
        self, resource: Resource, namespace: str | None, selector: Callable[[Object], bool]
    ) -> tuple[list[Object], int]:
        with self.changed:
            items = [
                copy.deepcopy(stored.object)
                for (kind, ns, _), stored in sorted(self._objects.items())
                if kind == resource_key(resource) and namespace in (None, ns) and selector(stored.object)
            ]
            return items, self.resource_version

    def get(self, resource: Resource, namespace: str, name: str) -> Object:
        with self.changed:
            return copy.deepcopy(self._stored(resource, namespace, name).object)

    def exists(self, resource: Resource, namespace: str, name: str) -> bool:
        with self.changed:
            return (resource_key(resource), namespace, name) in self._objects

    def watch_position(self, resource: Resource, after: int) -> int:
        """Where in the event log a watch from resourceVersion ``after`` starts; 410 if compacted.

        The caller holds ``changed``. Positions, not versions, because bookmarks and errors repeat
        the version of the last change. A bookmark at ``after`` itself is delivered (a real server
        may send one at any time), so a test can bookmark before the watch starts."""
        compacted = self._compacted.get(resource_key(resource), 0)
        if after < compacted:
            raise StatusError(410, "Expired", f"too old resource version: {after} ({compacted})")
        log = self._events.get(resource_key(resource), [])
        return next((i for i, event in enumerate(log) if _newer(event, after)), len(log))

    def events_from(self, resource: Resource, position: int) -> list[Event]:
        """The events logged at ``position`` and after (the caller holds ``changed``)."""
        return self._events.get(resource_key(resource), [])[position:]

    # writes ------------------------------------------------------------------------------------

    def create(self, resource: Resource, namespace: str, obj: Object, manager: str) -> Object:
        with self.changed:
            stored = self._new(resource, namespace, obj)
            self._take_update(stored, manager, {}, stored.object)
            return self._commit(resource, namespace, stored, "ADDED")

    def update(
        self, resource: Resource, namespace: str, name: str, change: Callable[[Object], Object], manager: str
    ) -> Object:
        """Replace or patch: ``change`` maps the current object to the new one."""
        with self.changed:
            stored = self._stored(resource, namespace, name)
            old = stored.object
            new = change(copy.deepcopy(old))
            self._check_version(new, old, name)
            self._keep_server_fields(old, new)
            if resource == PODS:
                _check_pod_update(old, new)
            self._take_update(stored, manager, old, new)
            stored.object = new
            return self._commit(resource, namespace, stored, "MODIFIED")

    def apply(
        self, resource: Resource, namespace: str, name: str, applied: Object, manager: str, force: bool
    ) -> Object:
        with self.changed:
            key = (resource_key(resource), namespace, name)
            if key not in self._objects:
                created = self._new(resource, namespace, applied)
                created.owners[manager] = ("Apply", _leaves(applied))
                return self._commit(resource, namespace, created, "ADDED")
            stored = self._objects[key]
            self._check_version(applied, stored.object, name)
            fields = _leaves(applied)
            self._resolve_conflicts(stored, manager, applied, fields, force)
            new = copy.deepcopy(stored.object)
            _, previous = stored.owners.get(manager, ("Apply", set()))
            others = set().union(*(owned for m, (_, owned) in stored.owners.items() if m != manager))
            for path in sorted(previous - fields - others, key=len, reverse=True):
                _remove(new, path)
            for path in fields:
                _set(new, path, copy.deepcopy(_value(applied, path)))
            if resource == PODS:
                _check_pod_update(stored.object, new)
            stored.owners[manager] = ("Apply", fields)
            stored.object = new
            return self._commit(resource, namespace, stored, "MODIFIED")

    def delete(
        self, resource: Resource, namespace: str, name: str, preconditions: dict[str, Any] | None = None
    ) -> Object:
        """Delete, if the object still has the ``uid`` and ``resourceVersion`` the preconditions name."""
        with self.changed:
            stored = self._stored(resource, namespace, name)
            for field, label in (("uid", "UID"), ("resourceVersion", "ResourceVersion")):
                wanted, actual = (preconditions or {}).get(field), stored.object["metadata"].get(field)
                if wanted is not None and wanted != actual:
                    raise StatusError(
                        409,
                        "Conflict",
                        f"Precondition failed: {label} in precondition: {wanted}, {label} in object meta: {actual}",
                    )
            del self._objects[(resource_key(resource), namespace, name)]
            rv = next(self._counter)
            self.resource_version = rv
            gone = copy.deepcopy(stored.object)
            gone["metadata"]["resourceVersion"] = str(rv)
            self._events.setdefault(resource_key(resource), []).append(Event(rv, "DELETED", namespace, gone))
            self.changed.notify_all()
            return gone

    def bookmark(self, resource: Resource) -> None:
        """A BOOKMARK event at the current resourceVersion, for watches that asked for them."""
        with self.changed:
            meta = {"resourceVersion": str(self.resource_version)}
            self._events.setdefault(resource_key(resource), []).append(
                Event(self.resource_version, "BOOKMARK", "", {"kind": resource.kind, "metadata": meta})
            )
            self.changed.notify_all()

    def expire(self, resource: Resource) -> None:
        """Compact the resource's history: open watches get an ERROR 410, older versions are gone."""
        with self.changed:
            key = resource_key(resource)
            self._compacted[key] = self.resource_version
            status = status_object(410, "Expired", "too old resource version (compacted by the test)")
            self._events.setdefault(key, []).append(Event(self.resource_version, "ERROR", "", status))
            self.changed.notify_all()

    # internals ---------------------------------------------------------------------------------

    def _stored(self, resource: Resource, namespace: str, name: str) -> Stored:
        try:
            return self._objects[(resource_key(resource), namespace, name)]
        except KeyError:
            raise StatusError(404, "NotFound", f'{resource_key(resource)} "{name}" not found') from None

    def _new(self, resource: Resource, namespace: str, obj: Object) -> Stored:
        name = str(obj.get("metadata", {}).get("name") or "")
        if not name:
            raise StatusError(422, "Invalid", "metadata.name: Required value")
        if (resource_key(resource), namespace, name) in self._objects:
            raise StatusError(409, "AlreadyExists", f'{resource_key(resource)} "{name}" already exists')
        created = copy.deepcopy(obj)
        meta = created.setdefault("metadata", {})
        meta.pop("resourceVersion", None)
        meta.update(uid=str(uuid.uuid4()), creationTimestamp="2026-01-01T00:00:00Z", generation=1)
        if resource.namespaced:
            meta["namespace"] = namespace
        return Stored(created)

    def _commit(self, resource: Resource, namespace: str, stored: Stored, event: str) -> Object:
        rv = next(self._counter)
        self.resource_version = rv
        stored.object["metadata"]["resourceVersion"] = str(rv)
        if stored.owners:
            stored.object["metadata"]["managedFields"] = _managed_fields(stored.owners, resource)
        self._objects[(resource_key(resource), namespace, stored.object["metadata"]["name"])] = stored
        self._events.setdefault(resource_key(resource), []).append(
            Event(rv, event, namespace, copy.deepcopy(stored.object))
        )
        self.changed.notify_all()
        return copy.deepcopy(stored.object)

    @staticmethod
    def _check_version(new: Object, old: Object, name: str) -> None:
        wanted = new.get("metadata", {}).get("resourceVersion")
        if wanted and wanted != old["metadata"]["resourceVersion"]:
            raise StatusError(
                409,
                "Conflict",
                f'Operation cannot be fulfilled on "{name}": the object has been modified; '
                "please apply your changes to the latest version and try again",
            )

    @staticmethod
    def _keep_server_fields(old: Object, new: Object) -> None:
        meta = new.setdefault("metadata", {})
        for name in _IMMUTABLE_ON_UPDATE:
            meta[name] = old["metadata"][name]
        for name in ("name", "namespace"):
            if name in old["metadata"]:
                meta[name] = old["metadata"][name]

    @staticmethod
    def _take_update(stored: Stored, manager: str, old: Object, new: Object) -> None:
        """An update owns what it changed; removed fields are nobody's."""
        if not manager:
            return
        before, after = _leaves(old), _leaves(new)
        changed = {p for p in after if p not in before or _value(old, p) != _value(new, p)}
        for other, (operation, owned) in list(stored.owners.items()):
            kept = (owned - changed) & after
            if kept:
                stored.owners[other] = (operation, kept)
            else:
                del stored.owners[other]
        if changed:
            _, mine = stored.owners.get(manager, ("Update", set()))
            stored.owners[manager] = ("Update", mine | changed)

    @staticmethod
    def _resolve_conflicts(
        stored: Stored, manager: str, applied: Object, fields: set[Path], force: bool
    ) -> None:
        conflicts: list[str] = []
        for other, (operation, owned) in list(stored.owners.items()):
            if other == manager:
                continue
            contested = {p for p in owned & fields if _value(stored.object, p) != _value(applied, p)}
            if contested and not force:
                conflicts += [f'conflict with "{other}": .{".".join(p)}' for p in sorted(contested)]
            elif contested and owned - contested:
                stored.owners[other] = (operation, owned - contested)
            elif contested:
                del stored.owners[other]
        if conflicts:
            raise StatusError(
                409, "Conflict", f"Apply failed with {len(conflicts)} conflict(s): " + "; ".join(conflicts)
            )


def _newer(event: Event, after: int) -> bool:
    return event.resource_version > after or (event.type == "BOOKMARK" and event.resource_version == after)


def _leaves(obj: Any, prefix: Path = ()) -> set[Path]:
    if not isinstance(obj, dict) or (prefix and not obj):
        return {prefix} if prefix else set()
    paths: set[Path] = set()
    for key, value in obj.items():
        if prefix == () and key in ("apiVersion", "kind"):
            continue
        if prefix == ("metadata",) and key in _SERVER_METADATA:
            continue
        paths |= _leaves(value, (*prefix, key))
    return paths


def _value(obj: Any, path: Path) -> Any:
    for key in path:
        if not isinstance(obj, dict) or key not in obj:
            return None
        obj = obj[key]
    return obj


def _set(obj: Object, path: Path, value: Any) -> None:
    for key in path[:-1]:
        obj = obj.setdefault(key, {})
    obj[path[-1]] = value


def _remove(obj: Object, path: Path) -> None:
    """Remove the field and the maps it leaves empty (an empty map is not stored)."""
    parent = _value(obj, path[:-1]) if len(path) > 1 else obj
    if isinstance(parent, dict):
        parent.pop(path[-1], None)
        if not parent and len(path) > 2:
            _remove(obj, path[:-1])


def _managed_fields(owners: dict[str, tuple[str, set[Path]]], resource: Resource) -> list[Object]:
    entries = []
    for manager, (operation, paths) in sorted(owners.items()):
        tree: Object = {}
        for path in paths:
            node = tree
            for key in path:
                node = node.setdefault(f"f:{key}", {})
        entries.append(
            {
                "manager": manager,
                "operation": operation,
                "apiVersion": resource.api_version,
                "fieldsType": "FieldsV1",
                "fieldsV1": tree,
            }
        )
    return entries


def _check_pod_update(old: Object, new: Object) -> None:
    old_spec, new_spec = old.get("spec", {}), new.get("spec", {})
    old_gates = [g.get("name") for g in old_spec.get("schedulingGates") or []]
    new_gates = [g.get("name") for g in new_spec.get("schedulingGates") or []]
    if any(gate not in old_gates for gate in new_gates):
        raise StatusError(422, "Invalid", "spec.schedulingGates: Forbidden: only deletion is allowed")
    if "schedulingGates" in new_spec and not new_gates:
        del new_spec["schedulingGates"]  # an empty list is not stored, as on a real server
    for name in ("nodeSelector", "affinity"):
        if not old_gates and old_spec.get(name) != new_spec.get(name):
            raise StatusError(
                422, "Invalid", f"spec.{name}: Forbidden: may change only while the pod has scheduling gates"
            )


def status_object(code: int, reason: str, message: str) -> Object:
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    }
