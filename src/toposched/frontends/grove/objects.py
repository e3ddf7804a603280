"""Grove objects as plain typed data: OperatorConfiguration, PodCliqueSet (the ClusterTopology is
read by ``toposched.wire.grove``).

Parsing is lenient (missing fields take Grove's defaults); admission reports what is wrong.
The topology reference follows GREP-369 (``spec.template.clusterTopologyName``); upstream's
``topologyConstraint.topologyName`` is read as an alias: the set's, else the first a scaling group
or clique names (Grove requires every name in a PodCliqueSet to be the same; admission checks).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from toposched.model.lenient import items, mapping, text
from toposched.wire.grove import WELL_KNOWN_DOMAINS, Level, parse_levels

DEFAULT_TOPOLOGY = "grove-topology"
KAI_SCHEDULER = "kai-scheduler"
TOPOLOGY_AWARE_BACKENDS = frozenset({KAI_SCHEDULER})
MANAGED_BY = "app.kubernetes.io/managed-by"
OPERATOR = "grove-operator"


def _count(raw: object, default: int) -> int:
    return raw if isinstance(raw, int) and not isinstance(raw, bool) else default


def _labels(raw: object) -> Mapping[str, str]:
    return MappingProxyType({str(k): str(v) for k, v in mapping(raw).items()})


@dataclass(frozen=True, slots=True)
class OperatorConfig:
    tas_enabled: bool = False
    levels: tuple[Level, ...] = ()
    backends: tuple[str, ...] = (KAI_SCHEDULER,)

    @property
    def default_levels(self) -> tuple[Level, ...]:
        """Configured levels in canonical order (broadest first); unknown domains keep their
        relative order after the well-known ones."""
        rank = {domain: i for i, domain in enumerate(WELL_KNOWN_DOMAINS)}
        return tuple(sorted(self.levels, key=lambda lv: rank.get(lv.domain, len(rank))))


def parse_operator_config(raw: Mapping[str, Any] | None) -> OperatorConfig:
    """An ``OperatorConfiguration``; None means TAS disabled with the KAI backend."""
    data = mapping(raw)
    tas = mapping(data.get("topologyAwareScheduling"))
    profiles = [text(mapping(p).get("name")) for p in items(mapping(data.get("scheduler")).get("profiles"))]
    return OperatorConfig(
        tas_enabled=tas.get("enabled") is True,
        levels=parse_levels(tas.get("levels")),
        backends=tuple(profiles) if profiles else (KAI_SCHEDULER,),
    )


@dataclass(frozen=True, slots=True)
class Constraint:
    """A ``topologyConstraint``: ``packDomain`` (= required) or ``pack.{required, preferred}``."""

    pack_domain: str | None = None
    pack_required: str | None = None
    pack_preferred: str | None = None
    has_pack: bool = False
    topology_name: str | None = None  # upstream alias of clusterTopologyName

    @property
    def required(self) -> str | None:
        return self.pack_required or self.pack_domain

    @property
    def preferred(self) -> str | None:
        return self.pack_preferred

    def describe(self) -> str:
        return f"required={self.required or ''} preferred={self.preferred or ''}"

    def same_placement(self, other: Constraint) -> bool:
        return (self.required, self.preferred) == (other.required, other.preferred)


def parse_constraint(raw: object) -> Constraint | None:
    if not isinstance(raw, Mapping):
        return None
    pack = raw.get("pack")
    pack_map = mapping(pack)
    return Constraint(
        pack_domain=text(raw.get("packDomain")) or None,
        pack_required=text(pack_map.get("required")) or None,
        pack_preferred=text(pack_map.get("preferred")) or None,
        has_pack=isinstance(pack, Mapping),
        topology_name=text(raw.get("topologyName")) or None,
    )


@dataclass(frozen=True, slots=True)
class Clique:
    name: str
    replicas: int
    min_available: int
    constraint: Constraint | None
    labels: Mapping[str, str]
    pod_spec: Mapping[str, Any]

    @property
    def scheduler_name(self) -> str:
        return text(self.pod_spec.get("schedulerName")) or KAI_SCHEDULER


@dataclass(frozen=True, slots=True)
class ScalingGroup:
    name: str
    clique_names: tuple[str, ...]
    replicas: int
    min_available: int
    constraint: Constraint | None


@dataclass(frozen=True, slots=True)
class PodCliqueSet:
    name: str
    namespace: str
    replicas: int
    topology_name: str | None  # explicit reference (clusterTopologyName or its alias)
    constraint: Constraint | None
    cliques: tuple[Clique, ...]
    scaling_groups: tuple[ScalingGroup, ...]
    labels: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    annotations: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    priority_class: str = ""
    uid: str = ""  # set once the object exists in a cluster (owner references need it)

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def constraints(self) -> list[Constraint]:
        found = [self.constraint] + [c.constraint for c in self.cliques]
        found += [g.constraint for g in self.scaling_groups]
        return [c for c in found if c is not None]

    @property
    def has_constraint(self) -> bool:
        return bool(self.constraints())

    def resolved_topology(self) -> str | None:
        """GREP-369: an explicit name wins; a constraint without a name uses the default;
        no constraint anywhere means no topology."""
        if self.topology_name:
            return self.topology_name
        return DEFAULT_TOPOLOGY if self.has_constraint else None

    def group_of(self, clique: str) -> ScalingGroup | None:
        return next((g for g in self.scaling_groups if clique in g.clique_names), None)

    def clique(self, name: str) -> Clique | None:
        return next((c for c in self.cliques if c.name == name), None)


def parse_podcliqueset(obj: Mapping[str, Any]) -> PodCliqueSet:
    meta = mapping(obj.get("metadata"))
    spec = mapping(obj.get("spec"))
    template = mapping(spec.get("template"))
    constraint = parse_constraint(template.get("topologyConstraint"))
    cliques = []
    for raw in items(template.get("cliques")):
        c = mapping(raw)
        cspec = mapping(c.get("spec"))
        replicas = _count(cspec.get("replicas"), 1)
        cliques.append(
            Clique(
                name=text(c.get("name")),
                replicas=replicas,
                min_available=_count(cspec.get("minAvailable"), replicas),
                constraint=parse_constraint(c.get("topologyConstraint")),
                labels=_labels(c.get("labels")),
                pod_spec=mapping(cspec.get("podSpec")),
            )
        )
    groups = []
    for raw in items(template.get("podCliqueScalingGroups")):
        g = mapping(raw)
        groups.append(
            ScalingGroup(
                name=text(g.get("name")),
                clique_names=tuple(text(n) for n in items(g.get("cliqueNames"))),
                replicas=_count(g.get("replicas"), 1),
                min_available=_count(g.get("minAvailable"), 1),
                constraint=parse_constraint(g.get("topologyConstraint")),
            )
        )
    constraints = (constraint, *(c.constraint for c in cliques), *(g.constraint for g in groups))
    named = (c.topology_name for c in constraints if c is not None and c.topology_name)
    name = text(template.get("clusterTopologyName")) or next(named, None)
    return PodCliqueSet(
        name=text(meta.get("name")),
        namespace=text(meta.get("namespace")) or "default",
        replicas=_count(spec.get("replicas"), 1),
        topology_name=name or None,
        constraint=constraint,
        cliques=tuple(cliques),
        scaling_groups=tuple(groups),
        labels=_labels(meta.get("labels")),
        annotations=_labels(meta.get("annotations")),
        priority_class=text(template.get("priorityClassName")),
        uid=text(meta.get("uid")),
    )
