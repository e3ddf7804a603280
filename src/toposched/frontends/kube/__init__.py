"""Upstream Kubernetes front end: Workload, PodGroup and CompositePodGroup (``scheduling.k8s.io``
v1alpha2, v1alpha3, v1beta1) with their Pods, and Jobs with ``spec.scheduling``, checked as the
API server does and compiled to a ``Semantics.KUBE`` gang."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toposched.frontends.kube.admission import validate_create, validate_update
from toposched.frontends.kube.gang import to_gang
from toposched.frontends.kube.job import is_scheduling_job
from toposched.frontends.kube.load import objects_of, read_documents
from toposched.model import MAX_PODS_PER_GANG, Gang, Topology
from toposched.model.lenient import mapping
from toposched.wire.scheduling import is_scheduling_object

__all__ = [
    "KubeInput",
    "input_objects",
    "is_kube_input",
    "load_kube",
    "validate_create",
    "validate_update",
]


@dataclass(frozen=True, slots=True)
class KubeInput:
    """A compiled kube input: the gang, the objects (as given, then what the dry run creates:
    see ``input_objects``), the topologies the input brings and warnings."""

    gang: Gang
    objects: tuple[Mapping[str, Any], ...]
    topologies: tuple[Topology, ...]
    warnings: tuple[str, ...]


def input_objects(documents: Sequence[Any]) -> list[Any]:
    """The objects of ``documents`` as the user wrote them, the items of a List included: the
    objects of ``KubeInput.objects`` that are not among them are the ones the dry run creates
    (a Job's Workload, PodGroup and Pods; a PodGroup for 1.35 ``workloadRef`` pods)."""
    return [obj for _, obj in objects_of(documents)]


def is_kube_input(documents: Sequence[Any]) -> bool:
    """A ``scheduling.k8s.io`` object, a Job with ``spec.scheduling``, or a Pod naming a PodGroup
    (also as an item of a List)."""
    for _, doc in objects_of(documents):
        if not isinstance(doc, Mapping):
            continue
        if is_scheduling_object(doc) or is_scheduling_job(doc):
            return True
        if doc.get("kind") == "Pod" and mapping(mapping(doc.get("spec")).get("schedulingGroup")):
            return True
    return False


def load_kube(documents: Sequence[Any], *, max_pods: int = MAX_PODS_PER_GANG) -> KubeInput:
    """Check, link and compile ``documents`` (``WorkloadSpecError`` lists every problem)."""
    found = read_documents(documents, max_pods=max_pods)
    jobs = [d for _, d in objects_of(documents) if isinstance(d, Mapping) and d.get("kind") == "Job"]
    kind = "Job" if jobs else "Workload" if found.workloads else "PodGroup"
    gang, levels = to_gang(found, kind)
    return KubeInput(gang, (*found.objects, *found.pod_objects()), levels.brought, tuple(found.warnings))
