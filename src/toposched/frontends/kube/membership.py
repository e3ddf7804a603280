"""Upstream Kubernetes gangs in a running cluster: a pod names its ``scheduling.k8s.io`` PodGroup
by ``spec.schedulingGroup.podGroupName`` (1.35's ``spec.workloadRef`` names a Workload's template
instead, whose PodGroup is ``<workload>-<template>``).

Each PodGroup without a parent is a gang of its own, as kube-scheduler schedules each PodGroup
independently: whole when it exists and has at least its gang ``minCount`` pods (one for a
``basic`` group), as kube-scheduler's PreEnqueue waits; pods linked by ``workloadRef`` wait for
their Workload, whose template the front end makes the PodGroup from. The PodGroup (else that
Workload) is compiled with the pods; a PodGroup's ``workloadRef`` is informational.

The PodGroups under one root CompositePodGroup are one gang (``composites``), compiled with the
root's Workload, if cached, and the tree's objects.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from toposched.frontends.kube.composites import (
    PODGROUP_KEY,
    TREE_KEY,
    CompositeTree,
    CompositeTrees,
    composite_trees,
)
from toposched.frontends.membership import Completion, GangKey, GroupCaches, Object, kind_of, namespace_of
from toposched.wire.scheduling import (
    COMPOSITE_POD_GROUP,
    GROUP,
    POD_GROUP,
    WORKLOAD,
    read_pod_group,
    read_pod_link,
    read_workload,
    stamped_name,
)

PODGROUPS = kind_of(GROUP, POD_GROUP)
WORKLOADS = kind_of(GROUP, WORKLOAD)
COMPOSITES = kind_of(GROUP, COMPOSITE_POD_GROUP)


@dataclass(frozen=True, slots=True)
class KubePodGroups:
    """The membership rules of upstream PodGroups and CompositePodGroup trees."""

    frontend: str = "kube"
    keys: frozenset[str] = frozenset({PODGROUP_KEY, TREE_KEY})

    def over(self, caches: GroupCaches) -> _Grouping:
        return _Grouping(caches, composite_trees(caches.of(PODGROUPS), caches.of(COMPOSITES)))


@dataclass(frozen=True, slots=True)
class _Grouping:
    caches: GroupCaches
    trees: CompositeTrees

    def gang_of(self, pod: Object) -> GangKey | None:
        link = read_pod_link(pod)
        if link.pod_group is not None:
            name = link.pod_group
        elif link.workload is not None and link.template is not None:
            name = stamped_name(link.workload, link.template)
        else:
            return None
        return self.trees.key_of(GangKey(PODGROUP_KEY, namespace_of(pod), name))

    def complete(self, key: GangKey, pods: Sequence[Object]) -> Completion:
        return self._tree(key, pods) if key.membership == TREE_KEY else self._podgroup(key, pods)

    def _tree(self, key: GangKey, pods: Sequence[Object]) -> Completion:
        tree = self.trees.trees.get(key) or CompositeTree()
        stamped_from = tree.workload(key.name)
        workload = self.caches.get(WORKLOADS, key.namespace, stamped_from) if stamped_from else None
        heads = (*((workload,) if workload is not None else ()), *tree.objects())
        return Completion(heads=heads, missing=tree.missing(key.name, pods))

    def _podgroup(self, key: GangKey, pods: Sequence[Object]) -> Completion:
        podgroup = self.caches.get(PODGROUPS, key.namespace, key.name)
        linked = read_pod_link(pods[0]).workload if pods else None
        workload = self.caches.get(WORKLOADS, key.namespace, linked) if linked else None
        found = tuple(o for o in (podgroup, workload) if o is not None)
        need = _min_count(podgroup, workload, pods)
        missing: str | None
        if need is None:
            missing = f"PodGroup {key.namespace}/{key.name} (or its Workload template) does not exist yet"
        else:
            missing = None if len(pods) >= need else f"{len(pods)} of minCount {need} pods exist"
        # The PodGroup is compiled (else the Workload the pods name); both are read.
        return Completion(heads=found[:1], read=found[1:], missing=missing)


def _min_count(podgroup: Object | None, workload: Object | None, pods: Sequence[Object]) -> int | None:
    """An upstream gang's minCount (1 for a basic group); None while its PodGroup (or the
    Workload template its 1.35 pods name) does not exist."""
    if podgroup is not None:
        settings = read_pod_group(podgroup).settings
    else:
        template = read_pod_link(pods[0]).template if pods else None
        templates = read_workload(workload).pod_groups if workload is not None else ()
        found = next((t for t in templates if t.name == template), None)
        if found is None:
            return None
        settings = found
    return settings.min_count or 1
