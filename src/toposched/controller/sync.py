"""``--mode sync``: the OSMO seed's backend sync, and Grove's topologies, kept in the cluster.

From the service's store, each step writes:

* KAI ``Topology`` objects, one per KAI-backed pool with topology keys, as
  ``frontends.osmo.sync_topologies`` plans them (a Topology is immutable: a changed one is
  deleted and written again; a backend's stale ones are deleted);
* the KAI ``PodGroup`` objects of every submitted OSMO workflow still queued or running, as the
  OSMO front end compiles them (through the registry, via ``Scheduler.compiled``);
* a Grove ``ClusterTopology`` per stored topology (``wire.grove.cluster_topology_object``).

Every object comes from the existing front-end and wire code and is written by server-side
apply as field manager ``toposched``; an object equal to the one last applied is not sent again.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from toposched.controller.informer import typed
from toposched.controller.keys import FIELD_MANAGER
from toposched.controller.kubeapi import (
    GROVE_CLUSTER_TOPOLOGIES,
    KAI_PODGROUPS,
    KAI_TOPOLOGIES,
    ApiNotFoundError,
    KubeApi,
    Resource,
)
from toposched.controller.retry import Retry
from toposched.frontends.osmo import Op, Pool, sync_topologies
from toposched.model import SpecError, ToposchedError
from toposched.scheduler import Scheduler
from toposched.scheduler.pools import stored_pool
from toposched.store import WorkloadState
from toposched.wire.grove import cluster_topology_object

log = logging.getLogger(__name__)

LIVE = (WorkloadState.PENDING, WorkloadState.ADMITTED, WorkloadState.RUNNING)


@dataclass(frozen=True, slots=True)
class SyncReport:
    """What one step wrote (``plural/namespace/name``) and deleted, and what it skipped and why."""

    applied: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()


@dataclass(slots=True)
class SyncController:
    api: KubeApi
    scheduler: Scheduler
    retry: Retry = field(default_factory=Retry)
    last: dict[str, str] = field(default_factory=dict)  # object id -> JSON last applied
    _applied: list[str] = field(default_factory=list)
    _deleted: list[str] = field(default_factory=list)
    _skipped: list[str] = field(default_factory=list)

    def close(self) -> None:
        """Nothing to stop: a step holds no threads or connections of its own."""

    def step(self) -> SyncReport:
        self._applied, self._deleted, self._skipped = [], [], []
        pools = [stored_pool(record) for record in self.scheduler.store.list_pools()]
        self._kai_topologies(pools)
        self._podgroups()
        self._cluster_topologies()
        return SyncReport(tuple(self._applied), tuple(self._deleted), tuple(self._skipped))

    def _kai_topologies(self, pools: list[Pool]) -> None:
        if not pools:
            return
        existing = [typed(KAI_TOPOLOGIES, o) for o in self.api.list(KAI_TOPOLOGIES).items]
        backends = {pool.backend.name: pool.backend for pool in pools}
        for name in sorted(backends):
            for op in sync_topologies(backends[name], pools, existing):
                if op.op is Op.DELETE:
                    self._delete(KAI_TOPOLOGIES, op.name)
                else:
                    self._apply(KAI_TOPOLOGIES, op.obj)

    def _podgroups(self) -> None:
        for record in self.scheduler.store.list_workloads(states=LIVE):
            if record.pool == "":
                continue  # not an OSMO workflow
            try:
                compiled = self.scheduler.compiled(record.id)
            except ToposchedError as exc:
                self._skipped.append(f"workload {record.id}: {exc}")
                continue
            for objects in compiled.objects:
                for podgroup in _podgroups_of(objects):
                    self._apply(KAI_PODGROUPS, podgroup)

    def _cluster_topologies(self) -> None:
        for topology in self.scheduler.store.list_topologies():
            try:
                obj = cluster_topology_object(topology)
            except SpecError as exc:
                self._skipped.append(f"topology {topology.name}: {exc}")
                continue
            self._apply(GROVE_CLUSTER_TOPOLOGIES, obj)

    def _apply(self, resource: Resource, obj: Mapping[str, Any]) -> None:
        ident = _ident(resource, obj)
        text = json.dumps(obj, sort_keys=True)
        if self.last.get(ident) == text:
            return
        self.retry(lambda: self.api.apply(resource, obj, field_manager=FIELD_MANAGER, force=True))
        self.last[ident] = text
        self._applied.append(ident)

    def _delete(self, resource: Resource, name: str) -> None:
        with contextlib.suppress(ApiNotFoundError):  # gone already
            self.retry(lambda: self.api.delete(resource, name))
        ident = f"{resource.plural}/{name}"
        self.last.pop(ident, None)
        self._deleted.append(ident)


def _podgroups_of(objects: Mapping[str, Any]) -> Iterable[Mapping[str, Any]]:
    """The PodGroups of the OSMO front end's output (``{podGroups: {group: PodGroup}, ...}``)."""
    groups = objects.get("podGroups")
    return list(groups.values()) if isinstance(groups, Mapping) else []


def _ident(resource: Resource, obj: Mapping[str, Any]) -> str:
    metadata = obj.get("metadata") or {}
    namespace = metadata.get("namespace")
    name = metadata.get("name", "")
    return f"{resource.plural}/{namespace}/{name}" if namespace else f"{resource.plural}/{name}"
