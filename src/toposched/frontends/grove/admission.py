"""Admission for Grove objects: the PodCliqueSet and ClusterTopology webhooks of GREP-369 plus the
CRD rules upstream enforces, and the OperatorConfiguration checks. Pure: the caller passes the
stored objects and the bound-pod counts; the topology registry calls the same function."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from toposched.frontends.grove.checks import Located, T, constraint_problems, located, pod_template_problems
from toposched.frontends.grove.hierarchy import domain_problems, hierarchy_problems, redundancy_warnings
from toposched.frontends.grove.objects import (
    DEFAULT_TOPOLOGY,
    MANAGED_BY,
    TOPOLOGY_AWARE_BACKENDS,
    Constraint,
    OperatorConfig,
    PodCliqueSet,
    parse_operator_config,
    parse_podcliqueset,
)
from toposched.model import Problem, SpecError, TopologySpecError, WorkloadSpecError, is_label_key
from toposched.model.names import metadata_problems
from toposched.wire.grove import WELL_KNOWN_DOMAINS, ClusterTopology, Level, parse_cluster_topology

DOMAIN_PATTERN = re.compile(r"^[a-z][a-z0-9-]*$")
MAX_NAME = 63


class Resource(StrEnum):
    CLUSTER_TOPOLOGY = "ClusterTopology"
    PODCLIQUESET = "PodCliqueSet"
    OPERATOR_CONFIGURATION = "OperatorConfiguration"


class Operation(StrEnum):
    CREATE = "create"
    UPDATE = "update"


@dataclass(frozen=True, slots=True)
class Admission:
    """The webhook's answer: problems (field path first) reject; warnings accompany acceptance."""

    accepted: bool
    problems: tuple[Problem, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def message(self) -> str:
        return "; ".join(str(p) for p in self.problems)

    def raise_if_rejected(self, resource: Resource | str) -> None:
        """Raise the typed spec error of the resource when rejected."""
        if self.accepted:
            return
        if resource == Resource.PODCLIQUESET:
            raise WorkloadSpecError(self.problems)
        if resource == Resource.CLUSTER_TOPOLOGY:
            raise TopologySpecError(self.problems)
        raise SpecError(self.problems)


def _answer(problems: Iterable[Problem], warnings: Iterable[str] = ()) -> Admission:
    found = tuple(problems)
    return Admission(not found, found, tuple(warnings))


def topologies_of(existing: Iterable[object]) -> dict[str, ClusterTopology]:
    """ClusterTopologies among stored objects (raw objects of kind ClusterTopology or parsed)."""
    found: dict[str, ClusterTopology] = {}
    for obj in existing:
        if isinstance(obj, ClusterTopology):
            found[obj.name] = obj
        elif isinstance(obj, Mapping) and obj.get("kind") == Resource.CLUSTER_TOPOLOGY:
            topology = parse_cluster_topology(obj)
            found[topology.name] = topology
    return found


def podcliquesets_of(existing: Iterable[object]) -> list[PodCliqueSet]:
    found: list[PodCliqueSet] = []
    for obj in existing:
        if isinstance(obj, PodCliqueSet):
            found.append(obj)
        elif isinstance(obj, Mapping) and obj.get("kind") == Resource.PODCLIQUESET:
            found.append(parse_podcliqueset(obj))
    return found


def admit(
    resource: Resource | str,
    operation: Operation | str,
    obj: Mapping[str, Any],
    old: Mapping[str, Any] | None = None,
    existing: Iterable[object] = (),
    operator_config: Mapping[str, Any] | OperatorConfig | None = None,
    scheduled_pods: Mapping[str, int] | None = None,
) -> Admission:
    """Admit one create or update request.

    ``existing`` holds the stored ClusterTopologies and PodCliqueSets (raw or parsed),
    ``scheduled_pods`` the bound pods per PodCliqueSet (``namespace/name``; absent = 0).
    """
    config = (
        operator_config
        if isinstance(operator_config, OperatorConfig)
        else parse_operator_config(operator_config)
    )
    op = Operation(str(operation).lower())
    stored = list(existing)
    bound = dict(scheduled_pods or {})
    kind = Resource(str(resource))
    if kind is Resource.OPERATOR_CONFIGURATION:
        return _answer(config_problems(parse_operator_config(obj)))
    if kind is Resource.CLUSTER_TOPOLOGY:
        return admit_cluster_topology(op, obj, old, stored, config, bound)
    return admit_podcliqueset(op, obj, old, stored, config, bound)


def config_problems(config: OperatorConfig) -> list[Problem]:
    """OperatorConfiguration: when TAS is on, well-known, unique domains and unique keys."""
    if not config.tas_enabled:
        return []  # levels are ignored while TAS is off
    return _level_problems(config.levels, "topologyAwareScheduling.levels", domain_rule=_well_known)


def _well_known(domain: str, where: str) -> Problem | None:
    if domain in WELL_KNOWN_DOMAINS:
        return None
    return Problem(
        where, f"domain {domain!r} is not a well-known domain", f"use one of {', '.join(WELL_KNOWN_DOMAINS)}"
    )


def _pattern_domain(domain: str, where: str) -> Problem | None:
    if 0 < len(domain) <= MAX_NAME and DOMAIN_PATTERN.match(domain):
        return None
    return Problem(
        where,
        f"domain {domain!r} is invalid",
        "use lower-case letters, digits and '-', starting with a letter (at most 63)",
    )


def _level_problems(
    levels: tuple[Level, ...], path: str, *, domain_rule: Callable[[str, str], Problem | None]
) -> list[Problem]:
    problems: list[Problem] = []
    if not levels:
        problems.append(
            Problem(path, "levels must list at least one level", "add {domain, key} entries, broadest first")
        )
    domains: set[str] = set()
    keys: set[str] = set()
    for i, level in enumerate(levels):
        bad = domain_rule(level.domain, f"{path}[{i}].domain")
        if bad is not None:
            problems.append(bad)
        elif level.domain in domains:
            problems.append(
                Problem(
                    f"{path}[{i}].domain",
                    f"Duplicate value: domain {level.domain!r} is listed twice",
                    "every level needs its own domain",
                )
            )
        domains.add(level.domain)
        name_part = level.key.rsplit("/", 1)[-1]
        if not is_label_key(level.key) or len(name_part) > MAX_NAME:
            problems.append(
                Problem(
                    f"{path}[{i}].key",
                    f"key {level.key!r} is not a valid node label key",
                    "use e.g. topology.kubernetes.io/zone",
                )
            )
        elif level.key in keys:
            problems.append(
                Problem(
                    f"{path}[{i}].key",
                    f"Duplicate value: key {level.key!r} is listed twice",
                    "every level needs its own node label",
                )
            )
        keys.add(level.key)
    return problems


def admit_cluster_topology(
    op: Operation,
    obj: Mapping[str, Any],
    old: Mapping[str, Any] | None,
    existing: list[object],
    config: OperatorConfig,
    scheduled: Mapping[str, int],
) -> Admission:
    topology = parse_cluster_topology(obj)
    problems = metadata_problems(obj.get("metadata"))
    problems += _level_problems(topology.levels, "spec.levels", domain_rule=_pattern_domain)
    seen: set[str] = set()
    for i, ref in enumerate(topology.references):
        where = f"spec.schedulerTopologyReferences[{i}].schedulerName"
        if ref.scheduler in seen:
            problems.append(
                Problem(
                    where,
                    f"Duplicate value: scheduler backend {ref.scheduler!r} is bound twice",
                    "bind each backend once",
                )
            )
        elif ref.scheduler not in config.backends:
            problems.append(
                Problem(
                    where,
                    f"scheduler backend is not enabled in Grove: {ref.scheduler!r}",
                    "enable it in the operator's scheduler profiles",
                )
            )
        elif ref.scheduler not in TOPOLOGY_AWARE_BACKENDS:
            problems.append(
                Problem(
                    where,
                    f"scheduler backend {ref.scheduler!r} does not implement topology-aware scheduling",
                    "bind only kai-scheduler",
                )
            )
        seen.add(ref.scheduler)
    warnings: list[str] = []
    if (
        op is Operation.CREATE
        and topology.name == DEFAULT_TOPOLOGY
        and topology.labels.get(MANAGED_BY) is None
    ):
        warnings.append(f"{DEFAULT_TOPOLOGY} is reserved for the operator-managed default topology")
    if op is Operation.UPDATE and old is not None and not problems:
        previous = parse_cluster_topology(old)
        if previous.levels != topology.levels:
            problems += _level_change_problems(topology.name, existing, scheduled)
    return _answer(problems, warnings)


def _level_change_problems(name: str, existing: list[object], scheduled: Mapping[str, int]) -> list[Problem]:
    """GREP-369: level updates are blocked while a referencing PodCliqueSet has scheduled pods."""
    users = [
        p.key
        for p in podcliquesets_of(existing)
        if p.resolved_topology() == name and scheduled.get(p.key, 0) > 0
    ]
    if not users:
        return []
    return [
        Problem(
            "spec.levels",
            f"levels of ClusterTopology {name!r} cannot change while PodCliqueSets with scheduled pods use it: {', '.join(sorted(users))}",
            "change only metadata, or wait until those PodCliqueSets are gone",
        )
    ]


def admit_podcliqueset(
    op: Operation,
    obj: Mapping[str, Any],
    old: Mapping[str, Any] | None,
    existing: list[object],
    config: OperatorConfig,
    scheduled: Mapping[str, int],
) -> Admission:
    pcs = parse_podcliqueset(obj)
    problems = constraint_problems(pcs) + pod_template_problems(obj)
    if problems:
        return _answer(problems)
    if op is Operation.UPDATE and old is not None:
        return _admit_update(pcs, parse_podcliqueset(old), existing, config, scheduled)
    return _admit_topology(pcs, existing, config)


def _admit_topology(pcs: PodCliqueSet, existing: list[object], config: OperatorConfig) -> Admission:
    """Create-time topology rules, in Grove's order: TAS off, reference, domains, nesting."""
    found = located(pcs)
    if not config.tas_enabled:
        problems = [
            Problem(
                path,
                f"topology constraints are not allowed when Topology Aware Scheduling is disabled ({who})",
                "remove the topologyConstraint or enable TAS",
            )
            for path, who, _ in found
        ]
        if pcs.topology_name:
            problems.append(
                Problem(
                    f"{T}.clusterTopologyName",
                    f"clusterTopologyName {pcs.topology_name!r} is set but Topology Aware Scheduling is disabled",
                    "remove clusterTopologyName or enable TAS",
                )
            )
        return _answer(problems)
    if not found:
        if pcs.topology_name:
            return _answer(
                [
                    Problem(
                        f"{T}.clusterTopologyName",
                        f"clusterTopologyName {pcs.topology_name!r} is set but no topologyConstraint is specified on the PodCliqueSet, a scaling group or a clique",
                        "add a topologyConstraint or remove clusterTopologyName",
                    )
                ]
            )
        return _answer([])
    alias = _alias_problems(pcs, found)
    if alias:
        return _answer(alias)
    name = pcs.resolved_topology() or DEFAULT_TOPOLOGY
    topology = topologies_of(existing).get(name)
    if topology is None:
        path = f"{T}.clusterTopologyName"
        return _answer(
            [
                Problem(
                    path,
                    f"ClusterTopology {name!r} not found",
                    "create the ClusterTopology first or name an existing one",
                )
            ]
        )
    problems = domain_problems(topology, found)
    if problems:
        return _answer(problems)
    return _answer(hierarchy_problems(pcs, topology), redundancy_warnings(topology, found))


def _alias_problems(pcs: PodCliqueSet, found: list[Located]) -> list[Problem]:
    """``topologyName`` on any constraint must agree with the PodCliqueSet's reference."""
    problems = []
    for path, who, constraint in found:
        if constraint.topology_name and constraint.topology_name != pcs.topology_name:
            problems.append(
                Problem(
                    f"{path}.topologyName",
                    f"{who} names topology {constraint.topology_name!r} but the PodCliqueSet uses {pcs.topology_name!r}",
                    "one PodCliqueSet uses one topology",
                )
            )
    return problems


def _admit_update(
    pcs: PodCliqueSet,
    old: PodCliqueSet,
    existing: list[object],
    config: OperatorConfig,
    scheduled: Mapping[str, int],
) -> Admission:
    """Constraints are immutable; the topology reference may change only while no pod is bound."""
    problems = _immutability_problems(pcs, old)
    if problems:
        return _answer(problems)
    if pcs.resolved_topology() == old.resolved_topology():
        return _answer([])
    bound = scheduled.get(old.key, 0)
    if bound > 0:
        return _answer(
            [
                Problem(
                    f"{T}.clusterTopologyName",
                    f"clusterTopologyName cannot change from {old.resolved_topology()!r} to {pcs.resolved_topology()!r}: {bound} pods of {old.key} are scheduled",
                    "delete and re-create the PodCliqueSet to use another topology",
                )
            ]
        )
    return _admit_topology(pcs, existing, config)  # a retry is validated like a create


def _immutability_problems(pcs: PodCliqueSet, old: PodCliqueSet) -> list[Problem]:
    pairs: list[tuple[str, str, Constraint | None, Constraint | None]] = [
        (f"{T}.topologyConstraint", f"PodCliqueSet {pcs.name!r}", pcs.constraint, old.constraint)
    ]
    for i, clique in enumerate(pcs.cliques):
        before = old.clique(clique.name)
        pairs.append(
            (
                f"{T}.cliques[{i}].topologyConstraint",
                f"PodClique {clique.name!r}",
                clique.constraint,
                before.constraint if before else None,
            )
        )
    old_groups = {g.name: g for g in old.scaling_groups}
    for i, group in enumerate(pcs.scaling_groups):
        prior = old_groups.get(group.name)
        pairs.append(
            (
                f"{T}.podCliqueScalingGroups[{i}].topologyConstraint",
                f"PodCliqueScalingGroup {group.name!r}",
                group.constraint,
                prior.constraint if prior else None,
            )
        )
    problems = []
    for path, who, new, old_c in pairs:
        if new is None and old_c is not None:
            problems.append(
                Problem(
                    path,
                    f"Forbidden: topologyConstraint of {who} cannot be removed after creation",
                    "keep the constraint as created",
                )
            )
        elif new is not None and old_c is None:
            problems.append(
                Problem(
                    path,
                    f"Forbidden: topologyConstraint of {who} cannot be added after creation",
                    "re-create the PodCliqueSet with the constraint",
                )
            )
        elif new is not None and old_c is not None and not new.same_placement(old_c):
            problems.append(
                Problem(
                    path,
                    f"Forbidden: topologyConstraint of {who} cannot be changed "
                    f"from {old_c.describe()} to {new.describe()}",
                    "keep the constraint as created",
                )
            )
    return problems
