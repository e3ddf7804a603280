"""Grove objects: the ClusterTopology (``grove.io/v1alpha1``), read and written, the PodCliqueSet
(written; the Grove front end reads it) and the PodGang (``scheduler.grove.io/v1alpha1``).

A model ``Topology`` becomes a ClusterTopology by one rule: each level's domain is its alias, else
the last segment of its label key as a domain name, where ``hostname`` is the well-known domain
``host`` (``kubernetes.io/hostname`` → ``host``, the name Grove's schema gives that level).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from toposched.model import Problem, Topology, TopologySpecError
from toposched.model.lenient import items, mapping, text

GROVE_API = "grove.io/v1alpha1"
CLUSTER_TOPOLOGY_KIND = "ClusterTopology"
PODGANG_API = "scheduler.grove.io/v1alpha1"
PODGANG_KIND = "PodGang"
# Broadest first: the order the operator sorts configured levels into (pre-multi-topology Grove).
WELL_KNOWN_DOMAINS = ("region", "zone", "datacenter", "block", "rack", "host", "numa")
_NOT_DOMAIN = re.compile(r"[^a-z0-9-]")
# Label key segments that name a well-known domain differently (``kubernetes.io/hostname``).
_WELL_KNOWN_SEGMENTS = {"hostname": "host"}


@dataclass(frozen=True, slots=True)
class Level:
    """One topology level: the user-facing ``domain`` and the node label ``key`` holding it."""

    domain: str
    key: str


@dataclass(frozen=True, slots=True)
class SchedulerReference:
    """A scheduler backend bound to an externally managed backend topology."""

    scheduler: str
    topology: str


@dataclass(frozen=True, slots=True)
class ClusterTopology:
    name: str
    levels: tuple[Level, ...]
    references: tuple[SchedulerReference, ...] = ()
    labels: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def key_of(self, domain: str) -> str | None:
        """The node label key of a domain; None when this topology lacks the domain."""
        return next((level.key for level in self.levels if level.domain == domain), None)

    def depth(self, domain: str) -> int | None:
        """0 for the broadest level; None for an unknown domain."""
        return next((i for i, level in enumerate(self.levels) if level.domain == domain), None)

    def reference(self, scheduler: str) -> str | None:
        return next((r.topology for r in self.references if r.scheduler == scheduler), None)

    def to_topology(self) -> Topology:
        """The model topology: label keys broadest first, domains as aliases."""
        return Topology(
            self.name,
            tuple(level.key for level in self.levels),
            MappingProxyType({level.domain: level.key for level in self.levels}),
        )


def is_cluster_topology(doc: object) -> bool:
    return (
        isinstance(doc, Mapping)
        and doc.get("kind") == CLUSTER_TOPOLOGY_KIND
        and str(doc.get("apiVersion", "")).startswith("grove.io/")
    )


def parse_levels(raw: object) -> tuple[Level, ...]:
    """``[{domain, key}, ...]``; malformed entries read as empty strings, which admission reports."""
    return tuple(
        Level(text(mapping(level).get("domain")), text(mapping(level).get("key"))) for level in items(raw)
    )


def parse_cluster_topology(obj: Mapping[str, Any]) -> ClusterTopology:
    """A ClusterTopology object, read leniently (admission reports what is wrong)."""
    spec = mapping(obj.get("spec"))
    meta = mapping(obj.get("metadata"))
    # Upstream renamed the binding list; both spellings are read.
    raw_refs = spec.get("schedulerTopologyReferences") or spec.get("schedulerTopologyBindings")
    refs = tuple(
        SchedulerReference(text(mapping(r).get("schedulerName")), text(mapping(r).get("topologyReference")))
        for r in items(raw_refs)
    )
    labels = MappingProxyType({str(k): str(v) for k, v in mapping(meta.get("labels")).items()})
    return ClusterTopology(text(meta.get("name")), parse_levels(spec.get("levels")), refs, labels)


def domain_of(key: str) -> str:
    """The domain of a level without an alias: the key's last segment as a domain name
    (``example.com/nvl-block`` → ``nvl-block``), ``hostname`` read as Grove's ``host``."""
    segment = key.rsplit("/", 1)[-1].lower()
    return _WELL_KNOWN_SEGMENTS.get(segment) or _NOT_DOMAIN.sub("-", segment)


def domains_of(topology: Topology) -> list[Level]:
    """One level per label key, broadest first, each named by its alias else by ``domain_of``."""
    alias_of = {key: alias for alias, key in topology.aliases.items()}
    return [Level(alias_of.get(key) or domain_of(key), key) for key in topology.levels]


