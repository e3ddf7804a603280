"""The ungater stepped by hand against the real API server: ``UngaterController`` on the REST
client as the ungater's ServiceAccount, with a manual clock (so NotReady grace periods pass at
once), and a ``KubeApi`` that lets a test act between the controller's read and its write (another
client changing the pod, or the process dying) while every call still goes to the server."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from tests.controller.real_cluster import ControllerAccounts, RealCluster

from toposched.controller.kubeapi import ForwardingKubeApi, KubeApi, Resource
from toposched.controller.modes import Mode
from toposched.controller.rest import connect
from toposched.controller.ungater_controller import StepReport, UngaterController
from toposched.scheduler import ManualClock, Scheduler
from toposched.store import MemoryStore

Hook = Callable[[str, Resource, str], None]  # (verb, resource, object name), before the call


@contextmanager
def ungater(
    cluster: RealCluster,
    accounts: ControllerAccounts,
    clock: ManualClock | None = None,
    *,
    hook: Hook | None = None,
) -> Iterator[UngaterController]:
    """A fresh ungater (an empty scheduler: a new process) as the ungater's ServiceAccount,
    watching ``cluster``'s namespace and placing on its topology."""
    api = connect(str(accounts[Mode.UNGATER]))
    namespace, topology = cluster.namespace, cluster.topology().name
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


class Interposed(ForwardingKubeApi):
    """``api`` with ``hook`` called before each write (patch, delete, create, replace, apply)."""

    def __init__(self, api: KubeApi, hook: Hook) -> None:
        super().__init__(api)
        self.hook = hook

    def before_write(self, verb: str, resource: Resource, name: str, timeout: float | None) -> float | None:
        self.hook(verb, resource, name)
        return timeout
