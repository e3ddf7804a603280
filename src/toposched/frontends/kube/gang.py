"""The linked kube documents as the IR (``Semantics.KUBE``).

The root is an unconstrained group without a minimum; its children are, in document order, one
group per top-level PodGroup and CompositePodGroup, named after it. A CompositePodGroup's
children come in kube-scheduler's order: by ``metadata.creationTimestamp``, then name (objects
without one, not created yet, as if created together: by name). A PodGroup's group requires
its constraint's node label (a topology level) and ``min_member`` = the gang's minCount (1 for
basic); its pods come in index order (Job completion index, else pod index, else name). A
CompositePodGroup's group requires its key, ``min_sub_group`` = minGroupCount (None for basic),
and holds its PodGroups and CompositePodGroups. kube-scheduler places each top-level child on its
own; the engine reads that from the semantics.

Constraint keys are raw node labels, as kube-scheduler reads them: a PodGroup with key K may use
every node that carries K, whatever its other labels (hostname included), and one without a
constraint every node; NotReady and cordoned nodes belong too, kept off by the taints they
carry (``Topology.every_node``), as kube-scheduler counts them in a placement. So each key is the one level of a topology of its
own, ``kube-<key>-<hash>`` (the hash keeps two keys that read alike apart), and the gang's root is
on ``kube.all-nodes``, whose one level is the node's name; the input brings these topologies.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toposched.frontends.kube.load import KubeDocuments, LinkedPod, pod_shape
from toposched.model import (
    Gang,
    Group,
    PodSpec,
    Policy,
    Problem,
    Semantics,
    Topology,
    WorkloadSpecError,
)
from toposched.model.node import NODE_LEVEL
from toposched.wire.scheduling import CompositePodGroup, PodGroup

_NOT_DNS = re.compile(r"[^a-z0-9-]+")
_DIGITS = re.compile(r"(\d+)")


ALL_NODES = "kube.all-nodes"


@dataclass(frozen=True, slots=True)
class Levels:
    """The topologies of a gang: ``kube.all-nodes`` for the gang, one per key for its groups."""

    gang_topology: str
    per_key: Mapping[str, str]  # key -> topology name
    brought: tuple[Topology, ...]


def all_nodes() -> Topology:
    """Every schedulable node, one domain each: a group without a constraint."""
    return Topology.create(ALL_NODES, [NODE_LEVEL], every_node=True)


def own_topology(key: str) -> Topology:
    """The topology of one constraint key: the key alone (nodes without it are outside)."""
    slug = _NOT_DNS.sub("-", key.lower()).strip("-")[:200].rstrip("-") or "level"
    digest = hashlib.sha256(key.encode()).hexdigest()[:8]
    return Topology.create(f"kube-{slug}-{digest}", [key], every_node=True)


def choose_levels(keys: Sequence[str]) -> Levels:
    """The gang's topologies: every node for the gang, one topology per key."""
    own = {key: own_topology(key) for key in keys}
    return Levels(ALL_NODES, {k: t.name for k, t in own.items()}, (all_nodes(), *own.values()))


def to_gang(found: KubeDocuments, kind: str) -> tuple[Gang, Levels]:
    """The gang of the linked documents and the topologies it brings."""
    keys: list[str] = []
    for key in [g.settings.key for g in found.pod_groups] + [c.key for c in found.composites]:
        if key is not None and key not in keys:
            keys.append(key)
    levels = choose_levels(keys)
    problems: list[Problem] = []
    groups = {g.name: g for g in found.pod_groups}
    composites = {c.name: c for c in found.composites}

    def topology_of(key: str | None) -> str | None:
        return levels.per_key.get(key) if key is not None else None

    def pod_group(group: PodGroup) -> Group:
        settings = group.settings
        return Group(
            group.name,
            required=settings.key,
            min_member=settings.min_count if settings.min_count is not None else 1,
            pods=_pods(found.pods[group.name], problems),
            topology=topology_of(settings.key),
        )

    def composite(node: CompositePodGroup) -> Group:
        mine = [name for name in found.order if _parent(name, groups, composites) == node.name]
        # kube-scheduler takes a CompositePodGroup's children by creation time, then name
        # (PodGroupInfo.GetChildGroups); objects not created yet count as created together.
        children = tuple(build(name) for name in sorted(mine, key=lambda n: (found.created.get(n, ""), n)))
        return Group(
            node.name,
            required=node.key,
            min_sub_group=node.min_group_count,
            children=children,
            topology=topology_of(node.key),
        )

    def build(name: str) -> Group:
        return pod_group(groups[name]) if name in groups else composite(composites[name])

    top = tuple(build(name) for name in found.order if _parent(name, groups, composites) is None)
    if problems:
        raise WorkloadSpecError(problems)
    name = found.workloads[0].name if found.workloads else found.order[0]
    namespace = found.workloads[0].namespace if found.workloads else found.pod_groups[0].namespace
    priorities = [g.settings.priority for g in found.pod_groups if g.settings.priority is not None]
    gang = Gang(
        name,
        Group(name, children=top),
        namespace=namespace,
        topology=levels.gang_topology,
        priority=max(priorities, default=0),
        kind=kind,
        default_policy=Policy.BINPACK,  # kube-scheduler's placement score: the fullest feasible domain
        semantics=Semantics.KUBE,
    )
    return gang, levels


def _parent(
    name: str, groups: Mapping[str, PodGroup], composites: Mapping[str, CompositePodGroup]
) -> str | None:
    return groups[name].parent if name in groups else composites[name].parent


def _pods(pods: list[LinkedPod], problems: list[Problem]) -> tuple[PodSpec, ...]:
    """The group's pods in index order, read as the engine needs them. A pod object read once:
    a Job's pods are one object under many names."""
    keyed = sorted(pods, key=_order)
    read: dict[int, tuple[Any, ...] | None] = {}  # by id(pod object): what the engine needs of it
    out: list[PodSpec] = []
    for position, pod in enumerate(keyed):
        shape = read.get(id(pod.obj), _UNREAD)
        if shape is _UNREAD:
            shape = read[id(pod.obj)] = pod_shape(pod, problems)
        if shape is None:
            continue
        requests, tolerations, selector, node, spec = shape
        index = pod.index if pod.index is not None else position
        out.append(PodSpec(pod.name, index, requests, tolerations, selector, node, template=spec))
    return tuple(out)


_UNREAD: tuple[Any, ...] = ()


def _order(pod: LinkedPod) -> tuple[int, int, tuple[Any, ...]]:
    if pod.index is not None:
        return 0, pod.index, ()
    return 1, 0, tuple(int(part) if part.isdigit() else part for part in _DIGITS.split(pod.name))
