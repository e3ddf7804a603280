"""Upstream Kubernetes gang and topology scheduling objects (``scheduling.k8s.io``): the Workload,
the PodGroup and the CompositePodGroup in every served version, the Pod's link to its PodGroup,
and the PodGroup's scheduling condition.

Versions differ in a few spellings, all kept here:

* ``v1alpha2`` (1.36): PodGroup ``spec.podGroupTemplateRef.workload{workloadName,
  podGroupTemplateName}``, ``disruptionMode`` ``Pod`` / ``PodGroup``, condition ``PodGroupScheduled``;
* ``v1alpha3`` (1.37): PodGroup ``spec.workloadRef{workloadName, templateName}``, ``disruptionMode``
  ``{single: {}}`` / ``{all: {}}``, ``parentCompositePodGroupName``, ``compositePodGroupTemplates``
  and the CompositePodGroup kind, condition ``PodGroupInitiallyScheduled``;
* ``v1beta1`` (1.37, the default): as ``v1alpha3``; its Workload and PodGroup take
  ``compositePodGroupTemplates`` and ``parentCompositePodGroupName`` too, while the
  CompositePodGroup kind itself is served in ``v1alpha3`` only.

The fields of each version, with the API server's validation markers, are generated from the
k8s.io/api types (``scheduling_types``); the kube front end checks inputs against them.

``v1alpha1`` (1.35) was removed in 1.36; only its Pod link ``spec.workloadRef`` is still read.
Readers are lenient (a malformed section reads as absent); the kube front end checks the rules.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from toposched.model.lenient import items, mapping, text

GROUP = "scheduling.k8s.io"
V1ALPHA1 = f"{GROUP}/v1alpha1"
V1ALPHA2 = f"{GROUP}/v1alpha2"
V1ALPHA3 = f"{GROUP}/v1alpha3"
V1BETA1 = f"{GROUP}/v1beta1"
SERVED = (V1ALPHA2, V1ALPHA3, V1BETA1)
DEFAULT_API_VERSION = V1BETA1

WORKLOAD = "Workload"
POD_GROUP = "PodGroup"
COMPOSITE_POD_GROUP = "CompositePodGroup"
KINDS = (WORKLOAD, POD_GROUP, COMPOSITE_POD_GROUP)

MAX_TEMPLATES = 8
MAX_TOPOLOGY_CONSTRAINTS = 1
MAX_RESOURCE_CLAIMS = 4
MAX_COMPOSITE_DEPTH = 4

# The PodGroup condition kube-scheduler maintains (1.36 spelled it PodGroupScheduled).
INITIALLY_SCHEDULED = "PodGroupInitiallyScheduled"
SCHEDULED_V1ALPHA2 = "PodGroupScheduled"
REASON_SCHEDULED = "Scheduled"
REASON_UNSCHEDULABLE = "Unschedulable"

# Labels that carry a pod's index, as the owning controllers set them.
JOB_COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"
POD_INDEX = "apps.kubernetes.io/pod-index"


def has_composites(api_version: str) -> bool:
    """Whether the version serves the CompositePodGroup kind (``v1alpha3`` only)."""
    return api_version == V1ALPHA3


def scheduled_condition_type(api_version: str) -> str:
    return SCHEDULED_V1ALPHA2 if api_version == V1ALPHA2 else INITIALLY_SCHEDULED


@dataclass(frozen=True, slots=True)
class PodGroupTemplate:
    """A pod group's scheduling settings, as a Workload template or a PodGroup's copy of one.
    ``min_count`` None = the ``basic`` policy; ``key`` = the topology constraint's node label."""

    name: str
    min_count: int | None = None
    key: str | None = None
    priority: int | None = None
    priority_class_name: str = ""
    disruption_all: bool = False

    def to_object(self, api_version: str) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name}
        out.update(_settings(self, api_version))
        return out


@dataclass(frozen=True, slots=True)
class CompositeTemplate:
    """A Workload's CompositePodGroup template (``v1alpha3``): ``min_group_count`` None = basic."""

    name: str
    min_group_count: int | None = None
    key: str | None = None
    pod_groups: tuple[PodGroupTemplate, ...] = ()
    composites: tuple[CompositeTemplate, ...] = ()

    def to_object(self, api_version: str) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "schedulingPolicy": _policy(self.min_group_count, "minGroupCount"),
        }
        if self.key is not None:
            out["schedulingConstraints"] = _constraints(self.key)
        if self.pod_groups:
            out["podGroupTemplates"] = [t.to_object(api_version) for t in self.pod_groups]
        if self.composites:
            out["compositePodGroupTemplates"] = [c.to_object(api_version) for c in self.composites]
        return out


