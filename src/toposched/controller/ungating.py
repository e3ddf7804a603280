"""``UngaterController``: one step of ``--mode ungater`` over the informer caches.

A step pumps every informer (one watch call each), mirrors Nodes, bound pods and Topology
objects into the scheduler, queues the gangs that became whole, runs one scheduler cycle,
acts on its evictions, then records and ungates the pods of admitted gangs. The first step
rebuilds the scheduler's state from the pods' recorded assignments before anything is placed.
``run`` is the thin loop around ``step`` (the leader-election loop decides whether it runs).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

from toposched.controller.expectations import Expectations
from toposched.controller.gangs import group_pods
from toposched.controller.informer import Change, Informer
from toposched.controller.kubeapi import (
    GROVE_CLUSTER_TOPOLOGIES,
    KAI_PODGROUPS,
    KAI_TOPOLOGIES,
    KUEUE_TOPOLOGIES,
    NODES,
    PODS,
    ApiNotFoundError,
    KubeApi,
    Resource,
)
from toposched.controller.mirror import Mirror
from toposched.controller.retry import Retry
from toposched.controller.ungater import Ungater
from toposched.scheduler import Clock, CycleReport, Scheduler

log = logging.getLogger(__name__)

TOPOLOGY_RESOURCES = (KAI_TOPOLOGIES, KUEUE_TOPOLOGIES, GROVE_CLUSTER_TOPOLOGIES)


@dataclass(frozen=True, slots=True)
class StepReport:
    """What one step did: the scheduler's cycle and the gangs restored (first step only)."""

    cycle: CycleReport
    restored: tuple[str, ...] = ()


class UngaterController:
    """Informers over Nodes, Pods, KAI PodGroups and the Topology kinds, feeding one scheduler."""

    def __init__(
        self,
        api: KubeApi,
        scheduler: Scheduler,
        clock: Clock,
        *,
        retry: Retry | None = None,
        topology: str | None = None,
        namespace: str | None = None,
    ) -> None:
        self.api = api
        self.scheduler = scheduler
        self.clock = clock
        self.nodes = Informer(api, NODES)
        self.pods = Informer(api, PODS, namespace)
        self.podgroups = Informer(api, KAI_PODGROUPS, namespace)
        self.topologies = [Informer(api, r) for r in TOPOLOGY_RESOURCES]
        self.mirror = Mirror(scheduler)
        self.ungater = Ungater(api, scheduler, retry or Retry(), Expectations(), topology)
        self._started = False
        self.missing_kinds: set[Resource] = set()  # Topology CRDs not installed in this cluster

    def informers(self) -> list[Informer]:
        # Topologies first: nodes and gangs are read against them.
        return [*self.topologies, self.nodes, self.pods, self.podgroups]

    def step(self) -> StepReport:
        """One reconcile pass (see the module docstring)."""
        changes: list[Change] = []
        for informer in self.informers():
            changes += self._pump(informer)
        self.mirror.apply(changes, self.nodes.objects, self.pods.objects)
        now = self.clock.now()
        gangs = group_pods(self.pods.objects.values(), self.podgroups.objects)
        restored: tuple[str, ...] = ()
        if not self._started:
            restored = tuple(str(k) for k in self.ungater.restore(gangs, now))
            self._started = True
        self.ungater.submit_whole(gangs, self.pods.objects, now)
        report = self.scheduler.cycle()
        if report.evicted:
            self.ungater.evict(set(report.evicted), gangs, now)
        nodes = {n.name: n for n in self.scheduler.store.get_nodes()}
        self.ungater.ungate(gangs, self.pods.objects, nodes, now)
        return StepReport(report, restored)

    def run(self, stop: threading.Event, interval: float = 1.0) -> None:
        """Step until ``stop`` is set; a failed step is logged and the next one retries."""
        while not stop.is_set():
            try:
                self.step()
            except Exception:  # a controller loop must survive a bad pass
                log.exception("controller step failed; retrying")
            stop.wait(interval)

    def _pump(self, informer: Informer) -> list[Change]:
        if informer.resource in self.missing_kinds:
            return []
        try:
            return informer.pump()
        except ApiNotFoundError:
            if informer.resource in (*TOPOLOGY_RESOURCES, KAI_PODGROUPS):
                self._missing(informer.resource)
                return []
            raise

    def _missing(self, resource: Resource) -> None:
        log.info("%s/%s is not served by this cluster; not watched", resource.group, resource.plural)
        self.missing_kinds.add(resource)
