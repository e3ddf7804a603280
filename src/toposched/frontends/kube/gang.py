"""The linked kube documents as the IR (``Semantics.KUBE``).

The root is an unconstrained group without a minimum; its children are, in document order, one
group per top-level PodGroup and CompositePodGroup, named after it. A PodGroup's group requires
its constraint's node label (a topology level) and ``min_member`` = the gang's minCount (1 for
basic); its pods come in index order (Job completion index, else pod index, else name). A
CompositePodGroup's group requires its key, ``min_sub_group`` = minGroupCount (None for basic),
and holds its PodGroups and CompositePodGroups. kube-scheduler places each top-level child on its
own; the engine reads that from the semantics.

Constraint keys are raw node labels. They become levels of the first known topology that has
them all; a key no known topology has gets a topology of its own, ``kube-<key>`` with levels
[key, hostname], which the input brings (nodes without the label then hold no pods).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toposched.frontends.kube.load import KubeDocuments, LinkedPod
from toposched.model import (
    Gang,
    Group,
    PodSpec,
    Policy,
    Problem,
    Semantics,
    SpecError,
    Topology,
    WorkloadSpecError,
)
from toposched.model.lenient import mapping, text
from toposched.model.podspec import effective_requests, parse_tolerations
from toposched.model.topology import HOSTNAME
from toposched.wire.scheduling import JOB_COMPLETION_INDEX, POD_INDEX, CompositePodGroup, PodGroup

_NOT_DNS = re.compile(r"[^a-z0-9-]+")
_DIGITS = re.compile(r"(\d+)")


@dataclass(frozen=True, slots=True)
class Levels:
    """Which topology each constraint key is a level of."""

    gang_topology: str | None
    per_key: Mapping[str, str]  # key -> topology name, when keys live on different topologies
    brought: tuple[Topology, ...]
    warnings: tuple[str, ...]


def own_topology(key: str) -> Topology:
    """The topology a key no known topology has: the key over hostname."""
    slug = _NOT_DNS.sub("-", key.lower()).strip("-")[:240].rstrip("-") or "level"
    levels = [key] if key == HOSTNAME else [key, HOSTNAME]
    return Topology.create(f"kube-{slug}", levels)


def choose_levels(keys: Sequence[str], catalog: Sequence[Topology]) -> Levels:
    """The known topology that has every key, else one per key (known, or our own)."""
    if not keys:
        if catalog:
            return Levels(None, {}, (), ())
        own = own_topology(HOSTNAME)
        note = f"no topology is known; the gang uses {own.name!r} (one level, {HOSTNAME})"
        return Levels(own.name, {}, (own,), (note,))
    for topology in catalog:
        if all(k in topology.levels for k in keys):
            if topology == own_topology(keys[0]):  # ours, chosen when the input was first read
                return Levels(topology.name, {}, (topology,), (_brought_note(keys[0], topology),))
            return Levels(topology.name, {}, (), ())
    per_key: dict[str, str] = {}
    brought_list: list[Topology] = []
    warnings: list[str] = []
    for key in keys:
        found = next((t for t in catalog if key in t.levels), None)
        if found is None or found == own_topology(key):
            found = own_topology(key)
            brought_list.append(found)
            warnings.append(_brought_note(key, found))
        per_key[key] = found.name
    names = set(per_key.values())
    if len(names) == 1:
        return Levels(names.pop(), {}, tuple(brought_list), tuple(warnings))
    return Levels(per_key[keys[0]], per_key, tuple(brought_list), tuple(warnings))


def _brought_note(key: str, topology: Topology) -> str:
    return (
        f"no known topology has the node label {key!r}; using topology {topology.name!r} with levels "
        f"{', '.join(topology.levels)} (nodes without the label are not used)"
    )


def to_gang(found: KubeDocuments, catalog: Sequence[Topology], kind: str) -> tuple[Gang, Levels]:
    """The gang of the linked documents and the topologies its keys are levels of."""
    keys: list[str] = []
    for key in [g.settings.key for g in found.pod_groups] + [c.key for c in found.composites]:
        if key is not None and key not in keys:
            keys.append(key)
    levels = choose_levels(keys, catalog)
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
        children = tuple(
            build(name) for name in found.order if _parent(name, groups, composites) == node.name
        )
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
        policy=Policy.BINPACK,  # kube-scheduler's placement score: the fullest feasible domain
        semantics=Semantics.KUBE,
    )
    return gang, levels


def _parent(
    name: str, groups: Mapping[str, PodGroup], composites: Mapping[str, CompositePodGroup]
) -> str | None:
    return groups[name].parent if name in groups else composites[name].parent


def _pods(pods: list[LinkedPod], problems: list[Problem]) -> tuple[PodSpec, ...]:
    """The group's pods in index order, read as the engine needs them."""
    ordered = sorted(pods, key=_order)
    out: list[PodSpec] = []
    for position, pod in enumerate(ordered):
        spec = mapping(pod.obj.get("spec"))
        path = f"{pod.path}.spec" if pod.path else "spec"
        try:
            requests = effective_requests(spec, path=path)
            tolerations = parse_tolerations(spec.get("tolerations"), path=f"{path}.tolerations")
        except SpecError as exc:
            problems.extend(exc.problems)
            continue
        index = _index(pod.obj)
        node = spec.get("nodeName")
        out.append(
            PodSpec(
                name=pod.name,
                index=index if index is not None else position,
                requests=requests,
                tolerations=tolerations,
                node_selector={str(k): str(v) for k, v in mapping(spec.get("nodeSelector")).items()},
                node=node if isinstance(node, str) and node else None,
                template=spec,
            )
        )
    return tuple(out)


def _index(pod: Mapping[str, Any]) -> int | None:
    """The pod's index: the Job completion index, else the pod index (label or annotation)."""
    metadata = mapping(pod.get("metadata"))
    for key in (JOB_COMPLETION_INDEX, POD_INDEX):
        for source in (mapping(metadata.get("labels")), mapping(metadata.get("annotations"))):
            raw = source.get(key)
            value = str(raw) if isinstance(raw, int) and not isinstance(raw, bool) else text(raw)
            if value.isascii() and value.isdigit():
                return int(value)
    return None


def _order(pod: LinkedPod) -> tuple[int, int, tuple[Any, ...]]:
    index = _index(pod.obj)
    if index is not None:
        return 0, index, ()
    return 1, 0, tuple(int(part) if part.isdigit() else part for part in _DIGITS.split(pod.name))
