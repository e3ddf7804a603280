"""The few Kubernetes API calls the controller makes, as one small protocol.

The reconcilers talk to a ``KubeApi``; the REST client (the official ``kubernetes`` library) and
the in-memory object store the reconcile tests use both implement it, so the logic is tested
without a cluster and the client is tested against an HTTP server without the logic.

Objects are plain dicts as the API server returns them. Failures the controller must tell apart
are typed: ``ApiConflictError`` (409, a stale ``resourceVersion``, a failed precondition or an
apply conflict: read again), ``WatchExpiredError`` (410 on a watch: relist), ``ApiNotFoundError``
(404), ``KubeApiError`` (anything else).

Every write takes a ``timeout``: the seconds the API server may take to apply it, counted from
when it receives the request (its ``timeout`` parameter); a write not done by then fails (504).
The leader bounds its writes this way so none lands after its lease could have passed to another
replica.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from toposched.model import ToposchedError

Object = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Resource:
    """One API resource: where it lives and what it is called."""

    group: str  # "" for the core group
    version: str
    plural: str
    kind: str
    namespaced: bool = True

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    def path(self, namespace: str | None = None, name: str | None = None) -> str:
        """The REST path: ``/api/v1/namespaces/ns/pods/name``, ``/apis/g/v/plural`` ..."""
        base = f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"
        if self.namespaced and namespace is not None:
            base += f"/namespaces/{namespace}"
        base += f"/{self.plural}"
        return f"{base}/{name}" if name is not None else base


NODES = Resource("", "v1", "nodes", "Node", namespaced=False)
PODS = Resource("", "v1", "pods", "Pod")
LEASES = Resource("coordination.k8s.io", "v1", "leases", "Lease")
KAI_TOPOLOGIES = Resource("kai.scheduler", "v1alpha1", "topologies", "Topology", namespaced=False)
KAI_PODGROUPS = Resource("scheduling.run.ai", "v2alpha2", "podgroups", "PodGroup")
KUEUE_TOPOLOGIES = Resource("kueue.x-k8s.io", "v1beta2", "topologies", "Topology", namespaced=False)
GROVE_CLUSTER_TOPOLOGIES = Resource(
    "grove.io", "v1alpha1", "clustertopologies", "ClusterTopology", namespaced=False
)
# Upstream gang scheduling (scheduling.k8s.io): the beta Workload and PodGroup, and the alpha
# CompositePodGroup with the same PodGroups as v1alpha3 serves them (with their parent link).
KUBE_WORKLOADS = Resource("scheduling.k8s.io", "v1beta1", "workloads", "Workload")
KUBE_PODGROUPS = Resource("scheduling.k8s.io", "v1beta1", "podgroups", "PodGroup")
KUBE_PODGROUPS_V1ALPHA3 = Resource("scheduling.k8s.io", "v1alpha3", "podgroups", "PodGroup")
KUBE_COMPOSITE_PODGROUPS = Resource(
    "scheduling.k8s.io", "v1alpha3", "compositepodgroups", "CompositePodGroup"
)


class EventType(StrEnum):
    ADDED = "ADDED"
    MODIFIED = "MODIFIED"
    DELETED = "DELETED"
    BOOKMARK = "BOOKMARK"  # carries only metadata.resourceVersion: where to resume


@dataclass(frozen=True, slots=True)
class WatchEvent:
    type: EventType
    object: Object


@dataclass(frozen=True, slots=True)
class Listing:
    """A list response: the items and the resourceVersion to watch from."""

    items: tuple[Object, ...]
    resource_version: str


@dataclass(frozen=True, slots=True)
class Preconditions:
    """What a delete requires of the object (its ``DeleteOptions.preconditions``): the object it
    was decided on, unchanged since; otherwise the delete fails with a conflict (409)."""

    uid: str | None = None
    resource_version: str | None = None


class PatchType(StrEnum):
    MERGE = "application/merge-patch+json"
    STRATEGIC = "application/strategic-merge-patch+json"
    JSON = "application/json-patch+json"


class KubeApiError(ToposchedError):
    """The API server refused or failed a call."""

    def __init__(self, status: int, message: str) -> None:
        self.status = status
        super().__init__(f"{status}: {message}")


class ApiConflictError(KubeApiError):
    """409: the object changed since it was read (or an apply conflicts); read again and retry."""


class WatchExpiredError(KubeApiError):
    """410: the watch's resourceVersion is too old; list again."""


