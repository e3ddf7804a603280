"""KAI Scheduler objects: the Topology (``kai.scheduler/v1alpha1``), the PodGroup
(``scheduling.run.ai/v2alpha2``) with its subgroup tree, and the pod metadata that ties a pod to
them. Parsing a PodGroup checks it against the installed CRD's schema (``toposched.wire.crd``);
the webhook rules belong to the KAI front end, which checks a Topology before it is read here."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toposched.model import Problem, Queue, QueueKind, Topology, WorkloadSpecError
from toposched.model.lenient import items, mapping
from toposched.model.names import dns_label
from toposched.wire.crd import custom_resource_problems, installed, value_problems

TOPOLOGY_API = "kai.scheduler/v1alpha1"
PODGROUP_API = "scheduling.run.ai/v2alpha2"
PODGROUP_KIND = "PodGroup"
QUEUE_LABEL = "kai.scheduler/queue"
SUBGROUP_LABEL = "kai.scheduler/subgroup-name"
POD_GROUP_ANNOTATION = "pod-group-name"
DEFAULT_QUEUE = "default-queue"
SCHEDULER_NAME = "kai-scheduler"  # KAI's PodGrouper and scheduler take only pods naming it
# The workload annotations KAI's PodGrouper builds a PodGroup from (its plugins' constants.go).
TOPOLOGY_ANNOTATION = "kai.scheduler/topology"
REQUIRED_ANNOTATION = "kai.scheduler/topology-required-placement"
PREFERRED_ANNOTATION = "kai.scheduler/topology-preferred-placement"
BATCH_MIN_MEMBER_ANNOTATION = "kai.scheduler/batch-min-member"


def kai_queue(name: str) -> Queue | None:
    """The queue a KAI workload names; KAI's fallback ``default-queue`` is no queue of the user's."""
    return Queue(name, QueueKind.KAI) if name and name != DEFAULT_QUEUE else None


@dataclass(frozen=True, slots=True)
class OwnerReference:
    """The controlling owner of an object (``metadata.ownerReferences``). The API server requires
    the owner's ``uid``, so a reference is made only to an owner that exists (has one)."""

    api_version: str
    kind: str
    name: str
    uid: str

    def to_object(self) -> dict[str, Any]:
        """The entry as controller-runtime's SetControllerReference writes it (Grove's, KAI's)."""
        return {
            "apiVersion": self.api_version,
            "kind": self.kind,
            "name": self.name,
            "uid": self.uid,
            "controller": True,
            "blockOwnerDeletion": True,
        }


def owner_reference(api_version: str, kind: str, owner: Mapping[str, Any]) -> OwnerReference | None:
    """A controller reference to the object ``owner``; None while it has no ``metadata.uid`` (not
    created yet: a reference without the uid is refused, and a guessed one would be wrong)."""
    metadata = mapping(owner.get("metadata"))
    uid = str(metadata.get("uid") or "")
    return OwnerReference(api_version, kind, str(metadata.get("name") or ""), uid) if uid else None


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


def constraint_annotations(constraint: TopologyConstraint) -> dict[str, str]:
    """The constraint as the ``kai.scheduler/topology*`` annotations of a workload (or of a
    JobSet's Job template); empty fields are left out."""
    keys = (TOPOLOGY_ANNOTATION, REQUIRED_ANNOTATION, PREFERRED_ANNOTATION)
    values = (constraint.topology, constraint.required, constraint.preferred)
    return {key: value for key, value in zip(keys, values, strict=True) if value}


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
    annotations: Mapping[str, str] = field(default_factory=dict)
    owner: OwnerReference | None = None

    def subgroup(self, name: str) -> SubGroup | None:
        return next((sg for sg in self.sub_groups if sg.name == name), None)

    def children(self, parent: str | None) -> tuple[SubGroup, ...]:
        """Direct children of a subgroup (None = of the PodGroup itself), in spec order."""
        return tuple(sg for sg in self.sub_groups if sg.parent == parent)

    def leaves(self) -> tuple[SubGroup, ...]:
        parents = {sg.parent for sg in self.sub_groups}
        return tuple(sg for sg in self.sub_groups if sg.name not in parents)

    def to_object(self, *, write_empty: bool = False) -> dict[str, Any]:
        """The Kubernetes object, valid against the PodGroup CRD schema. ``write_empty`` also
        writes empty labels, annotations, constraint and subgroup list, as Go controllers that
        serialise the whole struct do (Grove's KAI backend)."""
        spec: dict[str, Any] = {}
        if self.min_member is not None:
            spec["minMember"] = self.min_member
        if self.min_sub_group is not None:
            spec["minSubGroup"] = self.min_sub_group
        if self.queue:
            spec["queue"] = self.queue
        if self.priority_class_name:
            spec["priorityClassName"] = self.priority_class_name
        if write_empty or not self.constraint.is_empty:
            spec["topologyConstraint"] = self.constraint.to_object()
        if write_empty or self.sub_groups:
            spec["subGroups"] = [sg.to_object() for sg in self.sub_groups]
        metadata: dict[str, Any] = {"name": self.name, "namespace": self.namespace}
        if write_empty or self.labels:
            metadata["labels"] = dict(self.labels)
        if write_empty or self.annotations:
            metadata["annotations"] = dict(self.annotations)
        if self.owner is not None:
            metadata["ownerReferences"] = [self.owner.to_object()]
        return {"apiVersion": PODGROUP_API, "kind": "PodGroup", "metadata": metadata, "spec": spec}


def subgroup_name(name: str) -> str:
    """A group name as a DNS label, which the PodGroup CRD requires for subgroups."""
    return dns_label(name)


