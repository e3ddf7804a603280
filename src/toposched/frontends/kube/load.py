"""Reading a document set of Workloads, PodGroups, CompositePodGroups, Pods and Jobs with
``spec.scheduling``: sort the documents by kind, check each as the API server does, link every
pod to its PodGroup and every group to its CompositePodGroup, and hand the linked set to
``toposched.frontends.kube.gang``."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from toposched.frontends.kube.job import JobPods, job_documents
from toposched.frontends.kube.rules import Problems, at, check_metadata, check_object
from toposched.model import PodBudget, Problem, SpecError, WorkloadSpecError
from toposched.model.lenient import mapping, text
from toposched.model.podspec import effective_requests, parse_tolerations
from toposched.wire.scheduling import (
    COMPOSITE_POD_GROUP,
    JOB_COMPLETION_INDEX,
    KINDS,
    POD_GROUP,
    POD_INDEX,
    WORKLOAD,
    CompositePodGroup,
    PodGroup,
    PodLink,
    Workload,
    api_version_of,
    is_scheduling_object,
    read_composite_pod_group,
    read_pod_group,
    read_pod_link,
    read_workload,
    stamped_name,
)

PLURALS = {
    WORKLOAD: "workloads",
    POD_GROUP: "podGroups",
    COMPOSITE_POD_GROUP: "compositePodGroups",
    "Pod": "pods",
    "Job": "jobs",
}


@dataclass(frozen=True, slots=True)
class LinkedPod:
    """A pod of the input with the field path it was read at, its name and its index (the Job
    completion index, else the pod index, as a label or an annotation; None without one)."""

    path: str
    obj: Mapping[str, Any]
    name: str
    index: int | None = None
    made: bool = False  # created by the dry run (a Job's pod): valid by construction

    @classmethod
    def read(cls, path: str, obj: Mapping[str, Any]) -> LinkedPod:
        metadata = mapping(obj.get("metadata"))
        return cls(path, obj, text(metadata.get("name")), _index(metadata))


def pod_shape(pod: LinkedPod, problems: list[Problem]) -> tuple[Any, ...] | None:
    """A pod's requests, tolerations, node selector, node and spec (None: invalid, problems noted)."""
    spec = mapping(pod.obj.get("spec"))
    path = f"{pod.path}.spec" if pod.path else "spec"
    try:
        requests = effective_requests(spec, path=path)
        tolerations = parse_tolerations(spec.get("tolerations"), path=f"{path}.tolerations")
    except SpecError as exc:
        problems.extend(exc.problems)
        return None
    selector = {str(k): str(v) for k, v in mapping(spec.get("nodeSelector")).items()}
    node = spec.get("nodeName")
    return requests, tolerations, selector, node if isinstance(node, str) and node else None, spec


def shape_problems(pods: list[LinkedPod]) -> Problems:
    """The problems of the pods' scheduling facts, each pod object read once (a Job's pods are
    one object): reported with the input's other problems, as the API server reports a Job's
    pod template with its other fields."""
    problems: Problems = []
    seen: set[int] = set()
    for pod in pods:
        if id(pod.obj) not in seen:
            seen.add(id(pod.obj))
            pod_shape(pod, problems)
    return problems


def _index(metadata: Mapping[str, Any]) -> int | None:
    for key in (JOB_COMPLETION_INDEX, POD_INDEX):
        for source in (mapping(metadata.get("labels")), mapping(metadata.get("annotations"))):
            raw = source.get(key)
            value = str(raw) if isinstance(raw, int) and not isinstance(raw, bool) else text(raw)
            if value.isascii() and value.isdigit():
                return int(value)
    return None


