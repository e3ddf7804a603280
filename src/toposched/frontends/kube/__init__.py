"""Upstream Kubernetes front end: Workload, PodGroup and CompositePodGroup (``scheduling.k8s.io``
v1alpha2, v1alpha3, v1beta1) with their Pods, and Jobs with ``spec.scheduling``, checked as the
API server does and compiled to a ``Semantics.KUBE`` gang."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toposched.frontends.kube.gang import to_gang
from toposched.frontends.kube.job import is_scheduling_job
from toposched.frontends.kube.load import read_documents
from toposched.frontends.kube.update import validate_update
from toposched.model import MAX_PODS_PER_GANG, Gang, Topology
from toposched.model.lenient import mapping
from toposched.wire.scheduling import is_scheduling_object

__all__ = [
    "KubeInput",
    "is_kube_input",
    "load_kube",
    "validate_update",
]


@dataclass(frozen=True, slots=True)
class KubeInput:
    """A compiled kube input: the gang, the objects (as given, plus what the Job controller would
    create), the topologies the input brings and warnings."""

    gang: Gang
    objects: tuple[Mapping[str, Any], ...]
    topologies: tuple[Topology, ...]
    warnings: tuple[str, ...]


def is_kube_input(documents: Sequence[Any]) -> bool:
    """A ``scheduling.k8s.io`` object, a Job with ``spec.scheduling``, or a Pod naming a PodGroup."""
    for doc in documents:
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
    jobs = [d for d in documents if isinstance(d, Mapping) and d.get("kind") == "Job"]
    kind = "Job" if jobs else "Workload" if found.workloads else "PodGroup"
    gang, levels = to_gang(found, kind)
    pods = [p.obj for group in found.pods.values() for p in group]
    return KubeInput(gang, (*found.objects, *pods), levels.brought, tuple(found.warnings))