class ApiNotFoundError(KubeApiError):
    """404: the object (or its kind) does not exist."""


class KubeApi(Protocol):
    """The calls the controller makes. Every method raises ``KubeApiError`` (or a subclass)."""

    def list(
        self, resource: Resource, namespace: str | None = None, *, label_selector: str | None = None
    ) -> Listing: ...

    def watch(
        self,
        resource: Resource,
        resource_version: str,
        namespace: str | None = None,
        *,
        timeout_seconds: int = 300,
    ) -> Iterator[WatchEvent]:
        """Events after ``resource_version``, bookmarks included; raises ``WatchExpiredError`` on 410."""
        ...

    def get(self, resource: Resource, name: str, namespace: str | None = None) -> Object: ...

    def create(
        self, resource: Resource, obj: Mapping[str, Any], *, timeout: float | None = None
    ) -> Object: ...

    def replace(self, resource: Resource, obj: Mapping[str, Any], *, timeout: float | None = None) -> Object:
        """PUT; ``metadata.resourceVersion`` in ``obj`` makes it conditional (``ApiConflictError``)."""
        ...

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
        """``metadata.resourceVersion`` in a merge or strategic ``patch`` makes it conditional."""
        ...

    def apply(
        self,
        resource: Resource,
        obj: Mapping[str, Any],
        *,
        field_manager: str,
        force: bool = False,
        timeout: float | None = None,
    ) -> Object:
        """Server-side apply of ``obj`` (named by its metadata) as ``field_manager``."""
        ...

    def delete(
        self,
        resource: Resource,
        name: str,
        namespace: str | None = None,
        *,
        preconditions: Preconditions | None = None,
        timeout: float | None = None,
    ) -> None: ...


class ForwardingKubeApi:
    """A ``KubeApi`` that passes every call to ``api``; a subclass adds one step before each write
    by overriding ``before_write`` (a check, a hook, a tighter deadline). Reads pass unchanged."""

    def __init__(self, api: KubeApi) -> None:
        self.api = api

    def before_write(self, verb: str, resource: Resource, name: str, timeout: float | None) -> float | None:
        """Called before each write (``verb`` is create/replace/patch/apply/delete) with the
        object's name and the caller's timeout; returns the timeout the write is sent with."""
        return timeout

    def list(
        self, resource: Resource, namespace: str | None = None, *, label_selector: str | None = None
    ) -> Listing:
        return self.api.list(resource, namespace, label_selector=label_selector)

    def watch(
        self,
        resource: Resource,
        resource_version: str,
        namespace: str | None = None,
        *,
        timeout_seconds: int = 300,
    ) -> Iterator[WatchEvent]:
        return self.api.watch(resource, resource_version, namespace, timeout_seconds=timeout_seconds)

    def get(self, resource: Resource, name: str, namespace: str | None = None) -> Object:
        return self.api.get(resource, name, namespace)

    def create(self, resource: Resource, obj: Mapping[str, Any], *, timeout: float | None = None) -> Object:
        timeout = self.before_write("create", resource, _name_of(obj), timeout)
        return self.api.create(resource, obj, timeout=timeout)

    def replace(self, resource: Resource, obj: Mapping[str, Any], *, timeout: float | None = None) -> Object:
        timeout = self.before_write("replace", resource, _name_of(obj), timeout)
        return self.api.replace(resource, obj, timeout=timeout)

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
        timeout = self.before_write("patch", resource, name, timeout)
        return self.api.patch(
            resource,
            name,
            patch,
            namespace,
            patch_type=patch_type,
            field_manager=field_manager,
            timeout=timeout,
        )

    def apply(
        self,
        resource: Resource,
        obj: Mapping[str, Any],
        *,
        field_manager: str,
        force: bool = False,
        timeout: float | None = None,
    ) -> Object:
        timeout = self.before_write("apply", resource, _name_of(obj), timeout)
        return self.api.apply(resource, obj, field_manager=field_manager, force=force, timeout=timeout)

    def delete(
        self,
        resource: Resource,
        name: str,
        namespace: str | None = None,
        *,
        preconditions: Preconditions | None = None,
        timeout: float | None = None,
    ) -> None:
        timeout = self.before_write("delete", resource, name, timeout)
        self.api.delete(resource, name, namespace, preconditions=preconditions, timeout=timeout)


def _name_of(obj: Mapping[str, Any]) -> str:
    return str(obj.get("metadata", {}).get("name", ""))