@dataclass
class KubeDocuments:
    """The input sorted and linked: PodGroups and CompositePodGroups in document order, the
    pods of each PodGroup, and what the input's objects are (for ``Compiled.objects``)."""

    workloads: list[Workload] = field(default_factory=list)
    pod_groups: list[PodGroup] = field(default_factory=list)
    composites: list[CompositePodGroup] = field(default_factory=list)
    pods: dict[str, list[LinkedPod]] = field(default_factory=dict)  # PodGroup name -> its pods
    objects: list[Mapping[str, Any]] = field(default_factory=list)
    order: list[str] = field(default_factory=list)  # PodGroup and CompositePodGroup names, as read
    created: dict[str, str] = field(default_factory=dict)  # name -> metadata.creationTimestamp
    warnings: list[str] = field(default_factory=list)
    made: list[JobPods] = field(default_factory=list)  # the pods of the input's Jobs

    def pod_objects(self) -> list[Mapping[str, Any]]:
        """Every pod: the input's as written, then the ones its Jobs create."""
        given = [p.obj for pods in self.pods.values() for p in pods if not p.made]
        return [*given, *(obj for made in self.made for obj in made.objects())]


def read_documents(documents: Sequence[Any], *, max_pods: int) -> KubeDocuments:
    """Check and link ``documents``; ``WorkloadSpecError`` lists every problem."""
    problems: Problems = []
    budget = PodBudget(max_pods)
    found = KubeDocuments()
    expanded: list[tuple[str, Mapping[str, Any]]] = []  # (where the object was read, object)
    pods: list[LinkedPod] = []
    listed = list(objects_of(documents))
    for where, doc in listed:
        if not isinstance(doc, Mapping):
            problems.append(Problem(where, "is not a mapping", "give Kubernetes objects"))
        elif doc.get("kind") == "Job":
            path = document_path(doc, where)
            objects, made = job_documents(doc, path, problems, budget)
            expanded += [(where, obj) for obj in objects]
            found.made.append(made)
            template = at(path, "spec.template")  # where a Job's pods are written
            pods += [
                LinkedPod(template, made.base, name, index if made.indexed else None, made=True)
                for index, name in enumerate(made.names)
            ]
        else:
            expanded.append((where, doc))
    given = sum(1 for _, d in listed if isinstance(d, Mapping) and d.get("kind") == "Pod")
    if (problem := budget.take("pods", given)) is not None:  # a Job's pods were booked as it was read
        raise WorkloadSpecError([*problems, problem])
    for where, doc in expanded:
        kind = doc.get("kind")
        path = document_path(doc, where)
        if kind == "Pod":
            check_metadata(doc, path, problems)
            pods.append(LinkedPod.read(path, doc))
        elif is_scheduling_object(doc) and kind in KINDS:
            _read_scheduling_object(doc, path, found, problems)
        else:
            problems.append(
                Problem(
                    at(path, "kind"),
                    f"{kind!r} ({api_version_of(doc) or 'no apiVersion'}) is not read by the kube front end",
                    "give Workload, PodGroup, CompositePodGroup (scheduling.k8s.io), Pods and Jobs",
                )
            )
    if problems:
        raise WorkloadSpecError([*problems, *shape_problems(pods)])
    _link_pods(pods, found, problems)
    _check_tree(found, problems)
    if problems:
        raise WorkloadSpecError([*problems, *shape_problems(pods)])
    return found


def document_path(doc: Mapping[str, Any], where: str) -> str:
    """Where a document's fields are reported: ``podGroups[NAME]``, ``pods[NAME]``... by kind
    and name, else where it was read (``documents[2]``, ``documents[0].items[3]``)."""
    name = text(mapping(doc.get("metadata")).get("name"))
    plural = PLURALS.get(text(doc.get("kind")))
    return f"{plural}[{name}]" if plural and name else where


def objects_of(documents: Sequence[Any]) -> Iterator[tuple[str, Any]]:
    """The objects of ``documents`` with where each was read: the items of a ``v1 List`` (or a
    typed list such as ``PodGroupList``, whose items may leave their kind out) are objects of
    their own, as ``kubectl apply`` reads them."""
    for i, doc in enumerate(documents):
        kind = doc.get("kind") if isinstance(doc, Mapping) else None
        items = doc.get("items") if isinstance(doc, Mapping) else None
        if not (isinstance(kind, str) and kind.endswith("List") and isinstance(items, list)):
            yield f"documents[{i}]", doc
            continue
        implied = kind.removesuffix("List")
        for j, item in enumerate(items):
            if implied and isinstance(item, Mapping) and "kind" not in item:
                item = {**item, "kind": implied, "apiVersion": doc.get("apiVersion")}
            yield f"documents[{i}].items[{j}]", item


