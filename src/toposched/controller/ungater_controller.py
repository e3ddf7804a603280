"""``UngaterController``: one step of ``--mode ungater`` over the informer caches.

A step pumps every informer (one watch call each, all at once: each call waits up to
``watch_seconds`` for news, so in turn an idle step would wait that long once per kind), mirrors
Nodes, bound pods and Topology
objects into the scheduler, queues the gangs that became whole, runs one scheduler cycle,
acts on its evictions, then records and ungates the pods of admitted gangs. The first step
rebuilds the scheduler's state from the pods' recorded assignments before anything is placed.
``leader.lead`` is the thin loop around ``step``: it steps only while this replica holds the lease.

A watch that fails is that informer's alone: it logs one line and waits (``Backoff``) before it
is called again, while the step goes on with every cache as last seen. Nothing is decided until
each watched kind has been listed once.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass
from functools import partial

from toposched.controller.expectations import Expectations
from toposched.controller.gang_reconciler import GangReconciler
from toposched.controller.grouping import PodGrouper
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
from toposched.controller.podwrites import DEFAULT_CONCURRENCY, PodWrites, check_concurrency
from toposched.controller.retry import Backoff
from toposched.controller.streaming import Streams
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
        topology: str | None = None,
        namespace: str | None = None,
        metrics: ControllerMetrics | None = None,
        watch_seconds: int = 1,
        write_concurrency: int = DEFAULT_CONCURRENCY,
        streamed: bool = False,
    ) -> None:
        """``watch_seconds`` bounds each informer's watch call (side by side: a step with nothing
        new waits that long once, short enough to renew the Lease). ``write_concurrency`` bounds
        the pod writes in flight. ``streamed``: the watches run on threads of their own
        (``streaming``), a step takes what they delivered, ``wait`` returns at the first news."""
        self.api, self.scheduler, self.clock = api, scheduler, clock
        watch = partial(Informer, api, timeout_seconds=watch_seconds)
        self.nodes, self.pods = watch(NODES), watch(PODS, namespace)
        self.podgroups = watch(KAI_PODGROUPS, namespace)
        self.kube_podgroups_v1alpha3 = watch(KUBE_PODGROUPS_V1ALPHA3, namespace)
        self.kube_podgroups_v1beta1 = watch(KUBE_PODGROUPS, namespace)
        self.kube_workloads = watch(KUBE_WORKLOADS, namespace)
        self.kube_composites = watch(KUBE_COMPOSITE_PODGROUPS, namespace)
        self.topologies = [watch(r) for r in TOPOLOGY_RESOURCES]
        self.mirror = Mirror(scheduler)
        expectations = Expectations()
        writes = PodWrites(api, expectations, check_concurrency(write_concurrency))
        self.reconciler = GangReconciler(writes, scheduler, expectations, topology)
        self.metrics = metrics or ControllerMetrics()
        self._started = False
        self.grouper = PodGrouper()  # each pod's gang, read again only when it changed
        self.missing_kinds: set[Resource] = set()  # optional kinds this cluster does not serve
        self.backoff = {informer: Backoff() for informer in self.every_informer()}  # after failed watches
        # One thread per informer, so their watch calls wait side by side. Each informer is
        # fetched by one call at a time and read only after every call of the step returned.
        self._watchers = ThreadPoolExecutor(len(list(self.every_informer())), "toposched-watch")
        self.streams = Streams(self._fetch, self._watched) if streamed else None

    @property
    def kube_podgroups(self) -> Informer:
        """The upstream PodGroups read (see the class docstring)."""
        alpha = self.kube_podgroups_v1alpha3
        return self.kube_podgroups_v1beta1 if alpha.resource in self.missing_kinds else alpha

    def every_informer(self) -> Iterator[Informer]:
        """Every informer, in the order their changes are acted on: the topologies first, as
        nodes and gangs are read against them."""
        yield from self.topologies
        yield from (self.nodes, self.pods, self.podgroups, self.kube_podgroups_v1alpha3)
        yield from (self.kube_podgroups_v1beta1, self.kube_workloads, self.kube_composites)

    def step(self) -> StepReport:
        """One reconcile pass (see the module docstring); failed API calls are counted by status."""
        reconciler = self.reconciler
        ungated, conflicts = reconciler.ungated, reconciler.writes.conflicts
        try:
            return self._step()
        except KubeApiError as exc:
            self.metrics.api_errors.labels(str(exc.status)).inc()
            raise
        finally:
            self.metrics.ungated_pods.inc(reconciler.ungated - ungated)
            if reconciler.writes.conflicts > conflicts:
                self.metrics.api_errors.labels("409").inc(reconciler.writes.conflicts - conflicts)
            for latency in reconciler.latencies:
                self.metrics.placement_latency.observe(latency)
            reconciler.latencies.clear()
            for status in reconciler.failed:
                self.metrics.api_errors.labels(str(status)).inc()
            reconciler.failed.clear()

    def wait(self, seconds: float, stop: threading.Event) -> None:
        """Until the next step is due: news from a watch (streamed), else ``seconds``, or ``stop``."""
        if self.streams is None:
            stop.wait(seconds)
        else:
            self.streams.wait(seconds, stop)

    def _step(self) -> StepReport:
        changes = self._pump_all() if self.streams is None else self._take_all(self.streams)
        self.mirror.apply(changes, self.nodes.objects, self.pods.objects)
        if any(change.resource in TOPOLOGY_RESOURCES for change in changes):
            self.reconciler.topologies_changed()
        if not self._synced():
            return StepReport(CycleReport())  # acting on a kind never listed could undo what others did
        now = self.clock.now()
        grouping = (self.podgroups, self.kube_podgroups, self.kube_workloads, self.kube_composites)
        memberships = self.scheduler.registry.memberships
        gangs = self.grouper.group(self.pods.objects.values(), grouping, changes, memberships)
        self.metrics.pending_gangs.set(sum(1 for g in gangs.values() if any(is_gated(p) for p in g.pods)))
        restored: tuple[str, ...] = ()
        if not self._started:
            restored = tuple(str(k) for k in self.reconciler.restore(gangs, now))
            self._started = True
        self.reconciler.submit_whole(gangs, self.pods.objects, now)
        report = self.scheduler.cycle()
        if report.evicted:
            self.reconciler.evict(set(report.evicted), gangs, now)
        nodes = {n.name: n for n in self.scheduler.store.get_nodes()}
        self.reconciler.ungate(gangs, self.pods.objects, nodes, now)
        return StepReport(report, restored)

    def close(self) -> None:
        """Stop the watch threads (a call under way ends within its ``watch_seconds``) and the
        writing ones (writes under way finish)."""
        self._watchers.shutdown(wait=False, cancel_futures=True)
        if self.streams is not None:
            self.streams.close()
        self.reconciler.writes.close()

    def _synced(self) -> bool:
        """Whether every kind watched has been listed (or is known not to be served)."""
        unused = self.kube_podgroups_v1beta1 if self.kube_podgroups is self.kube_podgroups_v1alpha3 else None
        return all(
            i.synced or i.resource in self.missing_kinds for i in self.every_informer() if i is not unused
        )

    def _pump_all(self) -> list[Change]:
        """Every watched informer's changes, in ``every_informer`` order, once every call of the
        step returned; what a failed call fetched before it broke is in the cache, so it is
        handed on too. v1beta1 PodGroups are watched only once v1alpha3 ones are known not to be
        served (the class docstring), so on the step that learns it they are listed after the others."""
        alpha, beta = self.kube_podgroups_v1alpha3, self.kube_podgroups_v1beta1
        beta_watched = self.kube_podgroups is beta
        fetches = {
            informer: self._watchers.submit(self._fetch, informer)
            for informer in self.every_informer()
            if informer is not beta or beta_watched
        }
        if not beta_watched:
            wait([fetches[alpha]])
            if self.kube_podgroups is beta:
                fetches[beta] = self._watchers.submit(self._fetch, beta)
        unexpected = [error for f in fetches.values() if (error := f.exception()) is not None]
        if unexpected:  # API failures stay with their informer (``_fetch``): this is a bug
            raise unexpected[0]
        return [change for informer in fetches for change in informer.take()]

    def _watched(self, informer: Informer) -> bool:
        """Whether ``informer`` is watched: a kind served, and v1beta1 PodGroups only where
        v1alpha3 ones are not (the class docstring)."""
        if informer.resource in self.missing_kinds:
            return False
        return informer is not self.kube_podgroups_v1beta1 or self.kube_podgroups is informer

    def _take_all(self, streams: Streams) -> list[Change]:
        """What the streamed watches delivered since the last step, in ``every_informer`` order;
        a watch not running yet is started."""
        for informer in self.every_informer():
            if self._watched(informer):
                streams.start(informer)
        return [change for informer in self.every_informer() for change in informer.take()]

    def _fetch(self, informer: Informer) -> None:
        """One watch call (or listing) of ``informer``, unless it waits after failures; a failure
        is logged in one line and counted, and the informer waits before its next call."""
        backoff = self.backoff[informer]
        if informer.resource in self.missing_kinds or not backoff.ready(self.clock.now()):
            return
        try:
            informer.fetch()
        except ApiNotFoundError as exc:
            if informer.resource in OPTIONAL_RESOURCES:
                self._missing(informer.resource)
                return
            self._failed(informer, exc)
        except KubeApiError as exc:
            self._failed(informer, exc)
        else:
            backoff.succeeded()

    def _failed(self, informer: Informer, error: KubeApiError) -> None:
        self.metrics.api_errors.labels(str(error.status)).inc()
        backoff = self.backoff[informer]
        delay = backoff.failed(self.clock.now())
        resource = informer.resource
        log.warning(
            "watching %s/%s failed (%d in a row), again in %.1f s: %s",
            resource.api_version,
            resource.plural,
            backoff.failures,
            delay,
            error,
        )

    def _missing(self, resource: Resource) -> None:
        log.info("%s/%s is not served by this cluster; not watched", resource.api_version, resource.plural)
        self.missing_kinds.add(resource)
