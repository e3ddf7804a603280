"""Kubernetes batch objects (``batch/v1``): the indexed Job, the workload most Kueue users submit."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

API_VERSION = "batch/v1"


def job_object(
    name: str,
    namespace: str,
    pods: int,
    pod_spec: Mapping[str, Any],
    *,
    labels: Mapping[str, str] | None = None,
    template_annotations: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """An Indexed Job of ``pods`` pods run at once (parallelism = completions = ``pods``); the
    template's annotations are where Kueue reads a PodSet's topology request."""
    metadata: dict[str, Any] = {"name": name, "namespace": namespace}
    if labels is not None:
        metadata["labels"] = dict(labels)
    template: dict[str, Any] = {"spec": dict(pod_spec)}
    if template_annotations is not None:
        template = {"metadata": {"annotations": dict(template_annotations)}, **template}
    return {
        "apiVersion": API_VERSION,
        "kind": "Job",
        "metadata": metadata,
        "spec": {"parallelism": pods, "completions": pods, "completionMode": "Indexed", "template": template},
    }