def _read_scheduling_object(
    doc: Mapping[str, Any], path: str, found: KubeDocuments, problems: Problems
) -> None:
    api_version, kind = api_version_of(doc), str(doc.get("kind"))
    before = len(problems)
    check_object(doc, api_version, kind, path, problems)
    if len(problems) > before:
        return
    found.objects.append(doc)
    if kind == WORKLOAD:
        found.workloads.append(read_workload(doc))
    elif kind == POD_GROUP:
        group = read_pod_group(doc)
        _add_name(group.name, path, found, problems)
        found.pod_groups.append(group)
        found.created[group.name] = text(mapping(doc.get("metadata")).get("creationTimestamp"))
    else:
        composite = read_composite_pod_group(doc)
        _add_name(composite.name, path, found, problems)
        found.composites.append(composite)
        found.created[composite.name] = text(mapping(doc.get("metadata")).get("creationTimestamp"))


def _add_name(name: str, path: str, found: KubeDocuments, problems: Problems) -> None:
    if name in found.order:
        problems.append(
            Problem(at(path, "metadata.name"), f"{name!r} appears twice", "group names must differ")
        )
    found.order.append(name)


def _link_pods(pods: list[LinkedPod], found: KubeDocuments, problems: Problems) -> None:
    """Each pod joins the PodGroup it names; a 1.35 ``workloadRef`` joins the PodGroup stamped from
    that template (made from the Workload's template when the input has none)."""
    by_name = {g.name: g for g in found.pod_groups}
    by_template: dict[tuple[str, str | None], PodGroup] = {
        (g.workload, g.template): g for g in found.pod_groups if g.workload and g.template
    }
    workloads = {w.name: w for w in found.workloads}
    found.pods = {g.name: [] for g in found.pod_groups}
    links: dict[int, PodLink] = {}  # by id(spec): a Job's pods share theirs
    for pod in pods:
        spec = pod.obj.get("spec")
        link = links.get(id(spec)) or links.setdefault(id(spec), read_pod_link(pod.obj))
        spec_path = at(pod.path, "spec")
        if link.pod_group is not None:
            if link.pod_group not in by_name:
                problems.append(
                    Problem(
                        at(spec_path, "schedulingGroup.podGroupName"),
                        f"pod {pod.name!r} names PodGroup {link.pod_group!r}, which is not in the input",
                        "add the PodGroup, or fix the name",
                    )
                )
                continue
            group = by_name[link.pod_group]
        elif link.workload is not None:
            group_or_none = by_template.get((link.workload, link.template)) or _stamped(
                link.workload, link.template, workloads, found
            )
            if group_or_none is None:
                problems.append(
                    Problem(
                        at(spec_path, "workloadRef"),
                        f"pod {pod.name!r} names pod group {link.template!r} of Workload {link.workload!r}, "
                        "which is not in the input",
                        "add the Workload (v1beta1) and link pods with spec.schedulingGroup.podGroupName",
                    )
                )
                continue
            group = group_or_none
            by_name[group.name] = by_template[(link.workload, link.template)] = group
        else:
            problems.append(
                Problem(
                    at(spec_path, "schedulingGroup"),
                    f"pod {pod.name!r} belongs to no PodGroup",
                    "set spec.schedulingGroup.podGroupName to its PodGroup's name",
                )
            )
            continue
        namespace = text(mapping(pod.obj.get("metadata")).get("namespace")) or "default"
        if namespace != group.namespace:
            problems.append(
                Problem(
                    at(pod.path, "metadata.namespace"),
                    f"pod {pod.name!r} is in {namespace!r}, its PodGroup {group.name!r} in {group.namespace!r}",
                    "a pod and its PodGroup share one namespace",
                )
            )
        found.pods[group.name].append(pod)
    for group in found.pod_groups:
        _check_members(group, found.pods[group.name], problems)