def topology_object(
    name: str,
    levels: Sequence[str],
    *,
    aliases: Mapping[str, str] | None = None,
    labels: Mapping[str, str] | None = None,
    owner: OwnerReference | None = None,
) -> dict[str, Any]:
    """A KAI Topology: node label keys coarsest first; ``aliases`` (alias → label key) name levels."""
    alias_of = {label: alias for alias, label in (aliases or {}).items()}
    rows: list[dict[str, str]] = []
    for label in levels:
        row = {"nodeLabel": label}
        if label in alias_of:
            row["alias"] = alias_of[label]
        rows.append(row)
    metadata: dict[str, Any] = {"name": name}
    if labels:
        metadata["labels"] = dict(labels)
    if owner is not None:
        metadata["ownerReferences"] = [owner.to_object()]
    return {"apiVersion": TOPOLOGY_API, "kind": "Topology", "metadata": metadata, "spec": {"levels": rows}}


def parse_topology(obj: Mapping[str, Any]) -> Topology:
    """A KAI Topology object → the model ``Topology`` (aliases kept). The KAI front end checks the
    CRD and webhook rules first; the model's level rules raise ``TopologySpecError`` here."""
    levels = [lv for lv in items(mapping(obj.get("spec")).get("levels")) if isinstance(lv, Mapping)]
    aliases = {str(lv["alias"]): str(lv.get("nodeLabel")) for lv in levels if lv.get("alias")}
    name = str(mapping(obj.get("metadata")).get("name") or "")
    return Topology.create(name, [str(lv.get("nodeLabel")) for lv in levels], aliases)


def pod_metadata_patch(podgroup_name: str, subgroup: str | None = None) -> dict[str, Any]:
    """The merge patch the PodGrouper applies to a pod: the PodGroup annotation and, for a
    PodGroup with subgroups, the subgroup label."""
    metadata: dict[str, Any] = {"annotations": {POD_GROUP_ANNOTATION: podgroup_name}}
    if subgroup is not None:
        metadata["labels"] = {SUBGROUP_LABEL: subgroup}
    return {"metadata": metadata}


def parse_podgroup(obj: Mapping[str, Any]) -> PodGroup:
    """A PodGroup object (or its ``spec`` only, or an object of ``spec`` alone) → ``PodGroup``.
    Checks it as the API server does against the installed CRD (``toposched.wire.crd``: strict
    decoding, the metadata's rules, types, int32 bounds, minimums, DNS-label subgroup names) and
    raises ``WorkloadSpecError`` listing every violation."""
    if not isinstance(obj, Mapping):
        raise WorkloadSpecError([Problem("", "a PodGroup must be a mapping", "pass the parsed YAML object")])
    resource = installed(PODGROUP_API, PODGROUP_KIND)
    spec_schema = resource.schema.properties["spec"]
    if "apiVersion" in obj or "metadata" in obj:
        problems, _ = custom_resource_problems(obj, resource)
        metadata, spec = mapping(obj.get("metadata")), mapping(obj.get("spec"))
    else:  # a spec, alone or as the object's only field: its schema, no metadata
        spec = mapping(obj.get("spec")) if "spec" in obj else obj
        problems, _ = value_problems(
            obj.get("spec") if "spec" in obj else obj, spec_schema, resource, path="spec"
        )
        metadata = {}
    if problems:
        raise WorkloadSpecError(problems)
    return PodGroup(
        name=str(metadata.get("name") or ""),
        namespace=str(metadata.get("namespace") or "default"),
        min_member=_whole(spec.get("minMember")),
        min_sub_group=_whole(spec.get("minSubGroup")),
        queue=str(spec.get("queue") or ""),
        priority_class_name=str(spec.get("priorityClassName") or ""),
        constraint=_constraint(spec.get("topologyConstraint")),
        sub_groups=tuple(_subgroup(raw) for raw in items(spec.get("subGroups"))),
        labels=_strings(metadata.get("labels")),
        annotations=_strings(metadata.get("annotations")),
        owner=_controller(metadata.get("ownerReferences")),
    )


def _controller(raw: object) -> OwnerReference | None:
    """The controlling owner among ``ownerReferences``; None when there is none."""
    for ref in raw if isinstance(raw, list) else []:
        if isinstance(ref, Mapping) and ref.get("controller") is True:
            return OwnerReference(
                str(ref.get("apiVersion", "")),
                str(ref.get("kind", "")),
                str(ref.get("name", "")),
                str(ref.get("uid", "")),
            )
    return None


def _strings(raw: object) -> dict[str, str]:
    return {str(k): str(v) for k, v in raw.items()} if isinstance(raw, Mapping) else {}


def _subgroup(raw: Mapping[str, Any]) -> SubGroup:
    parent = raw.get("parent")
    return SubGroup(
        name=str(raw["name"]),
        parent=parent or None,
        min_member=_whole(raw.get("minMember")),
        min_sub_group=_whole(raw.get("minSubGroup")),
        constraint=_constraint(raw.get("topologyConstraint")),
    )


def _whole(value: object) -> int | None:
    """A checked count: the schema takes 2.0 for 2, as Go's JSON decoder does."""
    return int(value) if isinstance(value, int | float) else None


def _constraint(raw: object) -> TopologyConstraint:
    """A checked ``topologyConstraint`` (absent or null fields are "")."""
    values = mapping(raw)
    return TopologyConstraint(
        values.get("topology") or "",
        values.get("requiredTopologyLevel") or "",
        values.get("preferredTopologyLevel") or "",
    )
