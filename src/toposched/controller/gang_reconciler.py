"""``--mode ungater``: whole gangs are compiled through the front-end registry and queued in the
scheduler; once the scheduler admits one, its pods get their assignments and lose the gate.

Writes to a gang's pods happen in two phases, so a restart never assigns a pod twice:

1. record: every pod of the gang gets its assignment annotation (``records``) while still gated;
2. ungate: only when every slot of the placement is recorded on a pod, each recorded gated pod
   gets the node selector of its domain and loses the gate, in one patch.

So an ungated pod implies a fully recorded gang, and on start the placement is rebuilt from the
pods (``restore``) before anything new is placed. A gang whose records are all on gated pods
(a restart during phase 1) is simply placed again and recorded anew; one caught in the middle of
a node repair (a pod missing or not recorded) is evicted, as below.

Slots are matched to pods by name, then in order: after a node failure the scheduler moves some
slots; the pods pinned to the old slots are deleted (their owner recreates them, gated) and the
new pods take the free slots. An evicted gang's ungated pods are deleted the same way and its
workload cancelled: the recreated pods form the gang again and are queued afresh.

The two phases for one gang are ``assignment``'s. Every write is conditional on the pod as read
(``podwrites``): a pod that changed since is left for the next pass. A gang whose writes fail is
left for the next pass; the other gangs go on.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field

from toposched.controller.assignment import AssignmentWriter
from toposched.controller.expectations import Expectations
from toposched.controller.gangs import GangPods
from toposched.controller.keys import GangKey, is_gated, name_of
from toposched.controller.kubeapi import KubeApiError, Object
from toposched.controller.podwrites import PodWrites
from toposched.controller.records import PodRecord, placement_of
from toposched.model import ConflictError, Node, NotFoundError, SpecError, Topology
from toposched.scheduler import Scheduler
from toposched.store import WorkloadRecord, WorkloadState

log = logging.getLogger(__name__)

OWNER = "toposched-controller"


@dataclass(slots=True)
class GangReconciler:
    writes: PodWrites
    scheduler: Scheduler
    expectations: Expectations
    topology: str | None = None  # the topology gangs use when their spec names none
    workloads: dict[GangKey, int] = field(default_factory=dict)
    refused: dict[GangKey, tuple[str, ...]] = field(default_factory=dict)  # by the versions refused
    ungated: int = 0  # pods ungated so far (metrics read it)
    failed: list[int] = field(default_factory=list)  # statuses of other failed writes, drained by metrics
    whole_at: dict[GangKey, float] = field(default_factory=dict)  # when each queued gang became whole
    latencies: list[float] = field(default_factory=list)  # whole -> fully ungated, drained by metrics
    assigner: AssignmentWriter = field(init=False)  # the two write phases of one admitted gang

    def __post_init__(self) -> None:
        self.assigner = AssignmentWriter(self.writes, self.scheduler)

    # -- start -----------------------------------------------------------------------------------
    def restore(self, gangs: Mapping[GangKey, GangPods], now: float) -> list[GangKey]:
        """Re-admit the gangs that have ungated pods with their recorded placement; returns them.
        A gang caught in the middle of a node repair (a pod missing, or recreated and not
        recorded yet) has lost its new slot with the process, so it starts over as an eviction."""
        restored: list[GangKey] = []
        for key, gang in sorted(gangs.items()):
            if key in self.workloads:
                continue  # restored by an attempt that failed later: not twice
            records = gang.records()
            if not records or all(is_gated(p) for p in gang.pods if name_of(p) in records):
                continue  # nothing ungated: placing it again is safe
            if gang.missing() is not None or len(records) < len(gang.pods):
                log.warning("gang %s was being repaired when the controller stopped: evicted", key)
                self._evict_pods(key, gang, now)
                continue
            try:
                self._restore_one(key, gang, records, now)
            except (SpecError, NotFoundError, ConflictError) as exc:
                log.error("gang %s cannot be restored from its pods: %s", key, exc)
                continue
            restored.append(key)
        return restored

    def _recorded_topology(self, name: str, gang: GangPods) -> tuple[Topology, bool]:
        """The topology a gang's pods were placed on, and whether it is a stored one; else it is
        one the spec brings (an upstream PodGroup's: one per constraint key, and every node),
        which a restarted controller learns by compiling the spec."""
        try:
            return self.scheduler.store.get_topology(name), True
        except NotFoundError:
            probe = self.scheduler.prepare(gang.documents(), owner=OWNER, kind=gang.frontend)
            found = next((t for t in (probe.topology, *probe.record.own_topologies) if t.name == name), None)
            if found is None:
                raise
            return found, False

    def _restore_one(
        self, key: GangKey, gang: GangPods, records: Mapping[str, PodRecord], now: float
    ) -> None:
        first = next(iter(records.values()))
        topology, stored = self._recorded_topology(first.topology, gang)
        submission = self.scheduler.prepare(
            gang.documents(topology),
            owner=OWNER,
            topology=topology.name if stored else None,  # a brought one: the spec names it
            kind=gang.frontend,
        )
        placement = placement_of(topology, submission.gang.name, sorted(records.items()))
        # Admitted as the cycle admits a gang; when the recorded bookings no longer fit (nodes
        # shrank) it is cancelled, never placed anew behind the pods' backs: the operator sees the
        # error and the gang stays as the pods say.
        record = self.scheduler.restore(submission, placement, "restored from the pods' recorded assignments")
        self.workloads[key] = record.id

    # -- the reconcile pass ----------------------------------------------------------------------
    def submit_whole(
        self, gangs: Mapping[GangKey, GangPods], cache: Mapping[str, Object], now: float
    ) -> None:
        """Queue every whole gang the scheduler does not hold yet."""
        for key in [k for k in self.refused if k not in gangs]:
            del self.refused[key]  # its pods are gone: nothing to wait for
        self.expectations.expire(now)
        for key, gang in sorted(gangs.items()):
            if key in self.workloads or gang.missing() is not None:
                continue
            if not self.expectations.satisfied(key, cache, now):
                continue
            versions = gang.versions()
            if self.refused.get(key) == versions:
                continue  # refused as it stands: wait for a change
            try:
                record = self.scheduler.submit(
                    gang.documents(), owner=OWNER, default_topology=self.topology, kind=gang.frontend
                )
            except (SpecError, NotFoundError) as exc:
                self.refused[key] = versions
                log.warning("gang %s refused: %s", key, exc)
                continue
            self.refused.pop(key, None)
            self.workloads[key] = record.id
            self.whole_at[key] = now

    def topologies_changed(self) -> None:
        """A topology appeared, changed or went: the gangs refused so far are compiled again (one
        may have named a topology the cluster did not have yet)."""
        self.refused.clear()

    def ungate(
        self,
        gangs: Mapping[GangKey, GangPods],
        cache: Mapping[str, Object],
        nodes: Mapping[str, Node],
        now: float,
    ) -> None:
        """Record and ungate the pods of admitted gangs; end the gangs whose pods are gone."""
        for key, workload_id in sorted(self.workloads.items()):
            gang = gangs.get(key)
            try:
                record = self.scheduler.get(workload_id)
            except NotFoundError:
                self._forget(key)
                continue
            if gang is None:
                self._end(key, record)
                continue
            if not record.state.holds_capacity or not self.expectations.satisfied(key, cache, now):
                continue
            try:
                done = self.assigner.reconcile(key, gang, record, nodes, now)
            except KubeApiError as exc:  # this gang waits for the next pass; the others go on
                self.failed.append(exc.status)
                log.warning("gang %s: %s", key, exc)
                continue
            self.ungated += done.pods
            if isinstance(done.error, KubeApiError):  # the pods written count; the rest wait
                self.failed.append(done.error.status)
                log.warning("gang %s: %s", key, done.error)
            elif done.error is not None:
                raise done.error  # not leading any more, or a bug: the pass stops here
            if done.whole and key in self.whole_at:
                self.latencies.append(now - self.whole_at.pop(key))

    def evict(self, workload_ids: set[int], gangs: Mapping[GangKey, GangPods], now: float) -> None:
        """The scheduler evicted these workloads: evict their pods and cancel the workloads."""
        for key, workload_id in sorted(self.workloads.items()):
            if workload_id in workload_ids:
                try:
                    self._evict_pods(key, gangs.get(key) or GangPods(key), now)
                except KubeApiError as exc:  # cancelled all the same: its pods are evicted once re-read
                    self.failed.append(exc.status)
                    log.warning("gang %s: evicting its pods: %s", key, exc)
                self.scheduler.cancel(workload_id, actor=OWNER, admin=True)
                del self.workloads[key]
                self.whole_at.pop(key, None)  # its pods' expectations stay until the cache shows them

    # -- helpers ---------------------------------------------------------------------------------
    def _evict_pods(self, key: GangKey, gang: GangPods, now: float) -> None:
        """Delete the ungated pods (their owners recreate them, gated) and clear the records of
        the gated ones: the gang is placed afresh once whole again."""
        for pod in gang.pods:
            self.assigner.unassign(key, pod, now)

    def _end(self, key: GangKey, record: WorkloadRecord) -> None:
        """No live pod of the gang is left: it finished (or was deleted)."""
        if record.state.holds_capacity:
            self.scheduler.finish(record.id, actor=OWNER)
        elif record.state is WorkloadState.PENDING:
            self.scheduler.cancel(record.id, actor=OWNER, admin=True)
        self._forget(key)

    def _forget(self, key: GangKey) -> None:
        """Drop everything kept about a gang that ended, so memory does not grow per gang run."""
        self.workloads.pop(key, None)
        self.whole_at.pop(key, None)
        self.expectations.forget(key)