@dataclass(frozen=True, slots=True)
class Workload:
    """A Workload: pod group templates xor CompositePodGroup templates (a static template)."""

    name: str
    namespace: str = "default"
    pod_groups: tuple[PodGroupTemplate, ...] = ()
    composites: tuple[CompositeTemplate, ...] = ()

    def to_object(self, api_version: str = DEFAULT_API_VERSION) -> dict[str, Any]:
        spec: dict[str, Any] = {}
        if self.composites:
            spec["compositePodGroupTemplates"] = [c.to_object(api_version) for c in self.composites]
        else:
            spec["podGroupTemplates"] = [t.to_object(api_version) for t in self.pod_groups]
        return _object(api_version, WORKLOAD, self.name, self.namespace, spec)


@dataclass(frozen=True, slots=True)
class PodGroup:
    """A PodGroup, the runtime scheduling unit: its own copy of the template's settings, the
    template it came from and the CompositePodGroup it belongs to (``parent``)."""

    settings: PodGroupTemplate
    namespace: str = "default"
    workload: str | None = None
    template: str | None = None
    parent: str | None = None

    @property
    def name(self) -> str:
        return self.settings.name

    def to_object(
        self, api_version: str = DEFAULT_API_VERSION, *, conditions: Sequence[Mapping[str, Any]] = ()
    ) -> dict[str, Any]:
        """The object; ``conditions`` (``scheduled_condition``) fill ``status`` for a dry run."""
        spec: dict[str, Any] = {}
        if self.workload is not None and self.template is not None:
            if api_version == V1ALPHA2:
                ref = {"workloadName": self.workload, "podGroupTemplateName": self.template}
                spec["podGroupTemplateRef"] = {"workload": ref}
            else:
                spec["workloadRef"] = {"workloadName": self.workload, "templateName": self.template}
        spec.update(_settings(self.settings, api_version))
        if self.parent is not None:
            spec["parentCompositePodGroupName"] = self.parent
        out = _object(api_version, POD_GROUP, self.name, self.namespace, spec)
        if conditions:
            out["status"] = {"conditions": [dict(c) for c in conditions]}
        return out


@dataclass(frozen=True, slots=True)
class CompositePodGroup:
    """A CompositePodGroup (``v1alpha3``): its children are the PodGroups and CompositePodGroups
    naming it as their parent."""

    name: str
    namespace: str = "default"
    min_group_count: int | None = None
    key: str | None = None
    workload: str = ""
    template: str = ""
    parent: str | None = None

    def to_object(self, api_version: str = V1ALPHA3) -> dict[str, Any]:
        spec: dict[str, Any] = {
            "workloadRef": {"workloadName": self.workload, "templateName": self.template},
            "schedulingPolicy": _policy(self.min_group_count, "minGroupCount"),
        }
        if self.key is not None:
            spec["schedulingConstraints"] = _constraints(self.key)
        if self.parent is not None:
            spec["parentCompositePodGroupName"] = self.parent
        return _object(api_version, COMPOSITE_POD_GROUP, self.name, self.namespace, spec)


def _object(api_version: str, kind: str, name: str, namespace: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }


def _policy(minimum: int | None, field: str) -> dict[str, Any]:
    return {"basic": {}} if minimum is None else {"gang": {field: minimum}}


def _constraints(key: str) -> dict[str, Any]:
    return {"topology": [{"key": key}]}


def _settings(settings: PodGroupTemplate, api_version: str) -> dict[str, Any]:
    out: dict[str, Any] = {"schedulingPolicy": _policy(settings.min_count, "minCount")}
    if settings.key is not None:
        out["schedulingConstraints"] = _constraints(settings.key)
    if settings.disruption_all:
        out["disruptionMode"] = "PodGroup" if api_version == V1ALPHA2 else {"all": {}}
    if settings.priority_class_name:
        out["priorityClassName"] = settings.priority_class_name
    if settings.priority is not None:
        out["priority"] = settings.priority
    return out


# -- reading --------------------------------------------------------------------------------------


def api_version_of(obj: Mapping[str, Any]) -> str:
    return text(obj.get("apiVersion"))


def is_scheduling_object(obj: Mapping[str, Any]) -> bool:
    """Whether ``obj`` belongs to the ``scheduling.k8s.io`` group (any version)."""
    return api_version_of(obj).split("/")[0] == GROUP


def read_min(policy: object, field: str) -> int | None:
    """The gang minimum of a ``schedulingPolicy`` (None for basic or a malformed one)."""
    gang = mapping(policy).get("gang")
    value = mapping(gang).get(field)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def read_key(spec: Mapping[str, Any]) -> str | None:
    """The first topology constraint's node label key, if any."""
    constraints = items(mapping(spec.get("schedulingConstraints")).get("topology"))
    key = mapping(constraints[0]).get("key") if constraints else None
    return key if isinstance(key, str) and key else None


def read_settings(name: str, spec: Mapping[str, Any]) -> PodGroupTemplate:
    """A template (or a PodGroup's spec) → its settings."""
    priority = spec.get("priority")
    disruption = spec.get("disruptionMode")
    return PodGroupTemplate(
        name=name,
        min_count=read_min(spec.get("schedulingPolicy"), "minCount"),
        key=read_key(spec),
        priority=priority if isinstance(priority, int) and not isinstance(priority, bool) else None,
        priority_class_name=text(spec.get("priorityClassName")),
        disruption_all=disruption == "PodGroup" or "all" in mapping(disruption),
    )


