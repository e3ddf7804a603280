"""Test double: the object store behind ``kube_test_server`` (what etcd and the API server keep).

One global resourceVersion counter as in etcd; an event log per resource for watches; optimistic
concurrency on ``metadata.resourceVersion``; delete preconditions. Nothing else of the API
server's rules: no validation, no admission, no field managers, no server-side apply (the tests of
those run on the real API server).
"""

from __future__ import annotations

import copy
import itertools
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from toposched.controller.kubeapi import Object, Resource

Key = tuple[str, str, str]  # (resource key, namespace, name)
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


def resource_key(resource: Resource) -> str:
    return f"{resource.plural}.{resource.group}" if resource.group else resource.plural


class ObjectStore:
    """Objects, their versions and their event log, safe to use from the server's threads."""

    def __init__(self) -> None:
        self.changed = threading.Condition()
        self._objects: dict[Key, Stored] = {}
        self._events: dict[str, list[Event]] = {}
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

    def watch_position(self, resource: Resource, after: int) -> int:
        """Where in the event log a watch from resourceVersion ``after`` starts.

        The caller holds ``changed``. Positions, not versions, because bookmarks repeat the
        version of the last change. A bookmark at ``after`` itself is delivered (a real server
        may send one at any time), so a test can bookmark before the watch starts."""
        log = self._events.get(resource_key(resource), [])
        return next((i for i, event in enumerate(log) if _newer(event, after)), len(log))

    def events_from(self, resource: Resource, position: int) -> list[Event]:
        """The events logged at ``position`` and after (the caller holds ``changed``)."""
        return self._events.get(resource_key(resource), [])[position:]

    # writes ------------------------------------------------------------------------------------

    def create(self, resource: Resource, namespace: str, obj: Object) -> Object:
        with self.changed:
            return self._commit(resource, namespace, self._new(resource, namespace, obj), "ADDED")

    def update(
        self, resource: Resource, namespace: str, name: str, change: Callable[[Object], Object]
    ) -> Object:
        """Replace or patch: ``change`` maps the current object to the new one."""
        with self.changed:
            stored = self._stored(resource, namespace, name)
            old = stored.object
            new = change(copy.deepcopy(old))
            self._check_version(new, old, name)
            self._keep_server_fields(old, new)
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
                        f'Operation cannot be fulfilled on {resource.kind} "{name}": the {label} in the '
                        f"precondition ({wanted}) does not match the {label} in record ({actual})",
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


def _newer(event: Event, after: int) -> bool:
    return event.resource_version > after or (event.type == "BOOKMARK" and event.resource_version == after)


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
