"""Upstream Kubernetes objects for a gang: Workload, PodGroups, CompositePodGroups and linked
pods (``compile_to_kube``), and the PodGroup conditions of a dry run (``status_objects``)."""

from toposched.emit.kube.intent import compile_to_kube
from toposched.emit.kube.status import status_objects

__all__ = ["compile_to_kube", "status_objects"]
