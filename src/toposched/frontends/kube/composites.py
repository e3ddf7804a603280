"""CompositePodGroup trees (``scheduling.k8s.io/v1alpha3``) as one gang each.

A PodGroup naming a parent by ``spec.parentCompositePodGroupName`` is a leaf of a tree whose root
is the CompositePodGroup without a parent; CompositePodGroups nest the same way. kube-scheduler
places such a tree as one unit, so the pods of every PodGroup under one root are one gang, keyed
``GangKey("kube-composite", namespace, root)``. A tree is whole when its root exists, each of its
PodGroups has at least its ``minCount`` pods (one for ``basic``) and each gang CompositePodGroup
has at least ``minGroupCount`` children; only the objects that exist are compiled.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from toposched.frontends.membership import GangKey, Object, name_of, namespace_of
from toposched.wire.scheduling import read_composite_pod_group, read_pod_group, read_pod_link

PODGROUP_KEY = "kube"  # a gang of one upstream PodGroup (or a 1.35 Workload template's pods)
TREE_KEY = "kube-composite"  # a gang of every PodGroup under one root CompositePodGroup
MAX_DEPTH = 8  # deeper than the API allows (4): a longer chain is a cycle, and has no root


@dataclass(slots=True)
class CompositeTree:
    """The cached objects of one tree: its CompositePodGroups and PodGroups, by name."""

    composites: dict[str, Object] = field(default_factory=dict)
    podgroups: dict[str, Object] = field(default_factory=dict)

    def objects(self) -> list[Object]:
        """CompositePodGroups, then PodGroups, each by name: the order the front end reads them."""
        return [self.composites[n] for n in sorted(self.composites)] + [
            self.podgroups[n] for n in sorted(self.podgroups)
        ]

    def workload(self, root: str) -> str | None:
        """The Workload the root CompositePodGroup was stamped from, if it names one."""
        found = self.composites.get(root)
        return (read_composite_pod_group(found).workload or None) if found is not None else None

    def missing(self, root: str, pods: Iterable[Object]) -> str | None:
        """Why the tree is not whole yet (None: it is)."""
        if root not in self.composites:
            return f"CompositePodGroup {root} does not exist yet"
        have = Counter(read_pod_link(p).pod_group for p in pods)
        for name in sorted(self.podgroups):
            need = read_pod_group(self.podgroups[name]).settings.min_count or 1
            if have[name] < need:
                return f"PodGroup {name}: {have[name]} of minCount {need} pods exist"
        children = Counter(_parent(o) for o in [*self.composites.values(), *self.podgroups.values()])
        for name in sorted(self.composites):
            need = read_composite_pod_group(self.composites[name]).min_group_count or 0
            if children[name] < need:
                return f"CompositePodGroup {name}: {children[name]} of minGroupCount {need} children exist"
        return None


def _parent(obj: Object) -> str | None:
    parent = (obj.get("spec") or {}).get("parentCompositePodGroupName")
    return str(parent) if parent else None


@dataclass(frozen=True, slots=True)
class CompositeTrees:
    """Every tree in the caches, and the root each PodGroup with a parent belongs to."""

    trees: Mapping[GangKey, CompositeTree]
    roots: Mapping[str, GangKey]  # "namespace/podgroup" -> its tree's key

    def key_of(self, key: GangKey) -> GangKey:
        """The tree a pod's upstream PodGroup belongs to; ``key`` itself when it has no parent."""
        if key.membership != PODGROUP_KEY:
            return key
        return self.roots.get(f"{key.namespace}/{key.name}", key)


def composite_trees(podgroups: Mapping[str, Object], composites: Mapping[str, Object]) -> CompositeTrees:
    """The trees of the cached PodGroups and CompositePodGroups (each cache keyed ``ns/name``).

    A parent not cached yet stands in as the root until it appears, so its tree is not whole."""
    trees: dict[GangKey, CompositeTree] = {}
    roots: dict[str, GangKey] = {}

    def root_of(obj: Object) -> GangKey:
        namespace, name = namespace_of(obj), _parent(obj) or name_of(obj)
        for _ in range(MAX_DEPTH):
            above = composites.get(f"{namespace}/{name}")
            parent = _parent(above) if above is not None else None
            if parent is None:
                break
            name = parent
        return GangKey(TREE_KEY, namespace, name)

    for obj in composites.values():
        trees.setdefault(root_of(obj), CompositeTree()).composites[name_of(obj)] = obj
    for cached, obj in podgroups.items():
        if _parent(obj) is not None:
            key = roots[cached] = root_of(obj)
            trees.setdefault(key, CompositeTree()).podgroups[name_of(obj)] = obj
    return CompositeTrees(trees, roots)
