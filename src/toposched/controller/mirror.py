"""The informer caches mirrored into the scheduler: Nodes (with the pods other schedulers bound
to them, which use their capacity) and Topology objects (KAI, Kueue, Grove ClusterTopology).

Changes are applied through the scheduler's own cluster verbs (``import_cluster``,
``delete_node``, ``put_topology``, ``delete_topology``), so NotReady clocks, taint clocks and
deletions follow the service's rules. Objects the cluster front end refuses are skipped with a
logged warning; one bad object never stops the mirror.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from toposched.controller.gangs import is_managed
from toposched.controller.informer import Change, ChangeType
from toposched.controller.kubeapi import NODES, PODS, Object
from toposched.intake.cluster import cluster_from_objects
from toposched.model import Cluster, ConflictError, Node, NotFoundError, RunningPod, SpecError
from toposched.scheduler import Scheduler

log = logging.getLogger(__name__)


@dataclass(slots=True)
class Mirror:
    """What the scheduler was told about the cluster."""

    scheduler: Scheduler
    nodes: set[str] = field(default_factory=set)
    pod_nodes: dict[str, str] = field(default_factory=dict)  # external pod key -> node

    def apply(
        self, changes: Iterable[Change], nodes: Mapping[str, Object], pods: Mapping[str, Object]
    ) -> None:
        """Fold one round of changes in: nodes and the nodes whose external pods changed are
        imported together, deletions and topologies one by one."""
        dirty: set[str] = set()
        for change in changes:
            if change.resource == NODES:
                name = change.key
                if change.type is ChangeType.DELETE:
                    dirty.discard(name)
                    self._delete_node(name)
                else:
                    dirty.add(name)
            elif change.resource == PODS:
                old = self.pod_nodes.pop(change.key, None)
                dirty.update(n for n in (old,) if n is not None)
                bound = _external_node(change.object) if change.type is ChangeType.UPSERT else None
                if bound is not None:
                    self.pod_nodes[change.key] = bound
                    dirty.add(bound)
            elif change.type is ChangeType.DELETE:
                self._delete_topology(change.object)
            else:
                self._put_topology(change.object)
        present = sorted(n for n in dirty if n in nodes)
        if present:
            self._import(present, nodes, pods)

    def _import(self, names: list[str], nodes: Mapping[str, Object], pods: Mapping[str, Object]) -> None:
        wanted = set(names)
        objects = [nodes[n] for n in names]
        objects += [pods[k] for k, n in sorted(self.pod_nodes.items()) if n in wanted and k in pods]
        try:
            cluster, _ = cluster_from_objects(objects, source="watch")
        except SpecError as exc:  # parse one by one, keep the good ones
            cluster = self._one_by_one(objects, exc)
        self.scheduler.import_cluster(Cluster.create(cluster.nodes, cluster.pods))
        self.nodes.update(n.name for n in cluster.nodes)

    def _one_by_one(self, objects: list[Object], first: SpecError) -> Cluster:
        log.warning("cluster objects refused: %s", first)
        kept_nodes: list[Node] = []
        kept_pods: list[RunningPod] = []
        for obj in objects:
            try:
                one, _ = cluster_from_objects([obj], source="watch")
            except SpecError as exc:
                log.warning("cluster object refused: %s", exc)
                continue
            kept_nodes += one.nodes
            kept_pods += one.pods
        return Cluster.create(kept_nodes, kept_pods)

    def _delete_node(self, name: str) -> None:
        if name in self.nodes:
            self.nodes.discard(name)
            self.scheduler.delete_node(name)

    def _put_topology(self, obj: Object) -> None:
        try:
            cluster, _ = cluster_from_objects([obj], source="watch")
            for topology in cluster.topologies:
                self.scheduler.put_topology(topology)
        except (SpecError, ConflictError) as exc:
            log.warning("topology object refused: %s", exc)

    def _delete_topology(self, obj: Object) -> None:
        name = str((obj.get("metadata") or {}).get("name", ""))
        try:
            self.scheduler.delete_topology(name)
        except (NotFoundError, ConflictError) as exc:
            log.warning("topology %s kept: %s", name, exc)


def _external_node(pod: Object) -> str | None:
    """The node a pod uses capacity on when toposched did not place it (None otherwise)."""
    node = (pod.get("spec") or {}).get("nodeName")
    phase = (pod.get("status") or {}).get("phase")
    if not node or phase in ("Succeeded", "Failed") or is_managed(pod):
        return None
    return str(node)