def _stamped(
    workload: str, template: str | None, workloads: Mapping[str, Workload], found: KubeDocuments
) -> PodGroup | None:
    """The PodGroup a 1.35 pod's Workload template stands for (``<workload>-<template>``)."""
    source = workloads.get(workload)
    settings = next((t for t in source.pod_groups if t.name == template), None) if source else None
    if source is None or settings is None or template is None:
        return None
    name = stamped_name(workload, template)
    group = PodGroup(replace(settings, name=name), source.namespace, workload=workload, template=template)
    found.pod_groups.append(group)
    found.objects.append(group.to_object())  # what reading the input creates, said apart from it
    found.pods[name] = []
    found.order.append(name)
    found.warnings.append(
        f"pods name pod group {template!r} of Workload {workload!r} by spec.workloadRef (Kubernetes 1.35); "
        f"read as PodGroup {name!r}: since 1.36 pods set spec.schedulingGroup.podGroupName"
    )
    return group


def _check_members(group: PodGroup, pods: list[LinkedPod], problems: Problems) -> None:
    """A group has pods, enough for its gang, all for one scheduler."""
    if not pods:
        problems.append(
            Problem(
                f"podGroups[{group.name}]",
                f"PodGroup {group.name!r} has no pods in the input",
                f"add its Pods with spec.schedulingGroup.podGroupName: {group.name}",
            )
        )
        return
    minimum = group.settings.min_count
    if minimum is not None and minimum > len(pods):
        problems.append(
            Problem(
                f"podGroups[{group.name}].spec.schedulingPolicy.gang.minCount",
                f"is {minimum} but the input has {len(pods)} pod(s) of PodGroup {group.name!r}: "
                "kube-scheduler would keep waiting for minCount pods from a gang to appear",
                "add the missing pods or lower minCount",
            )
        )
    specs = {id(spec): spec for spec in (mapping(p.obj.get("spec")) for p in pods)}  # a Job's: one
    schedulers = {text(spec.get("schedulerName")) or "default-scheduler" for spec in specs.values()}
    if len(schedulers) > 1:
        problems.append(
            Problem(
                f"podGroups[{group.name}]",
                "all pods in a single pod group should have the same .spec.schedulerName set, got "
                + ", ".join(sorted(schedulers)),
                "give every pod of the group the same schedulerName",
            )
        )


def _check_tree(found: KubeDocuments, problems: Problems) -> None:
    """Every parent named exists; CompositePodGroups nest at most 4 deep, without cycles."""
    composites = {c.name: c for c in found.composites}
    for group in found.pod_groups:
        if group.parent is not None and group.parent not in composites:
            problems.append(
                Problem(
                    f"podGroups[{group.name}].spec.parentCompositePodGroupName",
                    f"names CompositePodGroup {group.parent!r}, which is not in the input",
                    "add the CompositePodGroup, or fix the name",
                )
            )
    for composite in found.composites:
        where = f"compositePodGroups[{composite.name}].spec.parentCompositePodGroupName"
        depth, seen, parent = 1, {composite.name}, composite.parent
        while parent is not None:
            if parent not in composites:
                problems.append(
                    Problem(where, f"names CompositePodGroup {parent!r}, which is not in the input", "add it")
                )
                break
            if parent in seen:
                problems.append(
                    Problem(where, "forms a cycle of CompositePodGroups", "the tree needs a root")
                )
                break
            seen.add(parent)
            depth += 1
            parent = composites[parent].parent
        if depth > 4:
            problems.append(
                Problem(
                    where,
                    f"nests {depth} CompositePodGroups; at most 4 levels are allowed",
                    "flatten the tree",
                )
            )
        parents = [g.parent for g in found.pod_groups] + [c.parent for c in found.composites]
        if composite.name not in parents:
            problems.append(
                Problem(
                    f"compositePodGroups[{composite.name}]",
                    f"CompositePodGroup {composite.name!r} has no PodGroups or CompositePodGroups under it",
                    "set spec.parentCompositePodGroupName on its children",
                )
            )