def read_composite_template(raw: Mapping[str, Any]) -> CompositeTemplate:
    return CompositeTemplate(
        name=text(raw.get("name")),
        min_group_count=read_min(raw.get("schedulingPolicy"), "minGroupCount"),
        key=read_key(raw),
        pod_groups=tuple(
            read_settings(text(mapping(t).get("name")), mapping(t))
            for t in items(raw.get("podGroupTemplates"))
        ),
        composites=tuple(
            read_composite_template(mapping(c)) for c in items(raw.get("compositePodGroupTemplates"))
        ),
    )


def read_workload(obj: Mapping[str, Any]) -> Workload:
    metadata, spec = mapping(obj.get("metadata")), mapping(obj.get("spec"))
    return Workload(
        name=text(metadata.get("name")),
        namespace=text(metadata.get("namespace")) or "default",
        pod_groups=tuple(
            read_settings(text(mapping(t).get("name")), mapping(t))
            for t in items(spec.get("podGroupTemplates"))
        ),
        composites=tuple(
            read_composite_template(mapping(c)) for c in items(spec.get("compositePodGroupTemplates"))
        ),
    )


def read_template_ref(spec: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """(workload, template) a PodGroup or CompositePodGroup was stamped from, in any version."""
    ref = mapping(spec.get("workloadRef"))
    if ref:
        return text(ref.get("workloadName")) or None, text(ref.get("templateName")) or None
    old = mapping(mapping(spec.get("podGroupTemplateRef")).get("workload"))
    return text(old.get("workloadName")) or None, text(old.get("podGroupTemplateName")) or None


def read_pod_group(obj: Mapping[str, Any]) -> PodGroup:
    metadata, spec = mapping(obj.get("metadata")), mapping(obj.get("spec"))
    workload, template = read_template_ref(spec)
    return PodGroup(
        settings=read_settings(text(metadata.get("name")), spec),
        namespace=text(metadata.get("namespace")) or "default",
        workload=workload,
        template=template,
        parent=text(spec.get("parentCompositePodGroupName")) or None,
    )


def read_composite_pod_group(obj: Mapping[str, Any]) -> CompositePodGroup:
    metadata, spec = mapping(obj.get("metadata")), mapping(obj.get("spec"))
    workload, template = read_template_ref(spec)
    return CompositePodGroup(
        name=text(metadata.get("name")),
        namespace=text(metadata.get("namespace")) or "default",
        min_group_count=read_min(spec.get("schedulingPolicy"), "minGroupCount"),
        key=read_key(spec),
        workload=workload or "",
        template=template or "",
        parent=text(spec.get("parentCompositePodGroupName")) or None,
    )


# -- the Pod's link ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PodLink:
    """What a pod names: a PodGroup (``spec.schedulingGroup``, 1.36+) or a Workload's pod group
    (``spec.workloadRef``, 1.35)."""

    pod_group: str | None = None
    workload: str | None = None
    template: str | None = None

    @property
    def linked(self) -> bool:
        return self.pod_group is not None or self.workload is not None


def read_pod_link(pod: Mapping[str, Any]) -> PodLink:
    spec = mapping(pod.get("spec"))
    group = text(mapping(spec.get("schedulingGroup")).get("podGroupName"))
    if group:
        return PodLink(pod_group=group)
    ref = mapping(spec.get("workloadRef"))
    if ref:
        return PodLink(workload=text(ref.get("name")) or None, template=text(ref.get("podGroup")) or None)
    return PodLink()


def stamped_name(workload: str, template: str) -> str:
    """The PodGroup a 1.35 pod's ``workloadRef`` stands for: its Workload's template, named
    ``<workload>-<template>``."""
    return f"{workload}-{template}"


def scheduling_group(pod_group: str) -> dict[str, Any]:
    """The Pod's ``spec.schedulingGroup`` naming its PodGroup."""
    return {"podGroupName": pod_group}


# -- status ----------------------------------------------------------------------------------------


def scheduled_condition(api_version: str, *, scheduled: bool, at: float, message: str = "") -> dict[str, Any]:
    """The condition kube-scheduler sets on a PodGroup after a scheduling attempt made ``at``
    (seconds since the epoch): a ``metav1.Condition``, whose ``lastTransitionTime`` the API
    server requires."""
    return {
        "type": scheduled_condition_type(api_version),
        "status": "True" if scheduled else "False",
        "lastTransitionTime": datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "reason": REASON_SCHEDULED if scheduled else REASON_UNSCHEDULABLE,
        "message": message,
    }


PLACEMENTS_AVAILABLE = "placements are available, first placement status: "
NO_FEASIBLE_PLACEMENTS = "no feasible placements found"  # no node has the constraint's label


def unschedulable_message(total: int, statuses: Sequence[str]) -> str:
    """kube-scheduler's message when no placement of a PodGroup is feasible."""
    return f"0/{total} {PLACEMENTS_AVAILABLE}{', '.join(statuses)}"
