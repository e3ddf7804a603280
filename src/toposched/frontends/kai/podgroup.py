"""The KAI PodGroup (``scheduling.run.ai/v2alpha2``) as typed data: parse from a Kubernetes
object, write back to one. Parsing applies the CRD schema rules (types, minimums, DNS-label
subgroup names); the webhook rules live in ``validate``."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from toposched.model import Problem, WorkloadSpecError

API_VERSION = "scheduling.run.ai/v2alpha2"
KIND = "PodGroup"
DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


@dataclass(frozen=True, slots=True)
class TopologyConstraint:
    """KAI's constraint triple. Empty strings mean "not set", as in the CRD."""

    topology: str = ""
    required: str = ""
    preferred: str = ""

    @property
    def is_empty(self) -> bool:
        return not (self.topology or self.required or self.preferred)

    def to_object(self) -> dict[str, str]:
        """The CRD form; empty fields are left out."""
        out: dict[str, str] = {}
        if self.topology:
            out["topology"] = self.topology
        if self.required:
            out["requiredTopologyLevel"] = self.required
        if self.preferred:
            out["preferredTopologyLevel"] = self.preferred
        return out


NO_CONSTRAINT = TopologyConstraint()


@dataclass(frozen=True, slots=True)
class SubGroup:
    """One node of the PodGroup's subgroup tree; ``parent`` None = child of the PodGroup."""

    name: str
    parent: str | None = None
    min_member: int | None = None
    min_sub_group: int | None = None
    constraint: TopologyConstraint = NO_CONSTRAINT

    def to_object(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name}
        if self.parent is not None:
            out["parent"] = self.parent
        if self.min_member is not None:
            out["minMember"] = self.min_member
        if self.min_sub_group is not None:
            out["minSubGroup"] = self.min_sub_group
        if not self.constraint.is_empty:
            out["topologyConstraint"] = self.constraint.to_object()
        return out


@dataclass(frozen=True, slots=True)
class PodGroup:
    """A PodGroup: gang size (``min_member`` or ``min_sub_group``), queue, constraint, subgroups."""

    name: str
    namespace: str = "default"
    min_member: int | None = None
    min_sub_group: int | None = None
    queue: str = ""
    priority_class_name: str = ""
    constraint: TopologyConstraint = NO_CONSTRAINT
    sub_groups: tuple[SubGroup, ...] = ()
    labels: Mapping[str, str] = field(default_factory=dict)

    def subgroup(self, name: str) -> SubGroup | None:
        return next((sg for sg in self.sub_groups if sg.name == name), None)

    def children(self, parent: str | None) -> tuple[SubGroup, ...]:
        """Direct children of a subgroup (None = of the PodGroup itself), in spec order."""
        return tuple(sg for sg in self.sub_groups if sg.parent == parent)

    def leaves(self) -> tuple[SubGroup, ...]:
        parents = {sg.parent for sg in self.sub_groups}
        return tuple(sg for sg in self.sub_groups if sg.name not in parents)

    def to_object(self) -> dict[str, Any]:
        """The Kubernetes object, valid against the PodGroup CRD schema."""
        spec: dict[str, Any] = {}
        if self.min_member is not None:
            spec["minMember"] = self.min_member
        if self.min_sub_group is not None:
            spec["minSubGroup"] = self.min_sub_group
        if self.queue:
            spec["queue"] = self.queue
        if self.priority_class_name:
            spec["priorityClassName"] = self.priority_class_name
        if not self.constraint.is_empty:
            spec["topologyConstraint"] = self.constraint.to_object()
        if self.sub_groups:
            spec["subGroups"] = [sg.to_object() for sg in self.sub_groups]
        metadata: dict[str, Any] = {"name": self.name, "namespace": self.namespace}
        if self.labels:
            metadata["labels"] = dict(self.labels)
        return {"apiVersion": API_VERSION, "kind": KIND, "metadata": metadata, "spec": spec}


