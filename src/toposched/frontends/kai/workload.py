"""KAI inputs as files: a KAI-annotated workload (its pods are generated as the workload's
controller would name and label them, then grouped by the PodGrouper) or a PodGroup with its
pods. Both give the compiled PodGroups with their pods and one ``Gang`` per PodGroup."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toposched.frontends.kai import keys
from toposched.frontends.kai.aliases import resolve_group
from toposched.frontends.kai.common import KaiGrouping, count, dig, fail, labels, notes_of
from toposched.frontends.kai.gang import to_gang
from toposched.frontends.kai.grouper import compile_workload
from toposched.frontends.kai.kubeflow import KINDS as KUBEFLOW_KINDS
from toposched.frontends.kai.validate import validate_podgroup
from toposched.model import (
    MAX_PODS_PER_GANG,
    Gang,
    PodBudget,
    PodSpec,
    Problem,
    SpecError,
    Topology,
    WorkloadSpecError,
)
from toposched.model.lenient import mapping
from toposched.model.names import documents_metadata_problems
from toposched.model.object_meta import object_meta_problems
from toposched.model.podspec import effective_requests, parse_tolerations
from toposched.wire.core import pod_object
from toposched.wire.kai import PODGROUP_API, PODGROUP_KIND, PodGroup, parse_podgroup

PREFIX = "kai.scheduler/"
WORKLOAD_KINDS = ("Job", "JobSet", *KUBEFLOW_KINDS, "LeaderWorkerSet")


@dataclass(frozen=True, slots=True)
class KaiPod:
    """One pod with what the PodGrouper gave it: its PodGroup and leaf subgroup."""

    obj: Mapping[str, Any]  # the pod object (metadata + spec)
    spec: PodSpec
    pod_group: str
    subgroup: str | None


@dataclass(frozen=True, slots=True)
class KaiWorkload:
    """The PodGroups of one input (in creation order), their pods and gangs, and grouper warnings."""

    pod_groups: tuple[PodGroup, ...]
    pods: tuple[KaiPod, ...]
    gangs: tuple[Gang, ...]
    warnings: tuple[str, ...] = ()

    def pod_metadata(self) -> dict[str, dict[str, Any]]:
        """Per pod name: the labels and annotations the PodGrouper writes on it."""
        out: dict[str, dict[str, Any]] = {}
        for pod in self.pods:
            grouping = KaiGrouping(PodGroup(pod.pod_group), pod.subgroup)
            out[pod.spec.name] = {
                "labels": grouping.pod_labels(),
                "annotations": grouping.pod_annotations(),
            }
        return out


def is_kai_document(doc: Mapping[str, Any]) -> bool:
    """A PodGroup, or a workload carrying any ``kai.scheduler/*`` annotation or label (on the
    workload or on one of its pod templates)."""
    if doc.get("kind") == PODGROUP_KIND and str(doc.get("apiVersion", "")).startswith("scheduling.run.ai/"):
        return True
    return _has_kai_key(doc)


def _has_kai_key(node: object) -> bool:
    if isinstance(node, Mapping):
        for key, value in node.items():
            if key in ("annotations", "labels") and isinstance(value, Mapping):
                if any(str(k).startswith(PREFIX) for k in value):
                    return True
            elif _has_kai_key(value):
                return True
    elif isinstance(node, list):
        return any(_has_kai_key(item) for item in node)
    return False


def load_kai(
    documents: Iterable[object], topologies: Iterable[Topology] = (), *, max_pods: int = MAX_PODS_PER_GANG
) -> KaiWorkload:
    """A KAI input as parsed YAML documents: one workload, a workload and its Pods (any owner
    kind, see ``load_owned_pods``), or a PodGroup and its pods.

    Level aliases resolve against ``topologies``. Raises ``WorkloadSpecError`` listing every
    problem (unsupported kind, bad counts, more than ``max_pods`` pods, pods naming no
    subgroup, ...); counts are checked before any pod is generated.
    """
    docs = [d for d in documents if d is not None]
    catalog = tuple(topologies)
    if any(isinstance(d, Mapping) and d.get("kind") == PODGROUP_KIND for d in docs):
        return load_podgroup_file(docs, catalog, max_pods=max_pods)  # objects read as the API server does
    problems = documents_metadata_problems(docs)
    if problems:
        raise WorkloadSpecError(problems)
    if len(docs) > 1 and any(isinstance(d, Mapping) and d.get("kind") == "Pod" for d in docs):
        return load_owned_pods(docs, catalog, max_pods=max_pods)
    if len(docs) != 1 or not isinstance(docs[0], Mapping):
        raise fail("", f"expected one workload object, found {len(docs)} documents", "write one workload")
    return load_workload(docs[0], catalog, max_pods=max_pods)


def load_workload(
    workload: Mapping[str, Any], topologies: Iterable[Topology] = (), *, max_pods: int = MAX_PODS_PER_GANG
) -> KaiWorkload:
    """Generate the workload's pods, group each with the PodGrouper and build the gangs."""
    pods = workload_pods(workload, PodBudget(max_pods))
    return _group_pods(workload, pods, tuple(topologies), max_pods=max_pods)


def _group_pods(
    workload: Mapping[str, Any],
    objects: Sequence[Mapping[str, Any]],
    catalog: tuple[Topology, ...],
    *,
    replicas: int | None = None,
    max_pods: int,
) -> KaiWorkload:
    groups: dict[str, PodGroup] = {}
    pods: list[KaiPod] = []
    warnings: list[str] = []
    problems: list[Problem] = []
    for position, obj in enumerate(objects):
        try:
            # aliases are resolved once per PodGroup: only its first pod's grouping is kept
            grouping = compile_workload(workload, obj, replicas=replicas, max_pods=max_pods)
            spec = pod_spec(obj, _natural_index(workload, obj, position))
            group = grouping.pod_group
            if group.name not in groups:
                groups[group.name] = resolve_group(group, catalog) if catalog else group
        except SpecError as exc:
            problems.extend(exc.problems)
            continue
        warnings.extend(w for w in grouping.warnings if w not in warnings)
        pods.append(KaiPod(obj, spec, group.name, grouping.subgroup))
    if problems:
        raise WorkloadSpecError(problems)
    return _assemble(tuple(groups.values()), pods, tuple(warnings))


def load_owned_pods(
    documents: Iterable[object], topologies: Iterable[Topology] = (), *, max_pods: int = MAX_PODS_PER_GANG
) -> KaiWorkload:
    """One workload object of any kind and ``v1`` Pods whose ``metadata.ownerReferences`` name it
    (kind and name; uid too when both sides set one). The form for owner kinds whose pods
    toposched cannot generate: each pod is grouped as the PodGrouper would group it when created,
    the pod count is the number of Pods, ``spec.nodeName`` marks a running pod."""
    docs = [d for d in documents if isinstance(d, Mapping)]
    owners = [d for d in docs if d.get("kind") != "Pod"]
    if len(owners) != 1:
        found = ", ".join(str(d.get("kind")) for d in owners) or "none"
        raise fail("", f"expected one workload object next to the Pods, found {found}", "write one workload")
    workload = owners[0]
    _check_pod_documents(docs, max_pods)
    problems: list[Problem] = []
    objects: list[Mapping[str, Any]] = []
    for i, doc in enumerate(d for d in docs if d.get("kind") == "Pod"):
        name = str(dig(doc, "metadata", "name") or f"pod-{i}")
        if not _owned_by(doc, workload):
            problems.append(
                Problem(
                    f"pods[{name}].metadata.ownerReferences",
                    f"does not name the {workload.get('kind')} {dig(workload, 'metadata', 'name')!r}",
                    "add an ownerReference with the workload's kind and name",
                )
            )
        objects.append(doc)
    if problems:
        raise WorkloadSpecError(problems)
    return _group_pods(workload, objects, tuple(topologies), replicas=len(objects), max_pods=max_pods)


def _check_pod_documents(docs: Sequence[Mapping[str, Any]], max_pods: int) -> None:
    too_many = PodBudget(max_pods).take("", sum(1 for d in docs if d.get("kind") == "Pod"))
    if too_many is not None:
        raise WorkloadSpecError([too_many])


def _owned_by(pod: Mapping[str, Any], workload: Mapping[str, Any]) -> bool:
    refs = dig(pod, "metadata", "ownerReferences")
    uid = dig(workload, "metadata", "uid")
    for raw in refs if isinstance(refs, list) else []:
        ref = mapping(raw)
        if ref.get("kind") != workload.get("kind") or ref.get("name") != dig(workload, "metadata", "name"):
            continue
        if uid and ref.get("uid") and ref.get("uid") != uid:
            continue
        return True
    return False


def load_podgroup_file(
    documents: Iterable[object], topologies: Iterable[Topology] = (), *, max_pods: int = MAX_PODS_PER_GANG
) -> KaiWorkload:
    """A ``scheduling.run.ai/v2alpha2`` PodGroup and ``v1`` Pods joined by the ``pod-group-name``
    annotation; each pod's ``kai.scheduler/subgroup-name`` label names its leaf subgroup and
    ``spec.nodeName`` marks it as running. The PodGroup is checked as the API server checks it
    against its CRD, then as KAI's webhook does; each pod's metadata as the API server reads a
    Pod's (``pod_path`` says where a pod's problems are reported)."""
    listed = [d for d in documents if d is not None]
    docs = [d for d in listed if isinstance(d, Mapping)]
    found = [d for d in docs if d.get("kind") == PODGROUP_KIND]
    problems: list[Problem] = []
    if len(found) != 1:
        problems.append(Problem("", f"expected one PodGroup, found {len(found)}", "write one PodGroup"))
    elif found[0].get("apiVersion") != PODGROUP_API:
        problems.append(
            Problem(
                "apiVersion", f"unsupported PodGroup version {found[0].get('apiVersion')!r}", PODGROUP_API
            )
        )
    if problems:
        raise WorkloadSpecError(problems)
    _check_pod_documents(docs, max_pods)
    admitted = validate_podgroup(found[0])  # the CRD's schema, then KAI's webhook
    problems += admitted.problems
    for i, doc in enumerate(listed):
        if isinstance(doc, Mapping) and doc.get("kind") == "Pod":
            problems += object_meta_problems(doc, "v1", "Pod", pod_path(doc, i))[0]
    if problems:
        raise WorkloadSpecError(problems)
    group = resolve_group(parse_podgroup(found[0]), topologies)
    pods: list[KaiPod] = []
    position = 0
    for i, doc in enumerate(listed):
        if not isinstance(doc, Mapping) or doc.get("kind") != "Pod":
            if not isinstance(doc, Mapping) or doc.get("kind") != PODGROUP_KIND:
                kind = doc.get("kind") if isinstance(doc, Mapping) else None
                problems.append(Problem(f"documents[{i}].kind", f"unexpected kind {kind!r}", "Pod"))
            continue
        where = pod_path(doc, i)
        owner = notes_of(doc).get(keys.POD_GROUP_NAME)
        if owner != group.name:
            problems.append(
                Problem(
                    f"{where}.metadata.annotations[{keys.POD_GROUP_NAME}]",
                    f"names PodGroup {owner!r}, which is not in the input (its PodGroup is {group.name!r})",
                    f"set {keys.POD_GROUP_NAME}: {group.name}",
                )
            )
            continue
        try:
            spec = pod_spec(doc, position, path=f"{where}.spec")
        except SpecError as exc:
            problems.extend(exc.problems)
            continue
        position += 1
        label = labels(doc).get(keys.SUBGROUP_NAME)
        pods.append(KaiPod(doc, spec, group.name, str(label) if label is not None else None))
    if problems:
        raise WorkloadSpecError(problems)
    return _assemble((group,), pods, ())


def pod_path(pod: Mapping[str, Any], index: int) -> str:
    """Where the problems of the pod at ``documents[index]`` of a PodGroup file are reported:
    ``pods[<name>]`` (``pods[pod-<index>]`` for a pod without a name)."""
    name = dig(pod, "metadata", "name")
    return f"pods[{name if isinstance(name, str) and name else f'pod-{index}'}]"


def pod_spec(pod: Mapping[str, Any], index: int, *, path: str = "spec") -> PodSpec:
    """The scheduling facts of a pod object: requests, tolerations, node selector, node."""
    spec = mapping(pod.get("spec"))
    selector = {str(k): str(v) for k, v in mapping(spec.get("nodeSelector")).items()}
    node = spec.get("nodeName")
    return PodSpec(
        name=str(dig(pod, "metadata", "name") or ""),
        index=index,
        requests=effective_requests(spec, path=path),
        tolerations=parse_tolerations(spec.get("tolerations"), path=f"{path}.tolerations"),
        node_selector=selector,
        node=str(node) if node else None,
        template=spec,
    )


def _assemble(groups: tuple[PodGroup, ...], pods: list[KaiPod], warnings: tuple[str, ...]) -> KaiWorkload:
    members: dict[str, list[tuple[str | None, PodSpec]]] = {group.name: [] for group in groups}
    for pod in pods:  # one pass: a LeaderWorkerSet has a PodGroup per replica
        members.setdefault(pod.pod_group, []).append((pod.subgroup, pod.spec))
    gangs = tuple(to_gang(group, members[group.name]) for group in groups)
    return KaiWorkload(groups, tuple(pods), gangs, warnings)


# -- pods as the workload controllers create them ------------------------------------------------


def workload_pods(workload: Mapping[str, Any], budget: PodBudget | None = None) -> list[dict[str, Any]]:
    """The pods of a batch Job, JobSet, Kubeflow job or LeaderWorkerSet, in index order, named
    and labelled as their controllers do (without the random suffixes). Each count, and the
    total, is booked against ``budget`` (default: the default pod limit) before pods are made."""
    budget = budget if budget is not None else PodBudget()
    kind = str(workload.get("kind") or "")
    group = str(workload.get("apiVersion") or "").split("/")[0]
    name = str(dig(workload, "metadata", "name") or "")
    if not name:
        raise fail("metadata.name", "the workload has no name", "set metadata.name")
    if kind == "Job" and group == "batch":
        spec = mapping(dig(workload, "spec"))
        parallelism = _booked(budget, "spec.parallelism", _parallelism(spec, "spec", budget))
        return _job_pods(name, spec, parallelism, {}, workload)
    if kind == "JobSet":
        return _jobset_pods(name, workload, budget)
    if kind in KUBEFLOW_KINDS:
        return _kubeflow_pods(name, kind, workload, budget)
    if kind == "LeaderWorkerSet":
        return _lws_pods(name, workload, budget)
    raise fail(
        "kind",
        f"{workload.get('apiVersion')} {kind or '?'} is not a KAI workload toposched can expand",
        f"use one of {', '.join(WORKLOAD_KINDS)}, a PodGroup with its pods, or the workload "
        "with its Pods (each with an ownerReference to it) in one file",
    )


def _pod(
    name: str, workload: Mapping[str, Any], template: Mapping[str, Any], extra: Mapping[str, str]
) -> dict[str, Any]:
    meta = mapping(template.get("metadata"))
    return pod_object(
        name,
        str(dig(workload, "metadata", "namespace") or "default"),
        labels={**{str(k): str(v) for k, v in mapping(meta.get("labels")).items()}, **extra},
        annotations={str(k): str(v) for k, v in mapping(meta.get("annotations")).items()},
        spec=mapping(template.get("spec")),
    )


def _booked(budget: PodBudget, path: str, pods: int) -> int:
    """``pods`` once booked against the gang's pod limit; ``WorkloadSpecError`` past it."""
    too_many = budget.take(path, pods)
    if too_many is not None:
        raise WorkloadSpecError([too_many])
    return pods


def _parallelism(job_spec: Mapping[str, Any], where: str, budget: PodBudget) -> int:
    return count(job_spec.get("parallelism"), f"{where}.parallelism", 1, limit=budget.limit)


def _job_pods(
    prefix: str,
    job_spec: Mapping[str, Any],
    parallelism: int,
    extra: Mapping[str, str],
    workload: Mapping[str, Any],
) -> list[dict[str, Any]]:
    template = mapping(job_spec.get("template"))
    return [
        _pod(f"{prefix}-{i}", workload, template, {**extra, keys.JOB_COMPLETION_INDEX: str(i)})
        for i in range(parallelism)
    ]


def _jobset_pods(name: str, workload: Mapping[str, Any], budget: PodBudget) -> list[dict[str, Any]]:
    jobs = dig(workload, "spec", "replicatedJobs")
    out: list[dict[str, Any]] = []
    for i, raw in enumerate(jobs if isinstance(jobs, list) else []):
        rj = mapping(raw)
        where = f"spec.replicatedJobs[{i}]"
        rj_name = str(rj.get("name") or "")
        replicas = count(rj.get("replicas"), f"{where}.replicas", 1, limit=budget.limit)
        job_spec = mapping(dig(rj, "template", "spec"))
        parallelism = _parallelism(job_spec, f"{where}.template.spec", budget)
        _booked(budget, f"{where}.replicas", replicas * parallelism)
        for j in range(replicas):
            extra = {keys.JOBSET_REPLICATED_JOB: rj_name, keys.JOBSET_JOB_INDEX: str(j)}
            out += _job_pods(f"{name}-{rj_name}-{j}", job_spec, parallelism, extra, workload)
    return out


def _kubeflow_pods(
    name: str, kind: str, workload: Mapping[str, Any], budget: PodBudget
) -> list[dict[str, Any]]:
    field, order = KUBEFLOW_KINDS[kind]
    specs = mapping(dig(workload, "spec", field))
    types = [t for t in order if t in specs] + [t for t in specs if t not in order]
    out: list[dict[str, Any]] = []
    for t in types:
        where = f"spec.{field}.{t}.replicas"
        replicas = _booked(budget, where, count(dig(specs, t, "replicas"), where, 1, limit=budget.limit))
        template = mapping(dig(specs, t, "template"))
        for i in range(replicas):
            extra = {keys.KUBEFLOW_REPLICA_TYPE: t.lower(), keys.KUBEFLOW_REPLICA_INDEX: str(i)}
            out.append(_pod(f"{name}-{t.lower()}-{i}", workload, template, extra))
    return out


def _lws_pods(name: str, workload: Mapping[str, Any], budget: PodBudget) -> list[dict[str, Any]]:
    template = mapping(dig(workload, "spec", "leaderWorkerTemplate"))
    size = count(template.get("size"), "spec.leaderWorkerTemplate.size", 1, limit=budget.limit)
    replicas = count(dig(workload, "spec", "replicas"), "spec.replicas", 1, limit=budget.limit)
    _booked(budget, "spec.replicas", replicas * size)
    workers = mapping(template.get("workerTemplate"))
    leader = mapping(template.get("leaderTemplate")) or workers
    out: list[dict[str, Any]] = []
    for g in range(replicas):
        for w in range(size):
            extra = {keys.LWS_GROUP_INDEX: str(g), keys.LWS_WORKER_INDEX: str(w)}
            pod = _pod(
                f"{name}-{g}" if w == 0 else f"{name}-{g}-{w}", workload, leader if w == 0 else workers, extra
            )
            pod["metadata"]["annotations"][keys.LWS_SIZE] = str(size)
            out.append(pod)
    return out


def _natural_index(workload: Mapping[str, Any], pod: Mapping[str, Any], position: int) -> int:
    """The index the workload kind gives the pod (completion, replica or worker index); for other
    kinds the label named by ``kai.scheduler/pod-index-label``; else the pod's position."""
    kind = str(workload.get("kind") or "")
    group = str(workload.get("apiVersion") or "").split("/")[0]
    label = {
        "LeaderWorkerSet": keys.LWS_WORKER_INDEX,
        **dict.fromkeys(KUBEFLOW_KINDS, keys.KUBEFLOW_REPLICA_INDEX),
    }.get(kind)
    if label is None and (kind == "JobSet" or (kind == "Job" and group == "batch")):
        label = keys.JOB_COMPLETION_INDEX
    if label is None:
        template = mapping(dig(workload, "spec", "template", "metadata", "annotations"))
        label = str(notes_of(pod).get(keys.POD_INDEX_LABEL) or template.get(keys.POD_INDEX_LABEL) or "")
    # A malformed label is reported by the grouper when segments read it; here: the position.
    value = str(labels(pod).get(label, "")).strip() if label else ""
    return int(value) if value.isdigit() else position
