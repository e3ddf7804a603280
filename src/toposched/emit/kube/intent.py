"""Any front end's gang as upstream Kubernetes objects (``toposched compile --to kube``): a
Workload, a PodGroup per leaf group, CompositePodGroups (``v1alpha3``) for groups above them,
and the pods linked by ``spec.schedulingGroup``.

kube-scheduler says less than the IR. What it cannot say is listed in ``Translation.unexpressed``
rather than guessed: preferred levels and slices (one required key per group, no soft form),
constraints or minimums over several groups without CompositePodGroups (``v1beta1``, ``v1alpha2``),
trees deeper than four CompositePodGroups, and all-or-nothing across groups that kube-scheduler
places independently. A Kueue, KAI, OSMO or Grove gang is all-or-nothing, so its groups' gang
minimum is their pod count (their ``min_member`` when set) and, with CompositePodGroups, a root
CompositePodGroup asks for every child.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from toposched.emit import unexpressed
from toposched.emit.queues import queue_left_out
from toposched.model import Gang, Group, PodSpec, Problem, Semantics, Topology, Translation, WorkloadSpecError
from toposched.model.names import UniqueNames, dns_label, object_name
from toposched.wire.core import pod_object, pod_spec_object
from toposched.wire.scheduling import (
    DEFAULT_API_VERSION,
    MAX_COMPOSITE_DEPTH,
    POD_INDEX,
    SERVED,
    CompositePodGroup,
    CompositeTemplate,
    PodGroup,
    PodGroupTemplate,
    Workload,
    has_composites,
    scheduling_group,
)

TARGET = "kube"
SCHEDULER = "kube-scheduler"


@dataclass
class _Writer:
    """One translation: the objects written so far and what could not be said."""

    gang: Gang
    topology: Topology
    api_version: str
    groups: list[PodGroup | CompositePodGroup] = field(default_factory=list)  # tree order
    pods: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    pod_names: UniqueNames = field(default_factory=lambda: UniqueNames(fallback="pod"))

    @property
    def kube(self) -> bool:
        return self.gang.semantics is Semantics.KUBE

    def name(self, group: Group) -> str:
        """A kube gang keeps its groups' names (they were object names); others are prefixed."""
        if self.kube:
            return group.name
        if group is self.gang.root:
            return self.gang.name
        return f"{self.gang.name}-{dns_label(group.name)}"[:253].rstrip("-")

    def key(self, group: Group) -> str | None:
        """The group's required level as a node label key; preferred levels and slices are noted."""
        what = f"group {group.name}"
        if group.preferred is not None:
            self.notes.append(
                f"{what}: kube-scheduler has no preferred constraint; {self.label(group.preferred)} left out"
            )
        self.notes += unexpressed.slices(group, SCHEDULER, self.topology)
        self.notes += unexpressed.topology_without_level(group, SCHEDULER)
        return self.label(group.required) if group.required is not None else None

    def label(self, level: str) -> str:
        return self.topology.resolve(level) or level

    def leaf(self, group: Group, parent: str | None, template: str | None) -> PodGroupTemplate:
        minimum = group.min_member if group.min_member is not None else len(group.pods)
        if group is self.gang.root and self.gang.min_member is not None:
            minimum = self.gang.min_member  # a one-group gang's own minimum
        # No priority: the API server's Priority admission sets a PodGroup's from its
        # PriorityClass and refuses any other value (see compile_to_kube's note).
        settings = PodGroupTemplate(
            self.name(group),
            minimum if minimum > 0 else None,  # a group that may place no pod: basic
            self.key(group),
        )
        workload = self.gang.name if template is not None else None
        self.groups.append(PodGroup(settings, self.gang.namespace, workload, template, parent))
        for pod in group.pods:
            self.pods.append(_pod(pod, self.pod_names.of(pod.name), settings.name, self.gang.namespace))
        return PodGroupTemplate(
            template or dns_label(group.name), settings.min_count, settings.key, settings.priority
        )

    def composite(self, group: Group, parent: str | None, depth: int) -> CompositeTemplate:
        name = self.name(group)
        template = dns_label(group.name)
        if group.min_member is not None:
            self.notes.append(
                f"group {group.name}: a minimum of {group.min_member} pods over several groups left out "
                "(kube-scheduler counts pods per PodGroup)"
            )
        count = group.min_sub_group
        if count is None and not self.kube:
            count = len(group.children)  # all-or-nothing
        elif group.min_sub_group is not None and not self.kube:
            self.notes.append(
                f"group {group.name}: minSubGroup {count} written as minGroupCount; kube-scheduler "
                "places the children greedily in order, without backtracking"
            )
        node = CompositePodGroup(
            name, self.gang.namespace, count, self.key(group), self.gang.name, template, parent
        )
        self.groups.append(node)
        pod_groups: list[PodGroupTemplate] = []
        composites: list[CompositeTemplate] = []
        for child in group.children:
            if child.is_leaf:
                pod_groups.append(self.leaf(child, name, dns_label(child.name)))
            elif depth < MAX_COMPOSITE_DEPTH:
                composites.append(self.composite(child, name, depth + 1))
            else:
                self.notes.append(
                    f"group {child.name}: deeper than {MAX_COMPOSITE_DEPTH} CompositePodGroups; "
                    "its groups are written under its parent"
                )
                pod_groups += [self.leaf(leaf, name, dns_label(leaf.name)) for leaf in child.leaves()]
        return CompositeTemplate(template, count, node.key, tuple(pod_groups), tuple(composites))

    def flattened(self, group: Group) -> list[Group]:
        """Without CompositePodGroups, an inner group's leaves stand alone; its constraint and
        minimum are noted."""
        if group.is_leaf:
            return [group]
        if group.required is not None or group.preferred is not None or group.min_sub_group is not None:
            level = group.required or group.preferred
            what = f"its {self.label(level)} constraint" if level is not None else "its minimum"
            self.notes.append(
                f"group {group.name}: {what} over several groups needs a CompositePodGroup "
                f"(scheduling.k8s.io/v1alpha3); not written in {self.api_version}"
            )
        return [leaf for child in group.children for leaf in self.flattened(child)]