def parse_podgroup(obj: Mapping[str, Any]) -> PodGroup:
    """A PodGroup object (or its ``spec`` only) → ``PodGroup``. Applies the CRD schema rules and
    raises ``WorkloadSpecError`` listing every violation."""
    problems: list[Problem] = []
    if not isinstance(obj, Mapping):
        raise WorkloadSpecError([Problem("", "a PodGroup must be a mapping", "pass the parsed YAML object")])
    metadata = obj.get("metadata") if "spec" in obj or "metadata" in obj else {}
    spec = obj.get("spec", {}) if "spec" in obj or "metadata" in obj else obj
    metadata = metadata if isinstance(metadata, Mapping) else {}
    if not isinstance(spec, Mapping):
        raise WorkloadSpecError([Problem("spec", "spec must be a mapping", "")])
    name = str(metadata.get("name") or "")
    namespace = str(metadata.get("namespace") or "default")
    min_member = _count(spec, "minMember", "spec", problems)
    min_sub_group = _count(spec, "minSubGroup", "spec", problems)
    constraint = _constraint(spec.get("topologyConstraint"), "spec.topologyConstraint", problems)
    raw_groups = spec.get("subGroups") or []
    sub_groups: list[SubGroup] = []
    if not isinstance(raw_groups, list):
        problems.append(Problem("spec.subGroups", "subGroups must be a list", "list the subgroups"))
        raw_groups = []
    for i, raw in enumerate(raw_groups):
        where = f"spec.subGroups[{i}]"
        if not isinstance(raw, Mapping):
            problems.append(Problem(where, "a subgroup must be a mapping", "give it at least a name"))
            continue
        sub_groups.append(_subgroup(raw, where, problems))
    if problems:
        raise WorkloadSpecError(problems)
    labels = metadata.get("labels")
    return PodGroup(
        name=name,
        namespace=namespace,
        min_member=min_member,
        min_sub_group=min_sub_group,
        queue=str(spec.get("queue") or ""),
        priority_class_name=str(spec.get("priorityClassName") or ""),
        constraint=constraint,
        sub_groups=tuple(sub_groups),
        labels={str(k): str(v) for k, v in labels.items()} if isinstance(labels, Mapping) else {},
    )


def _subgroup(raw: Mapping[str, Any], where: str, problems: list[Problem]) -> SubGroup:
    name = raw.get("name")
    if not isinstance(name, str) or not DNS_LABEL.match(name):
        problems.append(
            Problem(
                f"{where}.name",
                f"subgroup name {name!r} is not a DNS label",
                "use lower-case letters, digits and '-'",
            )
        )
        name = str(name)
    parent = raw.get("parent")
    if parent is not None and (not isinstance(parent, str) or not DNS_LABEL.match(parent)):
        problems.append(
            Problem(f"{where}.parent", f"parent {parent!r} is not a DNS label", "name an existing subgroup")
        )
    return SubGroup(
        name=name,
        parent=None if parent in (None, "") else str(parent),
        min_member=_count(raw, "minMember", where, problems),
        min_sub_group=_count(raw, "minSubGroup", where, problems),
        constraint=_constraint(raw.get("topologyConstraint"), f"{where}.topologyConstraint", problems),
    )


def _count(raw: Mapping[str, Any], key: str, where: str, problems: list[Problem]) -> int | None:
    value = raw.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        problems.append(
            Problem(f"{where}.{key}", f"{key} must be an integer, got {value!r}", "use a whole number")
        )
        return None
    if value < 0:
        problems.append(
            Problem(f"{where}.{key}", f"{key} must be >= 0, got {value}", "0 means fully elastic")
        )
        return None
    return value


def _constraint(raw: object, where: str, problems: list[Problem]) -> TopologyConstraint:
    if raw is None:
        return NO_CONSTRAINT
    if not isinstance(raw, Mapping):
        problems.append(Problem(where, "topologyConstraint must be a mapping", "set topology and a level"))
        return NO_CONSTRAINT
    values: dict[str, str] = {}
    for key in ("topology", "requiredTopologyLevel", "preferredTopologyLevel"):
        value = raw.get(key, "")
        if value is None:
            value = ""
        if not isinstance(value, str):
            problems.append(Problem(f"{where}.{key}", f"{key} must be a string", ""))
            value = ""
        values[key] = value
    return TopologyConstraint(
        values["topology"], values["requiredTopologyLevel"], values["preferredTopologyLevel"]
    )
