"""``UngaterController``: one step of ``--mode ungater`` over the informer caches.

A step pumps every informer (one watch call each), mirrors Nodes, bound pods and Topology
objects into the scheduler, queues the gangs that became whole, runs one scheduler cycle,
acts on its evictions, then records and ungates the pods of admitted gangs. The first step
rebuilds the scheduler's state from the pods' recorded assignments before anything is placed.
``leader.lead`` is the thin loop around ``step``: it steps only while this replica holds the lease.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass

from toposched.controller.expectations import Expectations
from toposched.controller.gangs import GroupObjects, group_pods
from toposched.controller.informer import Change, Informer
from toposched.controller.keys import is_gated
from toposched.controller.kubeapi import (
    GROVE_CLUSTER_TOPOLOGIES,
    KAI_PODGROUPS,
    KAI_TOPOLOGIES,
    KUBE_COMPOSITE_PODGROUPS,
    KUBE_PODGROUPS,
    KUBE_PODGROUPS_V1ALPHA3,
    KUBE_WORKLOADS,
    KUEUE_TOPOLOGIES,
    NODES,
    PODS,
    ApiNotFoundError,
    KubeApi,
    KubeApiError,
    Resource,
)
from toposched.controller.metrics import ControllerMetrics
from toposched.controller.mirror import Mirror
from toposched.controller.retry import Retry
from toposched.controller.ungater import Ungater
from toposched.scheduler import Clock, CycleReport, Scheduler

log = logging.getLogger(__name__)

TOPOLOGY_RESOURCES = (KAI_TOPOLOGIES, KUEUE_TOPOLOGIES, GROVE_CLUSTER_TOPOLOGIES)
# Kinds a cluster may not serve (CRD not installed, API group not enabled): 404 means "none here".
OPTIONAL_RESOURCES = (
    *TOPOLOGY_RESOURCES,
    KAI_PODGROUPS,
    KUBE_PODGROUPS,
    KUBE_PODGROUPS_V1ALPHA3,
    KUBE_WORKLOADS,
    KUBE_COMPOSITE_PODGROUPS,
)


@dataclass(frozen=True, slots=True)
class StepReport:
    """What one step did: the scheduler's cycle and the gangs restored (first step only)."""

    cycle: CycleReport
    restored: tuple[str, ...] = ()


class UngaterController:
    """Informers over Nodes, Pods, KAI and upstream PodGroups, upstream Workloads and
    CompositePodGroups and the Topology kinds, feeding one scheduler.

    Upstream PodGroups are watched in one version: ``v1alpha3`` where the cluster serves it, as
    only it carries a PodGroup's parent CompositePodGroup, else ``v1beta1``. Both are views of the
    same objects; two caches of them could disagree between watch events, and a tree's PodGroup
    seen without its parent would be placed as a gang of its own."""

    def __init__(
        self,
        api: KubeApi,
        scheduler: Scheduler,
        clock: Clock,
        *,
        retry: Retry | None = None,
        topology: str | None = None,
        namespace: str | None = None,
        metrics: ControllerMetrics | None = None,
        watch_seconds: int = 1,
    ) -> None:
        """``watch_seconds`` bounds each informer's watch call, so a step with nothing new waits
        that long per informer at most: the steps stay short enough to renew the Lease."""
        self.api = api
        self.scheduler = scheduler
        self.clock = clock
        self.nodes = Informer(api, NODES, timeout_seconds=watch_seconds)
        self.pods = Informer(api, PODS, namespace, timeout_seconds=watch_seconds)
        self.podgroups = Informer(api, KAI_PODGROUPS, namespace, timeout_seconds=watch_seconds)
        self.kube_podgroups_v1alpha3 = Informer(
            api, KUBE_PODGROUPS_V1ALPHA3, namespace, timeout_seconds=watch_seconds
        )
        self.kube_podgroups_v1beta1 = Informer(api, KUBE_PODGROUPS, namespace, timeout_seconds=watch_seconds)
        self.kube_workloads = Informer(api, KUBE_WORKLOADS, namespace, timeout_seconds=watch_seconds)
        self.kube_composites = Informer(
            api, KUBE_COMPOSITE_PODGROUPS, namespace, timeout_seconds=watch_seconds
        )
        self.topologies = [Informer(api, r, timeout_seconds=watch_seconds) for r in TOPOLOGY_RESOURCES]
        self.mirror = Mirror(scheduler)
        self.ungater = Ungater(api, scheduler, retry or Retry(), Expectations(), topology)
        self.metrics = metrics or ControllerMetrics()
        self._started = False
        self.missing_kinds: set[Resource] = set()  # optional kinds this cluster does not serve

    @property
    def kube_podgroups(self) -> Informer:
        """The upstream PodGroups read (see the class docstring)."""
        alpha = self.kube_podgroups_v1alpha3
        return self.kube_podgroups_v1beta1 if alpha.resource in self.missing_kinds else alpha

    def informers(self) -> Iterator[Informer]:
        """The informers to pump, in order; lazily, as whether v1beta1 PodGroups are watched
        depends on the v1alpha3 informer's first answer."""
        yield from self.topologies  # first: nodes and gangs are read against them
        yield from (self.nodes, self.pods, self.podgroups, self.kube_podgroups_v1alpha3)
        if self.kube_podgroups is self.kube_podgroups_v1beta1:
            yield self.kube_podgroups_v1beta1
        yield from (self.kube_workloads, self.kube_composites)

    def step(self) -> StepReport:
        """One reconcile pass (see the module docstring); failed API calls are counted by status."""
        ungater = self.ungater
        ungated, conflicts = ungater.ungated, ungater.retry.conflicts
        try:
            return self._step()
        except KubeApiError as exc:
            self.metrics.api_errors.labels(str(exc.status)).inc()
            raise
        finally:
            self.metrics.ungated_pods.inc(ungater.ungated - ungated)
            if ungater.retry.conflicts > conflicts:
                self.metrics.api_errors.labels("409").inc(ungater.retry.conflicts - conflicts)
            for latency in ungater.latencies:
                self.metrics.placement_latency.observe(latency)
            ungater.latencies.clear()

    def _step(self) -> StepReport:
        changes: list[Change] = []
        for informer in self.informers():
            changes += self._pump(informer)
        self.mirror.apply(changes, self.nodes.objects, self.pods.objects)
        now = self.clock.now()
        objects = GroupObjects(
            self.podgroups.objects,
            self.kube_podgroups.objects,
            self.kube_workloads.objects,
            self.kube_composites.objects,
        )
        gangs = group_pods(self.pods.objects.values(), objects)
        self.metrics.pending_gangs.set(sum(1 for g in gangs.values() if any(is_gated(p) for p in g.pods)))
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

    def _pump(self, informer: Informer) -> list[Change]:
        if informer.resource in self.missing_kinds:
            return []
        try:
            return informer.pump()
        except ApiNotFoundError:
            if informer.resource in OPTIONAL_RESOURCES:
                self._missing(informer.resource)
                return []
            raise

    def _missing(self, resource: Resource) -> None:
        log.info("%s/%s is not served by this cluster; not watched", resource.api_version, resource.plural)
        self.missing_kinds.add(resource)