def compile_to_kube(gang: Gang, topology: Topology, *, api_version: str = DEFAULT_API_VERSION) -> Translation:
    """The gang as Workload, PodGroups (CompositePodGroups in ``v1alpha3``) and linked pods;
    ``topology`` resolves level aliases to node label keys."""
    if api_version not in SERVED:
        hint = f"use one of {', '.join(SERVED)}"
        raise WorkloadSpecError([Problem("--api-version", f"{api_version!r} is not a served version", hint)])
    gang = replace(gang, name=object_name(gang.name, fallback="workload"))
    writer = _Writer(gang, topology, api_version)
    root = gang.root
    units = list(root.children) if not root.is_leaf else [root]
    minimums = sum(
        leaf.min_member if leaf.min_member is not None else len(leaf.pods) for leaf in root.leaves()
    )
    if gang.min_member is not None and gang.min_member != minimums and not root.is_leaf:
        writer.notes.append(
            f"gang {gang.name}: a minimum of {gang.min_member} pods over several groups left out "
            "(kube-scheduler counts pods per PodGroup)"
        )
    if gang.priority:
        writer.notes.append(
            f"gang {gang.name}: priority {gang.priority} left out: the API server sets a PodGroup's "
            "priority from its PriorityClass (spec.priorityClassName) and refuses another value"
        )
    wrap = not root.is_leaf and not writer.kube and (len(units) > 1 or root.level is not None)
    if wrap and has_composites(api_version):
        workload = Workload(gang.name, gang.namespace, composites=(writer.composite(root, None, 1),))
    else:
        if not root.is_leaf and not writer.kube:
            if not has_composites(api_version):
                units = writer.flattened(root)
            if len(units) > 1:
                writer.notes.append(
                    f"gang {gang.name}: kube-scheduler places its {len(units)} PodGroups independently; "
                    "all-or-nothing across them needs a CompositePodGroup (scheduling.k8s.io/v1alpha3)"
                )
        workload = _workload(writer, units)
    objects = (
        workload.to_object(api_version),
        *(g.to_object(api_version) for g in writer.groups),
        *writer.pods,
    )
    return Translation(TARGET, objects, tuple(writer.notes), queue_left_out(gang, SCHEDULER))


def _workload(writer: _Writer, units: list[Group]) -> Workload:
    """Top-level PodGroups and CompositePodGroups; a Workload lists pod group templates xor
    composite ones, so PodGroups beside CompositePodGroups go without a template."""
    composites_allowed = has_composites(writer.api_version)
    composite_mode = composites_allowed and any(not u.is_leaf for u in units)
    templates: list[PodGroupTemplate] = []
    composites: list[CompositeTemplate] = []
    for unit in units:
        if unit.is_leaf:
            template = None if composite_mode else dns_label(unit.name)
            written = writer.leaf(unit, None, template)
            if template is not None:
                templates.append(written)
        elif composites_allowed:
            composites.append(writer.composite(unit, None, 1))
        else:
            for leaf in writer.flattened(unit):
                templates.append(writer.leaf(leaf, None, dns_label(leaf.name)))
    if composite_mode and any(u.is_leaf for u in units):
        writer.notes.append(
            f"gang {writer.gang.name}: a Workload lists pod group or composite templates, not both; "
            "PodGroups beside CompositePodGroups are written without a template reference"
        )
    return Workload(writer.gang.name, writer.gang.namespace, tuple(templates), tuple(composites))


def _pod(pod: PodSpec, name: str, pod_group: str, namespace: str) -> dict[str, Any]:
    """A pod as the gang knows it (requests, tolerations, selector, its node when bound), named
    ``name`` and linked to its PodGroup."""
    spec = {"schedulingGroup": scheduling_group(pod_group), **pod_spec_object(pod)}
    return pod_object(name, namespace, labels={POD_INDEX: str(pod.index)}, spec=spec, node_name=pod.node)
