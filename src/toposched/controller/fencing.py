"""The fence every write of the leader passes: a ``KubeApi`` whose writes are refused once this
replica may no longer write, and otherwise carry a deadline for the API server.

``Fence.window`` says how many seconds the server may take to apply a write made now (see
``leader``: until halfway between the renew deadline and the lease's expiry), or raises
``NotLeaderError``. Checked immediately before each request, so a replica that lost the lease
stops writing at its next write, whatever step it is in; the deadline goes to the server as the
write's ``timeout``, so a write the server is slow to apply fails (504) instead of landing after
another replica may have taken over. Reads pass unchanged: a replica that does not lead may read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from toposched.controller.kubeapi import (
    KubeApi,
    Listing,
    Object,
    PatchType,
    Preconditions,
    Resource,
    WatchEvent,
)
from toposched.model import ToposchedError


class NotLeaderError(ToposchedError):
    """This replica does not hold the lease (any more): it must not write."""


@dataclass(frozen=True, slots=True)
class Fence:
    window: Callable[[], float]  # seconds a write made now may take; raises NotLeaderError


class FencedKubeApi:
    """``api``, with each write checked against ``fence`` and bounded by its window."""

    def __init__(self, api: KubeApi, fence: Fence) -> None:
        self.api = api
        self.fence = fence

    def _deadline(self, timeout: float | None) -> float:
        window = self.fence.window()
        return window if timeout is None else min(window, timeout)

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
        return self.api.create(resource, obj, timeout=self._deadline(timeout))

    def replace(self, resource: Resource, obj: Mapping[str, Any], *, timeout: float | None = None) -> Object:
        return self.api.replace(resource, obj, timeout=self._deadline(timeout))

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
        return self.api.patch(
            resource,
            name,
            patch,
            namespace,
            patch_type=patch_type,
            field_manager=field_manager,
            timeout=self._deadline(timeout),
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
        return self.api.apply(
            resource, obj, field_manager=field_manager, force=force, timeout=self._deadline(timeout)
        )

    def delete(
        self,
        resource: Resource,
        name: str,
        namespace: str | None = None,
        *,
        preconditions: Preconditions | None = None,
        timeout: float | None = None,
    ) -> None:
        self.api.delete(
            resource, name, namespace, preconditions=preconditions, timeout=self._deadline(timeout)
        )