def cluster_topology_object(
    topology: Topology,
    *,
    labels: Mapping[str, str] | None = None,
    references: Sequence[SchedulerReference] = (),
) -> dict[str, Any]:
    """The ClusterTopology of a model topology; ``references`` bind scheduler backends.

    Raises ``TopologySpecError`` when two levels would share a domain (Grove requires unique ones).
    """
    levels = domains_of(topology)
    first: dict[str, Level] = {}
    for i, level in enumerate(levels):
        if level.domain in first:
            raise TopologySpecError(
                [
                    Problem(
                        f"spec.levels[{i}].domain",
                        f"topology {topology.name!r}: levels {first[level.domain].key!r} and {level.key!r} "
                        f"both have the domain {level.domain!r}",
                        f"give {level.key!r} an alias",
                    )
                ]
            )
        first[level.domain] = level
    metadata: dict[str, Any] = {"name": topology.name}
    if labels:
        metadata["labels"] = dict(labels)
    spec: dict[str, Any] = {"levels": [{"domain": lv.domain, "key": lv.key} for lv in levels]}
    if references:
        spec["schedulerTopologyReferences"] = [
            {"schedulerName": r.scheduler, "topologyReference": r.topology} for r in references
        ]
    return {"apiVersion": GROVE_API, "kind": "ClusterTopology", "metadata": metadata, "spec": spec}


def podgang_object(
    name: str,
    namespace: str,
    *,
    owner: Mapping[str, Any] | None,
    labels: Mapping[str, str],
    annotations: Mapping[str, str],
    spec: Mapping[str, Any],
) -> dict[str, Any]:
    """A PodGang; ``owner`` is its ``ownerReferences`` entry (the PodCliqueSet's controller
    reference), None for none. ``spec`` holds ``topologyConstraint``,
    ``topologyConstraintGroupConfigs``, ``podgroups`` and ``priorityClassName`` as Grove writes them."""
    metadata: dict[str, Any] = {
        "name": name,
        "namespace": namespace,
        "labels": dict(labels),
        "annotations": dict(annotations),
    }
    if owner is not None:
        metadata["ownerReferences"] = [dict(owner)]
    return {"apiVersion": PODGANG_API, "kind": "PodGang", "metadata": metadata, "spec": dict(spec)}


@dataclass(frozen=True, slots=True)
class Pack:
    """A ``topologyConstraint`` by domain names, written as ``pack.{required, preferred}``: Grove's
    CRD refuses the older ``packDomain`` (read as ``required``) on a new PodCliqueSet."""

    required: str | None = None
    preferred: str | None = None

    def to_object(self, topology: str | None = None) -> dict[str, Any] | None:
        """The constraint naming ``topology`` (``topologyName``), or None when nothing is packed."""
        pack = {
            mode: domain
            for mode, domain in (("required", self.required), ("preferred", self.preferred))
            if domain
        }
        if not pack:
            return None
        return {"topologyName": topology, "pack": pack} if topology else {"pack": pack}


NO_PACK = Pack()


@dataclass(frozen=True, slots=True)
class CliqueTemplate:
    """One ``cliques`` entry: ``replicas`` pods of one pod spec, ``min_available`` of them needed."""

    name: str
    replicas: int
    min_available: int
    pod_spec: Mapping[str, Any]
    pack: Pack = NO_PACK


@dataclass(frozen=True, slots=True)
class ScalingGroupTemplate:
    """One ``podCliqueScalingGroups`` entry: cliques scheduled together, ``replicas`` times."""

    name: str
    clique_names: tuple[str, ...]
    replicas: int = 1
    min_available: int = 1
    pack: Pack = NO_PACK


def podcliqueset_object(
    name: str,
    namespace: str,
    *,
    cluster_topology: str | None,
    cliques: Sequence[CliqueTemplate],
    scaling_groups: Sequence[ScalingGroupTemplate] = (),
    pack: Pack = NO_PACK,
    replicas: int = 1,
    labels: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """A PodCliqueSet whose constraints use the domains of ClusterTopology ``cluster_topology``;
    each clique's role is its name. GREP-369's draft names the topology once, in
    ``spec.template.clusterTopologyName``, which Grove's CRD does not have (the front end still
    reads it): Grove names it in each ``topologyConstraint`` (``topologyName``), required on the
    set's and inherited by the others, which may repeat it. It is written on every constraint, so
    a clique or scaling group constrained under an unconstrained set names it too."""
    template: dict[str, Any] = {}
    constraint = pack.to_object(cluster_topology)
    if constraint is not None:
        template["topologyConstraint"] = constraint
    template["cliques"] = [_clique(c, cluster_topology) for c in cliques]
    if scaling_groups:
        template["podCliqueScalingGroups"] = [_scaling_group(g, cluster_topology) for g in scaling_groups]
    metadata: dict[str, Any] = {"name": name, "namespace": namespace}
    if labels:
        metadata["labels"] = dict(labels)
    return {
        "apiVersion": GROVE_API,
        "kind": "PodCliqueSet",
        "metadata": metadata,
        "spec": {"replicas": replicas, "template": template},
    }


def _clique(clique: CliqueTemplate, topology: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {"name": clique.name}
    constraint = clique.pack.to_object(topology)
    if constraint is not None:
        out["topologyConstraint"] = constraint
    out["spec"] = {
        "roleName": clique.name,
        "replicas": clique.replicas,
        "minAvailable": clique.min_available,
        "podSpec": dict(clique.pod_spec),
    }
    return out


def _scaling_group(group: ScalingGroupTemplate, topology: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": group.name,
        "cliqueNames": list(group.clique_names),
        "replicas": group.replicas,
        "minAvailable": group.min_available,
    }
    constraint = group.pack.to_object(topology)
    if constraint is not None:
        out["topologyConstraint"] = constraint
    return out
