"""The ungater stepped by hand against the real API server: ``UngaterController`` on the REST
client as the ungater's ServiceAccount, with a manual clock (so NotReady grace periods pass at
once), and a ``KubeApi`` that lets a test act between the controller's read and its write (another
client changing the pod, or the process dying) while every call still goes to the server."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
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
from toposched.controller.rest import connect
from toposched.controller.ungating import StepReport, UngaterController
from toposched.scheduler import ManualClock, Scheduler
from toposched.store import MemoryStore

Hook = Callable[[str, Resource, str], None]  # (verb, resource, object name), before the call


@contextmanager
def ungater(
    kubeconfig: Path,
    namespace: str,
    topology: str,
    clock: ManualClock | None = None,
    *,
    hook: Hook | None = None,
) -> Iterator[UngaterController]:
    """A fresh ungater (an empty scheduler: a new process) watching ``namespace``."""
    api = connect(str(kubeconfig))
    clock = clock or ManualClock(1000.0)
    scheduler = Scheduler(MemoryStore(history=False), clock)  # as app.py builds it
    used: KubeApi = Interposed(api, hook) if hook is not None else api
    controller = UngaterController(used, scheduler, clock, topology=topology, namespace=namespace)
    try:
        yield controller
    finally:
        controller.close()
        api.close()


def settle(
    controller: UngaterController, until: Callable[[], bool], *, steps: int = 8, what: str = ""
) -> list[StepReport]:
    """Step until ``until`` holds (checked after each step); ``AssertionError`` after ``steps``."""
    reports = []
    for _ in range(steps):
        reports.append(controller.step())
        if until():
            return reports
    raise AssertionError(f"not after {steps} steps: {what or until}")


class Interposed:
    """``api`` with ``hook`` called before each write (patch, delete, create, replace, apply)."""

    def __init__(self, api: KubeApi, hook: Hook) -> None:
        self.api, self.hook = api, hook

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
        self.hook("create", resource, str(obj.get("metadata", {}).get("name", "")))
        return self.api.create(resource, obj, timeout=timeout)

    def replace(self, resource: Resource, obj: Mapping[str, Any], *, timeout: float | None = None) -> Object:
        self.hook("replace", resource, str(obj.get("metadata", {}).get("name", "")))
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
        self.hook("patch", resource, name)
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
        self.hook("apply", resource, str(obj.get("metadata", {}).get("name", "")))
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
        self.hook("delete", resource, name)
        self.api.delete(resource, name, namespace, preconditions=preconditions, timeout=timeout)
